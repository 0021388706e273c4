"""What Oogiri declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import LOTBENCH
from creval.records.declarations import BatteryMember, Measure, Separation

BATTERY = BatteryMember(
    LOTBENCH, 0,
    (Measure("acc", "convergent", "Oogiri choice accuracy"),),
    {"smoke": dict(limit=3, constrain_answers=True),
     "standard": dict(limit=400, constrain_answers=True),
     "paper": dict()},
    takes_lang=True,
    separations=(Separation("acc", 0.5, 0.1, "a proportion near 0.5; 10 points apart"),),
)
