"""What NeoCoder declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import NEOCODER
from creval.records import Record, Scores
from creval.records.declarations import (
    GPT4_DETECTOR,
    AnswerText,
    BatteryMember,
    Items,
    Measure,
    PresetEntry,
    Separation,
    SweepPair,
    SweepPairing,
    data_need,
    judge_need,
)

BATTERY = BatteryMember(
    NEOCODER, 0,
    (Measure("convergent@0", "convergent", "NeoCoder convergent creativity at t=0", judged=True),
     Measure("divergent@{last_state}", "divergent",
             "NeoCoder divergent creativity at the last state", judged=True)),
    {"smoke": dict(limit=2, states="0-2", detector="both", max_tokens=300),
     "standard": dict(limit=100, states="0-5"),
     "paper": dict(states="0-5")},
    separations=(Separation("convergent@0", 0.37, 0.1,
                            "seed 000 Table 3: GPT-4 convergent@0 = 0.162, a proportion (sd 0.37)"),),
)

#: ``--preset paper`` (seed 000): the human techniques file was made with GPT-4 as the detector.
PAPER = PresetEntry(
    judge=GPT4_DETECTOR, options={"detector": "llm"}, protocol="neocoder-direct",
    needs=(judge_need(GPT4_DETECTOR), data_need(
        "data", "the NeoCoder data (the paper's 199 problems)",
        "run `creval data fetch neocoder` and pass --data data/neocoder")),
)

ANSWER_TEXT = AnswerText(not_free_text="NeoCoder answers are programs judged by their tests")


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """Divergent against convergent creativity at each state ``t``, per problem."""
    items = scores.per_item
    states = sorted(int(k.split("@")[1]) for k in items if k.startswith("divergent@")
                    and f"convergent@{k.split('@')[1]}" in items)
    return [SweepPair(f"divergent@{t}", f"divergent creativity at t={t}", f"convergent@{t}",
                      f"convergent creativity at t={t}", list(items[f"divergent@{t}"]),
                      list(items[f"convergent@{t}"])) for t in states]


SWEEP = SweepPairing(sweep_pairs)


def items_behind(measure: str, scores: Scores) -> Items | None:
    """The scored (problem, state) pairs."""
    if not any("problem" in row for row in scores.table):
        return None
    valid = sum("problem" in row for row in scores.table)
    return Items(valid, scores.units.finished, scores.units.total, "scored (problem, state) pairs")
