"""What a NoveltyBench unit asks: k answers to one prompt (the paper's four ways of asking),
then, when the run's judge partitions or rates, its pairwise verdicts and its ratings.

The judge's partition follows the paper's ``partition.py`` (its ``gpt4`` algorithm): the
greedy representative partition of :func:`creval.metrics.partition.partition_steps`, with one
judge call per (representative, later answer) pair, the representative as Answer A; a
verdict holds both ways. Unreadable verdicts count as "different" (as the paper's code
treats a failed call) and are counted. The wording is ours (``noveltybench_same.txt``,
``noveltybench_quality.txt``); users may load other wording with ``--judge-prompt-file`` and
``--quality-prompt-file``.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Any

from creval.benchmarks.common import format_prompt, load_prompt
from creval.errors import CrevalError
from creval.models.base import GenerateRequest, Message
from creval.runner.engine import Unit, UnitContext

if TYPE_CHECKING:
    from creval.benchmarks.noveltybench import NoveltyOptions
    from creval.benchmarks.noveltybench.data import NoveltyPrompt

#: Partitioners that ask a language model inside the unit (through the judge role).
UNIT_PARTITIONERS = ("judge", "llm")
JUDGE_MAX_TOKENS = 16  # room for the structured {"verdict": "different"}

_SAME = re.compile(r"\b(same|different)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\b(10|[1-9])\b")


def parse_same(text: str) -> bool | None:
    """The judge's verdict: True (same), False (different) or None (unreadable); the first
    of the two words counts.

    >>> parse_same("Same."), parse_same("They are different"), parse_same("maybe")
    (True, False, None)
    """
    found = _SAME.search(text)
    return None if found is None else found.group(1).lower() == "same"


def parse_rating(text: str) -> int | None:
    """The first whole number 1-10 in the judge's answer, or None.

    >>> parse_rating("8"), parse_rating("Rating: 10/10"), parse_rating("none")
    (8, 10, None)
    """
    found = _NUMBER.search(text)
    return None if found is None else int(found.group(1))


#: The answers' shapes for a judge that can constrain decoding (llama.cpp grammar, OpenAI's
#: JSON schema); the parsers above read them as they read free text.
VERDICT_SCHEMA = {"type": "object", "properties": {"verdict": {"type": "string", "enum": ["same", "different"]}},
                  "required": ["verdict"], "additionalProperties": False}  # fmt: skip
RATING_SCHEMA = {"type": "object", "properties": {"rating": {"type": "integer", "enum": list(range(1, 11))}},
                 "required": ["rating"], "additionalProperties": False}  # fmt: skip


def _judge_request(ctx: UnitContext, text: str, schema: dict[str, Any]) -> GenerateRequest:
    structured = ctx.capabilities("judge").structured_output
    return GenerateRequest.chat(text, temperature=0.0, max_tokens=JUDGE_MAX_TOKENS,
                                response_schema=schema if structured else None)


def templates(options: NoveltyOptions) -> dict[str, str]:
    """The wording a run sends, by the name under which its digest is recorded."""
    out: dict[str, str] = {}
    if options.sampling == "system":
        out["system"] = load_prompt("noveltybench_system", options.system_prompt_file)
    if options.sampling == "in-context":
        out["again"] = load_prompt("noveltybench_again", options.again_prompt_file)
    if options.partitioner == "judge":
        out["judge"] = load_prompt("noveltybench_same", options.judge_prompt_file)
    if options.quality == "judge":
        out["quality"] = load_prompt("noveltybench_quality", options.quality_prompt_file)
    return out


def check_sampling(item: NoveltyPrompt, options: NoveltyOptions) -> None:
    if options.sampling == "paraphrase" and len(item.prompt_paraphrases) < options.k:
        raise CrevalError(
            f"Prompt {item.id!r} has {len(item.prompt_paraphrases)} paraphrases; --sampling "
            f"paraphrase asks each of the k={options.k} answers with its own paraphrase. Use "
            "a smaller --k or prompts with enough paraphrases (the curated set has 10).")


async def sample(ctx: UnitContext, item: NoveltyPrompt, options: NoveltyOptions,
                 words: dict[str, str], repeat: int = 0) -> list[str]:
    """The k answers, asked the way ``--sampling`` says (the paper's ``inference.py``);
    ``repeat`` r >= 1 asks another set of k with sample indices of its own
    (:func:`creval.benchmarks.repeats.first_sample`)."""
    from creval.benchmarks.repeats import first_sample

    params: dict[str, Any] = {"temperature": options.temperature,
                              "max_tokens": options.max_tokens, "seed": options.seed}
    k = options.k
    if options.sampling in ("default", "system"):
        request = GenerateRequest.chat(item.prompt, system=words.get("system"), n=k, **params)
        return [c.text for c in await ctx.generate(request, first_sample=first_sample(repeat))]
    answers: list[str] = []
    messages = [Message(role="user", content=item.prompt)]
    for i in range(k):
        if options.sampling == "paraphrase":
            messages = [Message(role="user", content=item.prompt_paraphrases[i])]
        (completion,) = await ctx.generate(GenerateRequest(messages=tuple(messages), **params),
                                           first_sample=first_sample(repeat, i))
        answers.append(completion.text)
        if options.sampling == "in-context":
            messages += [Message(role="assistant", content=completion.text),
                         Message(role="user", content=words["again"])]
    return answers


async def judge_partition(ctx: UnitContext, prompt: str, answers: list[str],
                          template: str) -> tuple[list[int], int]:
    """The judge's greedy partition of ``answers`` and how many verdicts were unreadable."""
    from creval.metrics.partition import partition_steps

    unreadable = 0

    async def same(a: str, b: str) -> str:
        nonlocal unreadable
        text = format_prompt(template, "the judge prompt", prompt=prompt, a=a, b=b)
        (completion,) = await ctx.generate(_judge_request(ctx, text, VERDICT_SCHEMA), role="judge")
        verdict = parse_same(completion.text)
        unreadable += verdict is None
        return "entailment" if verdict else "neutral"

    steps = partition_steps(answers, mode="strict", lookup="both")
    try:
        pairs = next(steps)
        while True:
            rep = pairs[0][0]  # each batch compares one representative, asked first as A
            forward = [p for p in pairs if p[0] == rep]
            labels = await asyncio.gather(*(same(a, b) for a, b in forward))
            verdicts = {}
            for (a, b), label in zip(forward, labels, strict=True):
                verdicts[(a, b)] = verdicts[(b, a)] = label
            pairs = steps.send(verdicts)
    except StopIteration as done:
        return list(done.value.class_ids), unreadable


async def llm_partition(ctx: UnitContext, answers: list[str]) -> list[int]:
    """The greedy partition by the ``llm`` entailment spec, asked through the judge role."""
    from creval.nli import get_entailment, partition_texts

    async def generate(request: GenerateRequest) -> Any:
        return await ctx.generate(request, role="judge")

    return list((await partition_texts(answers, get_entailment("llm", generate=generate))).class_ids)


async def ratings(ctx: UnitContext, prompt: str, answers: list[str],
                  template: str) -> list[int | None]:
    """The judge's rating 1-10 of every answer (None: unreadable)."""
    async def rate(answer: str) -> int | None:
        text = format_prompt(template, "the quality prompt", prompt=prompt, answer=answer)
        (completion,) = await ctx.generate(_judge_request(ctx, text, RATING_SCHEMA), role="judge")
        return parse_rating(completion.text)

    return list(await asyncio.gather(*(rate(a) for a in answers)))


def prompt_unit(key: str, item: NoveltyPrompt, options: NoveltyOptions,
                words: dict[str, str], meta: dict[str, Any], repeat: int = 0) -> Unit:
    """One prompt's unit (one set of k answers of ``repeat``): its k answers, then the
    judge's partition and ratings if asked."""
    check_sampling(item, options)

    async def run(ctx: UnitContext) -> dict[str, Any]:
        answers = await sample(ctx, item, options, words, repeat)
        out: dict[str, Any] = {"generations": answers}
        if options.partitioner == "judge":
            out["partition"], out["unreadable_verdicts"] = await judge_partition(
                ctx, item.prompt, answers, words["judge"])
            out["partitioner"] = "judge"
        elif options.partitioner == "llm":
            out["partition"], out["partitioner"] = await llm_partition(ctx, answers), "llm"
        if options.quality == "judge":
            out["ratings"] = await ratings(ctx, item.prompt, answers, words["quality"])
        return out

    return Unit(key=key, run=run, meta=meta)
