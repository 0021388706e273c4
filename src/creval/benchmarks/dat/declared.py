"""What DAT declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

import os
from typing import Any

from creval.benchmarks.families import TTCT
from creval.records.declarations import (
    BatteryMember,
    Measure,
    PresetEntry,
    Separation,
    file_need,
    hub_model_need,
)


def dat_units(options: dict[str, Any]) -> str:
    """The scale of DAT's score under ``options``: ``x100`` (Olson) or ``0-1`` (all-valid).

    >>> dat_units({"lang": "ja", "variant": "auto"}), dat_units({}), dat_units({"variant": "all-valid"})
    ('0-1', 'x100', '0-1')
    """
    variant = options.get("variant", "auto")
    if variant == "auto":
        variant = "all-valid" if options.get("lang", "en") == "ja" else "olson"
    return "0-1" if variant == "all-valid" else "x100"


BATTERY = BatteryMember(
    TTCT, 2,
    (Measure("dat_mean", "divergent", "DAT score"),),
    {"smoke": dict(trials=30), "standard": dict(trials=100), "paper": dict(trials=100)},
    takes_lang=True,
    separations=(
        Separation("dat_mean", 1.8, 1.3,
                   "seed 004 Table 6 on the x100 scale of the Olson variant: per-trial sd 1.4-1.8; "
                   "calm3-22b 51.4 vs GPT-4o 52.7", units="x100"),
        Separation("dat_mean", 0.018, 0.013,
                   "seed 004 Table 6 as printed (0-1, the all-valid variant): per-trial sd "
                   "0.014-0.018; calm3-22b 0.514 vs GPT-4o 0.527", units="0-1"),
    ),
    units=dat_units,
)

#: Environment variables naming local copies of the files the English DAT paper used.
GLOVE_840B_ENV = "CREVAL_GLOVE_840B"
OLSON_WORDS_ENV = "CREVAL_OLSON_WORDS"
GLUCOSE = "pkshatech/GLuCoSE-base-ja-v2"


def paper_preset(lang: str) -> PresetEntry:
    """``--preset paper``: the Japanese paper's embedder, or the English paper's GloVe 840B
    and Olson's word list (local files named by the environment)."""
    if lang == "ja":
        return PresetEntry(options={"embedder": f"st:{GLUCOSE}"}, needs=(hub_model_need(GLUCOSE),),
                           protocol="dat-ja")
    return PresetEntry(
        options={"vectors": f"glove:{os.environ.get(GLOVE_840B_ENV, '')}",
                 "dictionary": os.environ.get(OLSON_WORDS_ENV, "")},
        needs=(file_need(GLOVE_840B_ENV, "GloVe 840B 300d (glove.840B.300d.txt)"),
               file_need(OLSON_WORDS_ENV, "Olson et al.'s words.txt")),
    )
