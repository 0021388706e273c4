"""What the AUT declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import BEYOND
from creval.records import Record, Scores
from creval.records.declarations import BatteryMember, Measure, SweepPair, SweepPairing, finite

BATTERY = BatteryMember(
    BEYOND, 2,
    (Measure("originality_mean", "divergent", "AUT originality per use (--scorer; SemDis default)",
             judged=True),
     Measure("fluency_mean", "divergent", "AUT fluency: valid distinct uses per object")),
    {"smoke": dict(limit=2, uses=5, max_tokens=200, validation_limit=60),
     "standard": dict(), "paper": dict()},
    lang="en",
)


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """The originality of the uses (the run's ``--scorer``) against the valid-use rate (valid
    distinct uses listed over the uses asked, at most 1), per object: AUT has no quality
    rating of a use, so, as DAT's, its quality side is validity."""
    items = scores.per_item
    lists, asked = len(scores.table), finite(scores.headline.get("uses_asked"))
    if "originality_mean" not in items or not lists or not asked:
        return []
    per_list = asked / lists  # --uses
    rate = [None if f is None else min(1.0, f / per_list) for f in items.get("fluency_mean", [])]
    return [SweepPair("originality_mean", "AUT originality of the uses", "valid_use_rate",
                      "valid-use rate (uses listed over uses asked)", list(items["originality_mean"]),
                      rate)]


SWEEP = SweepPairing(sweep_pairs)
