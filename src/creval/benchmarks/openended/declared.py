"""What the open-ended tasks (MacGyver, HypoGen, BookMIA) declare about themselves for the
product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from creval.benchmarks.families import OPEN_ENDED
from creval.records import Record, Scores
from creval.records.declarations import (
    GPT4O,
    AnswerText,
    BatteryMember,
    Measure,
    PresetEntry,
    Separation,
    SweepPair,
    SweepPairing,
    data_need,
    hub_model_need,
    judge_need,
)

MEASURES = (Measure("multiagent_overall", "convergent", "MacGyver multi-agent judge, overall",
                    judged=True),
            Measure("semantic_entropy", "divergent", "MacGyver step-wise semantic entropy"))

MACGYVER_BATTERY = BatteryMember(
    OPEN_ENDED, 0, MEASURES,
    {"smoke": dict(limit=1, n=5, max_steps=3, judge_max_tokens=96, judges="multiagent"),
     "standard": dict(limit=160),
     "paper": dict(subset="paper300")},
    separations=(Separation("multiagent_overall", 0.35, 0.11,
                            "seed 001 Table 3: GPT-4o 0.63 vs Qwen3 32B (thinking) 0.52; mean of "
                            "three binary verdicts, sd about 0.35"),),
)
#: HypoGen and BookMIA run in the paper size only.
HYPOGEN_BATTERY = BatteryMember(OPEN_ENDED, 1, MEASURES, {"paper": dict(limit=300)},
                                in_sizes=("paper",))
BOOKMIA_BATTERY = BatteryMember(OPEN_ENDED, 2, MEASURES, {"paper": dict(limit=300)},
                                in_sizes=("paper",))

NLI = "tasksource/deberta-base-long-nli"
RETRIEVAL = "dunzhang/stella_en_1.5B_v5"

#: ``--preset paper`` (seed 001): GPT-4o (see the protocol's inferred note), the NLI and
#: retrieval models of the paper.
_PAPER = PresetEntry(
    judge=GPT4O,
    options={"entailment": f"hf:{NLI}", "judge_embedder": f"st:{RETRIEVAL}"},
    needs=(judge_need(GPT4O), hub_model_need(NLI), hub_model_need(RETRIEVAL)),
)
MACGYVER_PAPER = replace(_PAPER, protocol="macgyver-judge", needs=(*_PAPER.needs, data_need(
    "source", "MacGyver's problem_solution_pair.xlsx",
    "run `creval data fetch macgyver` and pass --source data/macgyver/problem_solution_pair.xlsx")))
HYPOGEN_PAPER = replace(_PAPER, protocol="hypogen-judge")
BOOKMIA_PAPER = replace(_PAPER, protocol="bookmia-judge")


def _rated(domain: str) -> Callable[[dict[str, Any], dict[str, Any]], tuple[str, str] | None]:
    """``(task, full solution)`` of a finished step-wise solution of ``domain``."""
    def rated(unit: dict[str, Any], output: dict[str, Any]) -> tuple[str, str] | None:
        from creval.benchmarks.openended.data import Problem

        if not (output.get("solution_steps") and "fields" in unit):
            return None
        problem = Problem(id=unit["id"], domain=domain, fields=unit["fields"])  # type: ignore[arg-type]
        return problem.judge_text(), problem.full_solution(output["solution_steps"])

    return rated


MACGYVER_ANSWER_TEXT = AnswerText(rated=_rated("macgyver"))
HYPOGEN_ANSWER_TEXT = AnswerText(rated=_rated("hypogen"))
BOOKMIA_ANSWER_TEXT = AnswerText(rated=_rated("bookmia"))


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """Semantic entropy against each judge's overall verdict, per solution."""
    items = scores.per_item
    entropy = items.get("semantic_entropy")
    if entropy is None:
        return []
    return [SweepPair("semantic_entropy", "semantic entropy", key, f"{key.removesuffix('_overall')} "
                      "judge's verdict", list(entropy), list(values))
            for key, values in items.items() if key.endswith("_overall")
            and len(values) == len(entropy)]


SWEEP = SweepPairing(sweep_pairs)
