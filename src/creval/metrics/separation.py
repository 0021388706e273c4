"""How well one score separates two labelled sets (seed 002: creative vs uncreative).

``pos`` holds the scores of the creative set, ``neg`` those of the uncreative set; higher
is taken to mean "more creative" (negate a metric whose direction is lower-is-creative
before calling).

- :func:`auroc`: the probability that a random creative text outscores a random uncreative
  one, ties counting one half (Mann-Whitney U / (n_pos * n_neg)). 0.5 = no separation.
- :func:`threshold_metrics`: accuracy, precision, recall and F1 when "score >= threshold"
  predicts creative; :func:`best_threshold` picks the threshold with the best accuracy
  (ties: the lower threshold).
- :func:`cohens_d`: difference of means over the pooled standard deviation;
  :func:`bootstrap_ci`: a percentile bootstrap interval for it (resampling each set;
  :mod:`creval.metrics.separation_ci` has the intervals with honest coverage at few texts).
- :func:`overlap`: the overlapping coefficient of two normal distributions with that
  ``d``, ``2 * Phi(-|d| / 2)`` (1 = identical, 0 = disjoint).

>>> auroc([3, 4], [1, 3])  # pairs: 3>1, 3=3 (half), 4>1, 4>3 -> 3.5 of 4
0.875
>>> round(cohens_d([2, 4], [0, 2]), 4)  # means 3 and 1, pooled sd sqrt(2)
1.4142
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from creval.metrics._validate import finite_numbers

__all__ = [
    "ThresholdResult",
    "auroc",
    "best_threshold",
    "bootstrap_ci",
    "cohens_d",
    "overlap",
    "threshold_metrics",
]


def _scores(values: Sequence[float], name: str, *, minimum: int = 1) -> list[float]:
    out = finite_numbers(values, name)
    if len(out) < minimum:
        raise ValueError(f"{name} needs at least {minimum} score(s), got {len(out)}.")
    return out


def auroc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """Area under the ROC curve of "creative" (``pos``) against "uncreative" (``neg``)."""
    p, n = _scores(pos, "pos"), _scores(neg, "neg")
    wins = sum((a > b) + 0.5 * (a == b) for a in p for b in n)
    return wins / (len(p) * len(n))


@dataclass(frozen=True)
class ThresholdResult:
    threshold: float
    accuracy: float
    precision: float | None
    recall: float
    f1: float


def threshold_metrics(pos: Sequence[float], neg: Sequence[float], threshold: float) -> ThresholdResult:
    """Classification results of "score >= threshold means creative".

    Precision is None when nothing is predicted creative.

    >>> r = threshold_metrics([3, 4], [1, 3], 3)  # predicted creative: 3, 4 | 3
    >>> r.accuracy, r.precision, r.recall, round(r.f1, 4)
    (0.75, 0.6666666666666666, 1.0, 0.8)
    """
    p, n = _scores(pos, "pos"), _scores(neg, "neg")
    tp = sum(v >= threshold for v in p)
    fp = sum(v >= threshold for v in n)
    tn = len(n) - fp
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / len(p)
    f1 = 2 * tp / (2 * tp + fp + (len(p) - tp))
    return ThresholdResult(threshold, (tp + tn) / (len(p) + len(n)), precision, recall, f1)


def best_threshold(pos: Sequence[float], neg: Sequence[float]) -> ThresholdResult:
    """The threshold among the observed scores (and +inf) with the best accuracy.

    >>> best_threshold([3, 4], [1, 2]).threshold, best_threshold([3, 4], [1, 2]).accuracy
    (3.0, 1.0)
    """
    candidates = sorted(set(_scores(pos, "pos")) | set(_scores(neg, "neg"))) + [math.inf]
    results = [threshold_metrics(pos, neg, t) for t in candidates]
    return max(results, key=lambda r: (r.accuracy, -r.threshold))


def cohens_d(pos: Sequence[float], neg: Sequence[float]) -> float:
    """(mean(pos) - mean(neg)) / pooled standard deviation (n - 1 denominators).

    Raises ``ValueError`` when both sets are constant (the pooled deviation is 0).
    """
    p, n = _scores(pos, "pos", minimum=2), _scores(neg, "neg", minimum=2)
    pooled = ((len(p) - 1) * statistics.variance(p) + (len(n) - 1) * statistics.variance(n)) / (
        len(p) + len(n) - 2
    )
    if pooled == 0:
        raise ValueError("Both sets are constant: Cohen's d is undefined.")
    return (statistics.fmean(p) - statistics.fmean(n)) / math.sqrt(pooled)


def _auroc_rows(pos: Any, neg: Any) -> Any:
    """:func:`auroc` of each row (numpy arrays, texts on the last axis), from the ranks."""
    from scipy.stats import rankdata

    n1, n2 = pos.shape[-1], neg.shape[-1]
    ranks = rankdata(np.concatenate([pos, neg], axis=-1), axis=-1)
    return (ranks[..., :n1].sum(axis=-1) - n1 * (n1 + 1) / 2) / (n1 * n2)


def _cohens_d_rows(pos: Any, neg: Any) -> Any:
    """:func:`cohens_d` of each row; NaN where both sets are constant."""
    n1, n2 = pos.shape[-1], neg.shape[-1]
    pooled = ((n1 - 1) * pos.var(axis=-1, ddof=1) + (n2 - 1) * neg.var(axis=-1, ddof=1)) / (n1 + n2 - 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pooled > 0, (pos.mean(axis=-1) - neg.mean(axis=-1)) / np.sqrt(pooled), np.nan)


def _rows(statistic: Callable[[Sequence[float], Sequence[float]], float], pos: Any, neg: Any) -> Any:
    """``statistic`` of each resample: vectorised for :func:`auroc` and :func:`cohens_d`, one
    call per resample otherwise (NaN where it raises ``ValueError``)."""
    if statistic is auroc:
        return _auroc_rows(pos, neg)
    if statistic is cohens_d:
        return _cohens_d_rows(pos, neg)
    out = np.full(len(pos), np.nan)
    for i, (p, n) in enumerate(zip(pos.tolist(), neg.tolist(), strict=True)):
        try:
            out[i] = statistic(p, n)
        except ValueError:
            continue
    return out


def bootstrap_ci(
    pos: Sequence[float],
    neg: Sequence[float],
    statistic: Callable[[Sequence[float], Sequence[float]], float] = cohens_d,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(pos, neg)``, resampling each set.

    Resamples on which the statistic is undefined are skipped. At 5 to 30 texts a set this
    under-covers (AUROC 85-91% at 5 a set, Cohen's d 81-85% at 5 and 90-94% at 30):
    :mod:`creval.metrics.separation_ci` has the intervals creval prints.

    >>> lo, hi = bootstrap_ci([5, 6, 7, 8], [1, 2, 3, 4], n_resamples=200)
    >>> lo > 0
    True
    """
    p, n = _scores(pos, "pos", minimum=2), _scores(neg, "neg", minimum=2)
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}.")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 10:
        raise ValueError(f"n_resamples must be an integer >= 10, got {n_resamples!r}.")
    rng = np.random.default_rng(seed)
    a, b = np.asarray(p), np.asarray(n)
    values = _rows(statistic, a[rng.integers(0, len(a), (n_resamples, len(a)))],
                   b[rng.integers(0, len(b), (n_resamples, len(b)))])
    values = np.sort(values[np.isfinite(values)])
    if not len(values):
        raise ValueError("The statistic is undefined on every resample.")
    tail = (1 - confidence) / 2
    lo = values[min(len(values) - 1, int(math.floor(tail * len(values))))]
    hi = values[min(len(values) - 1, int(math.ceil((1 - tail) * len(values))) - 1)]
    return float(lo), float(hi)


def overlap(d: float) -> float:
    """Overlapping coefficient of two unit-variance normals whose means differ by ``d``.

    >>> overlap(0.0), round(overlap(2.0), 4)
    (1.0, 0.3173)
    """
    if not math.isfinite(d):
        raise ValueError(f"d must be finite, got {d!r}.")
    return math.erfc(abs(d) / (2 * math.sqrt(2)))
