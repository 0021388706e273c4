"""Pieces every single-turn benchmark uses: prompt templates and one-request units."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from creval._util.prompts import format_prompt, load_prompt
from creval.errors import CrevalError
from creval.models.base import GenerateRequest, digest
from creval.runner.engine import Unit, UnitContext

__all__ = [
    "answer_placeholders", "format_prompt", "is_placeholder", "jsonl_objects", "load_prompt",
    "parse_jsonl", "single_turn_unit", "text_digest",
]


def answer_placeholders(template: str) -> frozenset[str]:
    """What a prompt's answer format shows in place of an answer, lower-cased: text in angle
    brackets (``<the step>``) and a word that fills a numbered list (``1. noun`` ... ``10. noun``).
    An answer that is only one of these copied the template; it is no answer.

    >>> sorted(answer_placeholders("Reply:\\nStep {step}: <the step>\\n1. noun\\n2. noun\\n3. noun"))
    ['noun', 'the step']
    >>> answer_placeholders("1. Use nouns only.\\n2. No names.")
    frozenset()
    """
    import re
    from collections import Counter

    found = {m.strip().lower() for m in re.findall(r"<([^<>{}\n]{1,40})>", template)}
    items = Counter(
        m.strip().lower() for m in re.findall(r"(?m)^\s*\d+[.)]\s*(\S+)\s*$", template)
    )
    found |= {word for word, count in items.items() if count >= 3}
    return frozenset(found)


def is_placeholder(answer: str, placeholders: frozenset[str]) -> bool:
    """Whether ``answer`` is a placeholder of the answer format, brackets and case aside.

    >>> is_placeholder(" <The step>.", frozenset({"the step"}))
    True
    """
    import re

    return re.sub(r"^[\s<\[\"'*]+|[\s>\]\"'*.]+$", "", answer).lower() in placeholders


def text_digest(text: str) -> str:
    return digest(text)[:16]


def single_turn_unit(
    key: str, request: GenerateRequest, *, sample: int = 0, meta: dict[str, Any] | None = None
) -> Unit:
    """A unit that asks one question and records the answer text (sample ``sample``)."""

    async def run(ctx: UnitContext) -> dict[str, Any]:
        (completion,) = await ctx.generate(request, first_sample=sample)
        return {"text": completion.text, "finish_reason": completion.finish_reason}

    return Unit(key=key, run=run, meta=meta or {})


M = TypeVar("M", bound=BaseModel)


def jsonl_objects(lines: Iterable[str], source: str) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each non-blank JSONL line; errors name ``source:line``.

    >>> jsonl_objects(['{"a": 1}', "", '{"b": 2}'], "f")
    [(1, {'a': 1}), (3, {'b': 2})]
    """
    import json

    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CrevalError(f"{source}:{number}: not valid JSON ({exc.msg}).") from None
        if not isinstance(value, dict):
            raise CrevalError(f"{source}:{number}: each line must be a JSON object.")
        out.append((number, value))
    return out


def parse_jsonl(
    lines: list[str],
    model: type[M],
    source: str,
    *,
    example: str,
    check: Callable[[M], str | None] = lambda item: None,
) -> list[M]:
    """JSONL lines as ``model`` items with unique ``id`` fields; blank lines are skipped.

    Every error names ``source:line`` and what to fix; ``check`` returns a problem with an
    item, or None.

    >>> from creval.benchmarks.sat.stories import Story
    >>> [s.id for s in parse_jsonl(['{"id": 1, "story": "x"}', ""], Story, "f", example="")]
    ['1']
    """
    items: list[M] = []
    seen: set[Any] = set()
    for number, value in jsonl_objects(lines, source):
        try:
            item = model.model_validate(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise CrevalError(
                f"{source}:{number}: field {field!r}: {err['msg']}. Each line needs {example}."
            ) from None
        problem = check(item)
        if problem:
            raise CrevalError(f"{source}:{number}: {problem}")
        key = getattr(item, "id", None)
        if key in seen:
            raise CrevalError(f"{source}:{number}: duplicate id {key!r}; ids must be unique.")
        seen.add(key)
        items.append(item)
    if not items:
        raise CrevalError(f"{source} holds no items.")
    return items
