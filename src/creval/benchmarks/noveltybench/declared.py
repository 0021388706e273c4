"""What NoveltyBench declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import BEYOND
from creval.records.declarations import BatteryMember, Measure

BATTERY = BatteryMember(
    BEYOND, 3,
    (Measure("distinct_mean", "divergent", "NoveltyBench distinct answers in k tries"),
     Measure("utility_mean", "convergent", "NoveltyBench utility of the distinct answers",
             judged=True)),
    {"smoke": dict(limit=2, k=3, max_tokens=64, partitioner="embedding"),
     "standard": dict(), "paper": dict(subset="curated")},
)
