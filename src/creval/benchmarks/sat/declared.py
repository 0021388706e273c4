"""What SAT declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import TTCT
from creval.records.declarations import (
    BatteryMember,
    Measure,
    PresetEntry,
    Separation,
    hub_model_need,
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
