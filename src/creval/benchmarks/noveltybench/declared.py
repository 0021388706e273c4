"""What NoveltyBench declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from typing import Any

from creval.benchmarks.families import BEYOND
from creval.records import Record, Scores
from creval.records.declarations import (
    AnswerText,
    BatteryMember,
    Measure,
    SweepPair,
    SweepPairing,
    finite,
)

BATTERY = BatteryMember(
    BEYOND, 3,
    (Measure("distinct_mean", "divergent", "NoveltyBench distinct answers in k tries"),
     Measure("utility_mean", "convergent", "NoveltyBench utility of the distinct answers",
             judged=True)),
    {"smoke": dict(limit=2, k=3, max_tokens=64, partitioner="embedding"),
     "standard": dict(), "paper": dict(subset="curated")},
)


def _generations(output: dict[str, Any], options: dict[str, Any]) -> list[Any]:
    return list(output.get("generations") or [])


ANSWER_TEXT = AnswerText(texts=_generations, homogeneity=True, embedder=lambda options: "minilm")


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """The number of distinct answers among k against the judge's mean rating of the k
    answers, per prompt (nothing with ``--quality none``)."""
    rows = [r for r in scores.table if "distinct" in r]
    quality = [finite(r.get("mean_rating")) for r in rows]
    if all(q is None for q in quality):  # --quality none: nothing to draw against
        return []
    return [SweepPair("distinct_mean", "NoveltyBench distinct answers in k", "mean_rating",
                      "judge's mean rating of the k answers (1-10)",
                      [finite(r["distinct"]) for r in rows], quality)]


SWEEP = SweepPairing(sweep_pairs)
