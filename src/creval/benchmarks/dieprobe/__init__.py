"""A mode-collapse probe (after Verbalized Sampling, Zhang et al. 2025): the model is asked
for a fair die roll many times, and the KL divergence of its answers from uniform says how
far it is from random (:func:`creval.metrics.mode_collapse.kl_from_uniform`; 0 is uniform,
``log N`` always the same face).

Beyond the seed papers. ``--strategy``: ``direct`` (one roll per request, independent
samples), ``sequence`` (``--k`` rolls in one answer), ``verbalized`` (``--k`` rolls each with
its probability, Verbalized Sampling's standard form) or ``verbalized-cot`` (the same after
thinking step by step). Our wording throughout. The paper reports a KL of 0.926 for direct
prompting and 0.027 for verbalized sampling, averaged over its models (its own prompts and
models; not a reference this probe can be compared with as such).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions, option, register_benchmark
from creval.errors import CrevalError
from creval.metrics.mode_collapse import kl_from_uniform
from creval.models.base import GenerateRequest
from creval.records import Record, Scores
from creval.runner.engine import Unit, UnitContext

Strategy = Literal["direct", "sequence", "verbalized", "verbalized-cot"]
STRATEGIES = ("direct", "sequence", "verbalized", "verbalized-cot")

PROMPTS: dict[str, str] = {
    "direct": "Roll a fair {sides}-sided die. Reply with the number you rolled and nothing else.",
    "sequence": ("Roll a fair {sides}-sided die {k} times. Reply with the {k} numbers you rolled, "
                 "separated by commas, and nothing else."),
    "verbalized": ("Give {k} possible results of rolling a fair {sides}-sided die once, each with "
                   "the probability of that result. Reply with one line per result, written as "
                   "'result: probability', and nothing else."),
    "verbalized-cot": ("Think step by step about what rolling a fair {sides}-sided die once can "
                       "give, then give {k} possible results, each with the probability of that "
                       "result. End with one line per result, written as 'result: probability'."),
}
_NUMBER = re.compile(r"(?<![\d.])(\d{1,3})(?![\d.]*\d)")
_LINE = re.compile(r"^\W*(\d{1,3})\s*[:=\-]\s*(\d*\.?\d+)\s*(%?)", re.MULTILINE)


class DieOptions(BenchmarkOptions):
    strategy: Strategy = option("direct", "How the rolls are asked: direct (one per request), "
                                "sequence (--k in one answer), verbalized or verbalized-cot "
                                "(--k results with their probabilities).")
    sides: int = option(6, "Faces of the die (the answers' support).", ge=2, le=100)
    rolls: int = option(60, "Rolls asked in all (requests: rolls, or rolls / k).", ge=2,
                        kind="scale")
    k: int = option(5, "Rolls per request of sequence and verbalized.", ge=2, le=50)
    temperature: float = option(1.0, "Sampling temperature.", ge=0.0)
    max_tokens: int = option(128, "Maximum tokens per answer (verbalized-cot needs more).", ge=1)


def parse_rolls(text: str, strategy: str, sides: int, k: int) -> tuple[list[int], list[float | None]]:
    """The rolls read from one answer and, for the verbalized forms, each one's stated
    probability: direct, the first whole number; sequence, the whole numbers in order (at
    most ``k``); verbalized, the ``result: probability`` lines (at most ``k``, the last ones
    for chain-of-thought). Numbers outside ``1..sides`` are dropped.

    >>> parse_rolls("I rolled a 4.", "direct", 6, 5)
    ([4], [None])
    >>> parse_rolls("3, 5, 5, 9, 1, 2", "sequence", 6, 5)
    ([3, 5, 5, 1, 2], [None, None, None, None, None])
    >>> parse_rolls("1: 0.2\\n6: 20%\\n", "verbalized", 6, 5)
    ([1, 6], [0.2, 0.2])
    """
    if strategy == "direct":
        first = [r for r in (int(m) for m in _NUMBER.findall(text)[:1]) if 1 <= r <= sides]
        return first, [None] * len(first)
    if strategy == "sequence":
        rolls = [r for r in (int(m) for m in _NUMBER.findall(text)) if 1 <= r <= sides][:k]
        return rolls, [None] * len(rolls)
    lines = [(int(a), float(b) / (100 if pct else 1)) for a, b, pct in _LINE.findall(text)]
    lines = [(r, p) for r, p in lines if 1 <= r <= sides]
    lines = lines[-k:] if strategy == "verbalized-cot" else lines[:k]
    return [r for r, _ in lines], [p for _, p in lines]


@register_benchmark
class DieProbe(Benchmark[DieOptions]):
    name = "dieprobe"
    description = ("Mode-collapse probe: a fair die rolled many times, KL divergence of the "
                   "answers from uniform per strategy (beyond the seed papers).")
    Options = DieOptions

    def prompts(self, options: DieOptions) -> dict[str, str]:
        return {"prompt": PROMPTS[options.strategy]}

    def units(self, options: DieOptions) -> list[Unit]:
        if options.strategy not in STRATEGIES:
            raise CrevalError(f"--strategy {options.strategy!r} is not known; use one of "
                              f"{', '.join(STRATEGIES)}.")
        per_call = 1 if options.strategy == "direct" else options.k
        calls = math.ceil(options.rolls / per_call)
        calls = min(calls, options.limit) if options.limit else calls
        text = PROMPTS[options.strategy].format(sides=options.sides, k=options.k)
        request = GenerateRequest.chat(text, temperature=options.temperature,
                                       max_tokens=options.max_tokens, seed=options.seed)
        units = []
        for i in range(calls):
            async def run(ctx: UnitContext, sample: int = i) -> dict[str, Any]:
                (completion,) = await ctx.generate(request, first_sample=sample)
                return {"text": completion.text, "finish_reason": completion.finish_reason}

            units.append(Unit(key=f"die-{options.strategy}-{i}", run=run,
                              meta={"id": str(i), "strategy": options.strategy,
                                    "sides": options.sides}))
        return units

    def score(self, records: list[Record], options: DieOptions) -> Scores:
        ok = [r for r in records if r.status == "ok"]
        counts: Counter[int] = Counter()
        rows = []
        unreadable = 0
        for r in ok:
            rolls, probs = parse_rolls(str(r.output.get("text") or ""), options.strategy,
                                       options.sides, options.k)
            unreadable += not rolls
            counts.update(rolls)
            rows.append({"id": r.unit.get("id", r.key), "rolls": rolls, "probabilities": probs})
        faces = [counts.get(f, 0) for f in range(1, options.sides + 1)]
        total = sum(faces)
        headline: dict[str, Any] = {
            "kl_from_uniform": kl_from_uniform(faces) if total else None,
            "kl_max": math.log(options.sides),
            "rolls": total, "answers": len(ok), "unreadable_answers": unreadable,
            "top_face_share": max(faces) / total if total else None,
        }
        notes = [f"KL(answers || uniform over {options.sides} faces) in nats: 0 is uniform, "
                 f"{math.log(options.sides):.3f} (log {options.sides}) always one face; "
                 f"strategy {options.strategy}, {total} rolls read from {len(ok)} answers."]
        if total < 10 * options.sides:
            notes.append(f"Only {total} rolls: the empirical KL of a truly uniform die is biased "
                         f"upwards at this size (about {(options.sides - 1) / (2 * max(total, 1)):.3f} "
                         "nats); ask more --rolls.")
        return Scores(headline=headline, table=rows, notes=notes).with_extra(
            counts={str(f): c for f, c in zip(range(1, options.sides + 1), faces, strict=True)},
            strategy=options.strategy)
