"""Which model family a model belongs to, for keeping a judge of the tested model's own
family out of a judge panel (``--judge a,b,c``; :mod:`creval.evaluation.panel.panels`).

A judge favours answers of its own kind (self-preference; EQ-Bench's maintainers: "they all
have a small amount of self-bias"), and models of one family share most of what makes that
bias. So a panel leaves out, by default, every judge of the tested model's family.

**The rule.** A name (a model spec or a model id an endpoint reported) is read as
:func:`creval.evaluation.compare.conditions.bare` reads it (lower case, without the provider or a
router's prefix), then:

1. a name that starts as one of a known maker's model lines belongs to that maker
   (:data:`KNOWN`): ``gpt-*``, ``o1``/``o3``/``o4``, ``chatgpt-*`` are ``openai``; ``claude-*``
   ``anthropic``; ``gemini-*``/``gemma-*`` ``google``; ``llama-*`` ``meta``; ``qwen*``
   ``alibaba``; ``mistral``/``mixtral``/``ministral``/``codestral`` ``mistral``; and so on.
   So ``gpt-4o-mini`` and ``gpt-4o`` (and ``gpt-4.1``) are one family;
2. any other name belongs to its first word, the letters before the first digit, ``-``,
   ``_`` or ``.``: ``mymodel-7b`` and ``mymodel-13b-chat`` are one family, ``local`` is ``local``.

**The evidence.** A model's family is decided by the snapshots its answers reported (every
answer's ``model`` field, read from the run's records as comparability reads them:
:mod:`creval.evaluation.compare.evidence`); only a model none of whose answers reported one is judged
by its spec. Snapshots are known only after the first answers, so a panel decides twice:
before any call by the specs, where both names are of a known maker (:func:`same_by_spec`),
and after each judge's run by the snapshots (:func:`same_by_snapshots`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from creval.evaluation.compare.conditions import bare

#: maker -> the start of its model lines' names (a regular expression on the bare name).
KNOWN: dict[str, str] = {
    "openai": r"(gpt|chatgpt|o[1-9](-|$)|davinci|text-davinci|babbage|codex)",
    "anthropic": r"claude",
    "google": r"(gemini|gemma|palm|bard)",
    "meta": r"(llama|meta-llama|codellama)",
    "mistral": r"(mistral|mixtral|ministral|codestral|pixtral|magistral)",
    "alibaba": r"(qwen|qwq)",
    "deepseek": r"deepseek",
    "microsoft": r"phi-?\d",
    "xai": r"grok",
    "cohere": r"(command|aya)",
    "huggingface": r"smollm",
    "01ai": r"yi-",
    "zhipu": r"(glm|chatglm)",
    "moonshot": r"(kimi|moonshot)",
}


def family(name: str) -> str:
    """The family of a model name or reported snapshot (see the module docstring).

    >>> family("openai:gpt-4o-mini"), family("gpt-4o-2024-08-06"), family("o3-mini")
    ('openai', 'openai', 'openai')
    >>> family("claude-3-5-sonnet-20241022"), family("meta-llama/Llama-3.1-8B-Instruct")
    ('anthropic', 'meta')
    >>> family("mymodel-7b"), family("local")
    ('mymodel', 'local')
    """
    name = bare(name)
    for maker, start in KNOWN.items():
        if re.match(start, name):
            return maker
    word = re.match(r"[a-z]+", name)
    return word.group(0) if word else name


def known_family(name: str) -> str | None:
    """The maker of a known model line, or None (the name says nothing sure before a call).

    >>> known_family("openai:gpt-4o"), known_family("openai:panel-judge")
    ('openai', None)
    """
    name = bare(name)
    return next((m for m, start in KNOWN.items() if re.match(start, name)), None)


def same_by_spec(target: str, judge: str) -> str | None:
    """Why ``judge`` is of ``target``'s family by their specs alone (both known makers), or None.

    >>> same_by_spec("openai:gpt-4o-mini", "openai:gpt-4o")
    'gpt-4o is of the openai family, as the tested model gpt-4o-mini (by their specs, before any call)'
    >>> same_by_spec("openai:gpt-4o-mini", "openai:claude-3-opus") is None
    True
    """
    mine, theirs = known_family(target), known_family(judge)
    if mine is None or mine != theirs:
        return None
    return (f"{bare(judge)} is of the {mine} family, as the tested model {bare(target)} "
            "(by their specs, before any call)")


def families_of(reported: Iterable[str], spec: str) -> dict[str, str]:
    """Snapshot (or the spec, when none was reported) -> its family."""
    names = sorted(set(reported)) or [spec]
    return {bare(n): family(n) for n in names}


def same_by_snapshots(target_reported: Iterable[str], target_spec: str,
                      judge_reported: Iterable[str], judge_spec: str) -> str | None:
    """Why the judge is of the tested model's family by what their answers reported (each
    falls back to its spec when none of its answers reported a model id), or None.

    >>> same_by_snapshots(["gpt-4o-mini-2024-07-18"], "openai:m", ["gpt-4o-2024-08-06"], "openai:j")
    'its answers reported gpt-4o-2024-08-06 (openai family), the tested model answered as gpt-4o-mini-2024-07-18 (openai family)'
    """
    target = families_of(target_reported, target_spec)
    judge = families_of(judge_reported, judge_spec)
    shared = set(target.values()) & set(judge.values())
    if not shared:
        return None

    def said(names: dict[str, str], reported: Iterable[str], spec: str) -> str:
        what = ", ".join(n for n, f in names.items() if f in shared)
        return what if list(reported) else f"{what} (its spec: no answer reported a model id)"

    fam = ", ".join(sorted(shared))
    return (f"its answers reported {said(judge, judge_reported, judge_spec)} ({fam} family), "
            f"the tested model answered as {said(target, target_reported, target_spec)} "
            f"({fam} family)")


def judged_family(run_dir: Path, model: str, judge: str) -> tuple[tuple[str, ...], str | None]:
    """A judged run's judge: the model ids its answers reported, and why it is of the tested
    model ``model``'s family by what the run's answers reported (None: another family).
    Read from the run's records (:func:`creval.evaluation.compare.evidence.read_evidence`)."""
    from creval.evaluation.compare.evidence import read_evidence

    ev = read_evidence(run_dir)
    target, judged = ev.asked.get("target"), ev.asked.get("judge")
    reported = tuple(sorted(judged.reported)) if judged is not None else ()
    mine = sorted(target.reported) if target is not None and not target.unreported else []
    theirs = list(reported) if judged is not None and not judged.unreported else []
    return reported, same_by_snapshots(mine, model, theirs, judge)


__all__ = ["KNOWN", "judged_family", "families_of", "family", "known_family", "same_by_snapshots", "same_by_spec"]
