"""Pure metric functions over plain data: no I/O, no models.

Functions named like their module (``neogauge``, ``partition``, ``semantic_entropy``) are
imported from the module (``from creval.metrics.partition import partition``), so that the
module names stay importable from this package.

>>> from creval.metrics import mean_pairwise_cosine_distance
>>> mean_pairwise_cosine_distance([[1.0, 0.0], [0.0, 1.0]])
1.0
"""

from creval.metrics.agreement import cohen_kappa, majority_accuracy, majority_vote, rank_agreement
from creval.metrics.bootstrap import BootstrapCI, bootstrap_mean_ci
from creval.metrics.creativity_index import (
    CreativityIndex,
    l_uniqueness,
    spans_from_match_ends,
)
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
from creval.metrics.diversity import (
    distinct_n,
    mean_pairwise_cosine_similarity,
    self_bleu,
    sentence_bleu,
)
from creval.metrics.lotbench import (
    creativity_score,
    game_score,
    human_groups,
    round_histogram,
    sample_scores,
)
from creval.metrics.neogauge import (
    constraint_following_rate,
    convergent_creativity,
    cumulative_neogauge,
    divergent_creativity,
    human_convergent_creativity,
    human_divergent_creativity,
    neogauge_state,
    pass_at_1,
    pass_at_k,
)
from creval.metrics.partition import Partition
from creval.metrics.perplexity import corpus_perplexity
from creval.metrics.ranking import (
    ChoiceAccuracy,
    choice_accuracy,
    ndcg,
    random_choice_accuracy,
    random_ndcg,
    random_top1,
    top1,
)
from creval.metrics.rubric_agg import JCQ_TASKS, RUBRIC_CRITERIA, aggregate_rubric
from creval.metrics.semantic_entropy import (
    aggregate_steps,
    discrete_semantic_entropy,
    rao_blackwell_entropy,
    solution_semantic_entropy,
)
from creval.metrics.separation import (
    auroc,
    best_threshold,
    bootstrap_ci,
    cohens_d,
    overlap,
    threshold_metrics,
)
from creval.metrics.stats import Correlation, correlation_table, kendall, pearson, spearman
from creval.metrics.templates import (
    mine_templates,
    pos_compression_ratio,
    template_counts,
    template_rate,
    templates_per_token,
)

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
    "kendall",
    "pearson",
    "spearman",
    # Open-ended creativity (seed 001): clustering, semantic entropy, diversity, agreement.
    "Partition",
    "aggregate_steps",
    "cohen_kappa",
    "discrete_semantic_entropy",
    "distinct_n",
    "majority_accuracy",
    "majority_vote",
    "mean_pairwise_cosine_similarity",
    "rank_agreement",
    "rao_blackwell_entropy",
    "self_bleu",
    "sentence_bleu",
    "solution_semantic_entropy",
    # NeoCoder (seed 000).
    "constraint_following_rate",
    "convergent_creativity",
    "cumulative_neogauge",
    "divergent_creativity",
    "human_convergent_creativity",
    "human_divergent_creativity",
    "neogauge_state",
    "pass_at_1",
    "pass_at_k",
    # Metric validity (seed 002): Creativity Index, perplexity, templates, separation.
    "CreativityIndex",
    "auroc",
    "best_threshold",
    "bootstrap_ci",
    "cohens_d",
    "corpus_perplexity",
    "l_uniqueness",
    "mine_templates",
    "overlap",
    "pos_compression_ratio",
    "spans_from_match_ends",
    "template_counts",
    "template_rate",
    "templates_per_token",
    "threshold_metrics",
    # Oogiri and LoTbench (seed 003): choice and ranking questions, S_c, bootstrap.
    "BootstrapCI",
    "ChoiceAccuracy",
    "bootstrap_mean_ci",
    "choice_accuracy",
    "creativity_score",
    "game_score",
    "human_groups",
    "ndcg",
    "random_choice_accuracy",
    "random_ndcg",
    "random_top1",
    "round_histogram",
    "sample_scores",
    "top1",
]
