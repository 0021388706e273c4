"""What LoTbench declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import LOTBENCH
from creval.records.declarations import (
    GPT4O_MINI,
    AnswerText,
    BatteryMember,
    Measure,
    PresetEntry,
    role_need,
)

BATTERY = BatteryMember(
    LOTBENCH, 1,
    (Measure("S_c", "divergent", "LoTbench creativity score S_c", judged=True),),
    {"smoke": dict(limit=1, repeats=1, max_rounds=2, judge_max_tokens=64),
     "standard": dict(), "paper": dict()},
)

#: ``--preset paper`` (seed 003): GPT-4o mini played E1 and E2 of the game (sections 7.2, 7.3).
PAPER = PresetEntry(
    roles={"e1": GPT4O_MINI, "e2": GPT4O_MINI}, protocol="lotbench",
    needs=(role_need("e1", "E1", GPT4O_MINI), role_need("e2", "E2", GPT4O_MINI)),
)

ANSWER_TEXT = AnswerText(not_free_text="LoTbench answers are multi-turn games")
