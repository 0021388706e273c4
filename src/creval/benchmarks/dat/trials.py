"""DAT trials that ask again until the answer is valid (seed 004, section 4.2).

The Japanese paper sets the number of trials to 100 and says that responses which do not
follow the format or contain non-Japanese words, symbols or non-nouns "are excluded from
evaluation and not counted in the number of trials": the model is asked until it has given
the requested number of valid answers. Here each trial asks up to ``attempts`` times and
keeps the first valid answer; a trial whose every answer is invalid is an invalid trial, and
the scores report how many trials reached that cap and how many answers were asked again.

Attempt ``j`` of trial ``i`` is sample ``i + j * stride`` (``stride`` = the requested
trials), so the first answers are the samples a single-answer run asks for, and every
answer of the run is a distinct sample.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from creval.models.base import GenerateRequest
from creval.records import Scores
from creval.runner.engine import Unit, UnitContext
from creval.runner.store import Record

#: Answers asked per trial by default: the Japanese paper asks until an answer is valid.
JA_ATTEMPTS = 10


def resolve_attempts(attempts: int | None, lang: str) -> int:
    """``attempts`` as given, else 10 for Japanese (the paper) and 1 for English (Olson).

    >>> resolve_attempts(None, "ja"), resolve_attempts(None, "en"), resolve_attempts(3, "en")
    (10, 1, 3)
    """
    if attempts is not None:
        return attempts
    return JA_ATTEMPTS if lang == "ja" else 1


def answer_text(text: str) -> str:
    """The answer as the word-list parser reads it: a JSON list (a constrained answer) as
    numbered lines, any other text unchanged.

    >>> answer_text('["傘", "砂糖"]')
    '1. 傘\\n2. 砂糖'
    """
    if text.lstrip().startswith("["):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return text
        if isinstance(value, list):
            return "\n".join(f"{i}. {w}" for i, w in enumerate(value, start=1) if isinstance(w, str))
    return text


def trial_unit(
    key: str,
    request: GenerateRequest,
    *,
    trial: int,
    stride: int,
    attempts: int,
    invalid_reason: Callable[[str], str | None],
    meta: dict[str, Any] | None = None,
) -> Unit:
    """A unit that asks ``request`` until ``invalid_reason(text)`` is None, at most
    ``attempts`` times; it records the kept answer and every answer asked again."""

    async def run(ctx: UnitContext) -> dict[str, Any]:
        asked_again: list[dict[str, str]] = []
        for attempt in range(attempts):
            (completion,) = await ctx.generate(request, first_sample=trial + attempt * stride)
            reason = invalid_reason(answer_text(completion.text))
            if reason is None or attempt == attempts - 1:
                return {"text": completion.text, "finish_reason": completion.finish_reason,
                        "attempts": attempt + 1, "at_cap": reason is not None,
                        "asked_again": asked_again}
            asked_again.append({"text": completion.text, "reason": reason})
        raise AssertionError("unreachable: attempts >= 1")

    return Unit(key=key, run=run, meta=meta or {})


def add_attempts(scores: Scores, records: list[Record], attempts: int) -> Scores:
    """DAT ``scores`` with how many answers the trials took and how many reached the cap."""
    ok = [r for r in records if r.status == "ok"]
    if attempts <= 1 and not any("attempts" in r.output for r in ok):
        return scores
    answers = sum(int(r.output.get("attempts", 1)) for r in ok)
    again = sum(len(r.output.get("asked_again", [])) for r in ok)
    at_cap = sum(bool(r.output.get("at_cap")) for r in ok)
    headline = {**scores.headline, "answers": answers, "invalid_answers_asked_again": again,
                "trials_at_cap": at_cap, "attempts_cap": attempts}
    note = (f"Invalid answers are not trials (the Japanese paper): {again} invalid answer(s) were "
            f"asked again, {answers} answers in all for {len(ok)} trial(s); {at_cap} trial(s) "
            f"reached the cap of {attempts} answers without a valid one and count as invalid.")
    return scores.model_copy(update={"headline": headline, "notes": [*scores.notes, note]})
