"""What SAT declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from typing import Any

from creval.benchmarks.families import TTCT
from creval.records import Record, Scores
from creval.records.declarations import (
    AnswerText,
    BatteryMember,
    Measure,
    PresetEntry,
    Separation,
    SweepPair,
    SweepPairing,
    hub_model_need,
    unrounded,
)

BATTERY = BatteryMember(
    TTCT, 3,
    (Measure("sat_mean", "divergent", "SAT: distance of rewrite from original"),),
    {"smoke": dict(limit=10), "standard": dict(), "paper": dict()},
    takes_lang=True,
    separations=(Separation("sat_mean", 0.15, 0.053,
                            "seed 004 Table 7: Claude 3.5 Sonnet 0.579 vs GPT-4o 0.526; per-story "
                            "sd about 0.15 in creval's runs"),),
)

SIMCSE_JA = "pkshatech/simcse-ja-bert-base-clcmlp"


def paper_preset(lang: str) -> PresetEntry:
    """``--preset paper``: the Japanese paper's embedder; the paper has no English SAT, so
    creval's default stands."""
    if lang == "ja":
        return PresetEntry(options={"embedder": f"st:{SIMCSE_JA}"},
                           needs=(hub_model_need(SIMCSE_JA),), protocol="sat-ja")
    return PresetEntry()


def _embedder(options: dict[str, Any]) -> str:
    from creval.benchmarks.sat import DEFAULT_EMBEDDER

    return str(options.get("embedder") or DEFAULT_EMBEDDER[options.get("lang", "en")])


ANSWER_TEXT = AnswerText(
    homogeneity=True, embedder=_embedder,
    notes=("SAT has one rewrite per model and story: there is no within-model similarity.",),
)


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """The distance of the rewrite from the original against the complete-rewrite rate
    (rewrites not empty and ended on their own, not cut at ``--max-tokens``): SAT has no
    judge, so its quality side is validity."""
    exact = unrounded(scores.table, "distance", list(scores.per_item.get("sat_mean", [])))
    distance = {str(r.get("id")): d for r, d in zip(scores.table, exact, strict=True)}
    divergent: list[float | None] = []
    quality: list[float | None] = []
    for record in records:
        if record.status != "ok":
            continue
        story = str(record.unit.get("id", ""))
        text = str(record.output.get("text", "")).strip()
        divergent.append(distance.get(story) if text else None)
        quality.append(1.0 if text and record.output.get("finish_reason") == "stop" else 0.0)
    return [SweepPair("sat_mean", "SAT distance of the rewrite", "complete_rate",
                      "complete-rewrite rate", divergent, quality)]


SWEEP = SweepPairing(sweep_pairs)
