"""What TTCW and TTCW-judges declare about themselves for the product
(:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import BEYOND
from creval.records.declarations import BatteryMember, Measure

JUDGES_BATTERY = BatteryMember(
    BEYOND, 0,
    (Measure("kappa", "evaluator", "TTCW: the model as a writing judge, kappa with the experts",
             judged=True),),
    {"smoke": dict(limit=1, tests="1,5,9", max_tokens=16), "standard": dict(), "paper": dict()},
)
WRITING_BATTERY = BatteryMember(
    BEYOND, 1,
    (Measure("pass_rate", "convergent", "TTCW: share of the 14 tests its stories pass",
             judged=True),),
    {"smoke": dict(limit=1, tests="1,5,9", max_tokens=200, judge_max_tokens=16),
     "standard": dict(), "paper": dict()},
)
