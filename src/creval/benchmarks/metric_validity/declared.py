"""What metric-validity declares about itself for the product (:mod:`creval.records.declarations`)."""

from __future__ import annotations

from creval.benchmarks.families import METRIC_VALIDITY
from creval.records.declarations import BatteryMember, Measure

BATTERY = BatteryMember(
    METRIC_VALIDITY, 0,
    (Measure("ppl_auroc", "evaluator", "perplexity under the model tells creative texts (AUROC)"),
     Measure("ci_mean_auroc", "evaluator", "Creativity Index tells creative texts (AUROC)")),
    {"smoke": dict(limit=20), "standard": dict(limit=200), "paper": dict()},
)
