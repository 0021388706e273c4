"""What the AUT declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import BEYOND
from creval.records.declarations import BatteryMember, Measure

BATTERY = BatteryMember(
    BEYOND, 2,
    (Measure("originality_mean", "divergent", "AUT originality per use (--scorer; SemDis default)",
             judged=True),
     Measure("fluency_mean", "divergent", "AUT fluency: valid distinct uses per object")),
    {"smoke": dict(limit=2, uses=5, max_tokens=200, validation_limit=60),
     "standard": dict(), "paper": dict()},
    lang="en",
)
