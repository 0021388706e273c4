"""What the rubric benchmarks (TTCT, JCQ) declare about themselves for the product
(:mod:`creval.records.declarations`)."""

from __future__ import annotations

from typing import Any

from creval.benchmarks.families import TTCT
from creval.records.declarations import (
    GPT4O,
    BatteryMember,
    Measure,
    PresetEntry,
    Separation,
    judge_need,
)

MEASURES = (Measure("mean", "convergent", "TTCT rubric mean (1-5)", judged=True),
            Measure("originality", "divergent", "TTCT rubric originality (1-5)", judged=True))
_SIZES: dict[str, dict[str, Any]] = {"smoke": dict(limit=7, answers=1, max_tokens=200),
                                     "standard": dict(limit=140, answers=5),
                                     "paper": dict(answers=5)}

TTCT_BATTERY = BatteryMember(TTCT, 0, MEASURES, _SIZES, lang="en")
JCQ_BATTERY = BatteryMember(
    TTCT, 1, MEASURES, {**_SIZES, "paper": dict(questions="upstream", answers=5)}, lang="ja",
    separations=(Separation(
        "mean", 0.6, 0.12,
        "seed 004 Table 3: calm3-22b 3.76 vs GPT-4o 3.64; sd of one answer's mean of "
        "four 1-5 scores about 0.6. Bootstrap intervals over GPT-4o's released "
        "judgements separate every adjacent pair of Table 3 that 700 questions "
        "separate at 105 questions (bench/profile_sizes.py); standard asks 140"),),
)

#: ``--preset paper`` (seed 004): the public JCQ questions (downloaded once into the cache),
#: judged by GPT-4o's snapshot behind the released judgements.
JCQ_PAPER = PresetEntry(judge=GPT4O, options={"questions": "upstream"}, needs=(judge_need(GPT4O),),
                        protocol="jcq-paper")
TTCT_PAPER = PresetEntry(judge="openai:gpt-4o", needs=(judge_need("openai:gpt-4o"),))
