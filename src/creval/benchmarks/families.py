"""The profile battery's families: one per seed paper, and the field's measures beyond them.

A benchmark joins one in its ``battery_member`` declaration
(:class:`creval.records.declarations.BatteryMember`); a plug-in may join one of these or
declare a family of its own (its ``rank`` orders it among them).
"""

from __future__ import annotations

from creval.records.declarations import Family

NEOCODER = Family("neocoder", "000", "NeoCoder: Denial Prompting and NeoGauge", rank=0)
OPEN_ENDED = Family("open-ended", "001",
                    "Open-ended tasks: semantic entropy and the multi-agent judge", rank=1)
METRIC_VALIDITY = Family("metric-validity", "002",
                         "Metric validity: the model as an evaluator of creativity", rank=2)
LOTBENCH = Family("lotbench", "003", "LoTbench and Oogiri: leaps of thought", rank=3)
TTCT = Family("ttct", "004", "TTCT family: rubric questions, DAT, SAT", rank=4)
BEYOND = Family("beyond", "-", "Beyond the five seed papers: the field's most used creativity "
                "measures (TTCW, AUT, NoveltyBench)", rank=5)
