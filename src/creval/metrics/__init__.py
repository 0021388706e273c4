"""Pure metric functions over plain data: no I/O, no models.

>>> from creval.metrics import mean_pairwise_cosine_distance
>>> mean_pairwise_cosine_distance([[1.0, 0.0], [0.0, 1.0]])
1.0
"""

from creval.metrics.dat import (
    DATResult,
    DATSummary,
    InvalidWord,
    dat_all_valid,
    dat_olson,
    olson_candidates,
    olson_clean,
    olson_validate,
    summarize_dat,
)
from creval.metrics.distance import (
    cosine_distance,
    mean_pairwise_cosine_distance,
    paired_cosine_distances,
    pairwise_cosine_distances,
)
from creval.metrics.rubric_agg import JCQ_TASKS, RUBRIC_CRITERIA, aggregate_rubric
from creval.metrics.stats import Correlation, correlation_table, pearson, spearman

__all__ = [
    "DATResult",
    "DATSummary",
    "InvalidWord",
    "cosine_distance",
    "dat_all_valid",
    "dat_olson",
    "mean_pairwise_cosine_distance",
    "olson_candidates",
    "olson_clean",
    "olson_validate",
    "paired_cosine_distances",
    "pairwise_cosine_distances",
    "summarize_dat",
    # Rubric aggregation (JCQ/TTCT) and cross-model correlations.
    "JCQ_TASKS",
    "RUBRIC_CRITERIA",
    "Correlation",
    "aggregate_rubric",
    "correlation_table",
    "pearson",
    "spearman",
]
