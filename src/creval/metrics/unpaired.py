"""Unpaired comparison of two groups' means: independent values, no item shared.

When the values of the two groups are exchangeable trials (DAT: every trial answers the same
single prompt, so trial 3 of one model has no partner in another model's trial 3), nothing
pairs them up, and the comparison is the two-sample one on ``d = mean(a) - mean(b)``:

* :func:`unpaired_difference`: ``d`` with Welch's t interval under Hall's skewness
  correction (:func:`creval.metrics.intervals.difference_intervals`), from
  :data:`UNPAIRED_MIN_ITEMS` values on each side; below, ``d`` and the reason, no interval.
  The two-sample percentile bootstrap it used before covered a nominal 95% only 53-62% of
  the time at 2 values a side, 70-84% at 5, 86-90% at 10 and 90.5% at 30 on exponential
  against beta(2, 5) data (simulated, ``tests/metrics/test_interval_coverage.py``); this
  interval covers at least 93% from 30 on the same data.
* :func:`permutation_p`: the two-sided permutation test of "both groups come from one
  distribution" (Fisher 1935; Good 2005, ch. 3) with the difference in means as statistic:
  the share of the ways to split the pooled values into groups of the same sizes whose
  ``|d|`` is at least the observed one; enumerated exactly when there are at most
  ``exact_max`` splits, else estimated from ``resamples`` seeded random splits as
  ``(1 + hits) / (1 + resamples)`` (Phipson and Smyth 2010: never 0).

Several comparisons of one report are corrected together with Holm's step-down method
(:func:`creval.metrics.paired.holm`). Units: those of the values.

>>> a, b = [3.0, 4.0, 5.0], [1.0, 2.0]
>>> r = unpaired_difference(a, b)
>>> r.n_a, r.n_b, r.difference, r.low, r.reason
(3, 2, 2.5, None, 'n=2: too few items for an interval (needs 30)')
>>> permutation_p(a, b)  # 10 splits; only {3,4,5}|{1,2} and {1,2,3}|{4,5} reach |d| 2.5
0.2
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from creval.metrics._validate import finite_numbers
from creval.metrics.intervals import difference_intervals, too_few

__all__ = ["UNPAIRED_MIN_ITEMS", "UnpairedDifference", "permutation_p", "unpaired_difference"]

#: The fewest values on each side :func:`unpaired_difference` gives an interval from (as
#: :data:`creval.metrics.curves.DIFFERENCE_MIN_ITEMS`, the same interval).
UNPAIRED_MIN_ITEMS = 30


@dataclass(frozen=True)
class UnpairedDifference:
    """``mean(a) - mean(b)`` over independent groups, and its interval (None, with the
    ``reason``, where the groups cannot support one)."""

    n_a: int
    n_b: int
    difference: float
    low: float | None
    high: float | None
    confidence: float
    reason: str | None = None


def _values(values: Any, name: str) -> list[float]:
    out = finite_numbers(values, name)
    if not out:
        raise ValueError(f"{name} is empty: an unpaired comparison needs at least one value "
                         "in each group.")
    return out


def _positive_int(value: int, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return value


def unpaired_difference(
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95,
    min_items: int = UNPAIRED_MIN_ITEMS,
) -> UnpairedDifference:
    """``mean(a) - mean(b)`` with Welch's t interval under Hall's skewness correction, from
    ``min_items`` values on each side; when neither group varies, no interval either.

    >>> unpaired_difference([2.0] * 30, [1.0] * 40).reason
    'neither group varies: nothing varied, no interval'
    >>> r = unpaired_difference([float(i % 5) for i in range(30)], [float(i % 3) for i in range(30)])
    >>> r.difference, round(r.low, 3), round(r.high, 3)
    (1.0, 0.39, 1.61)
    """
    import numpy as np

    xs, ys = np.asarray(_values(a, "a")), np.asarray(_values(b, "b"))
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    _positive_int(min_items, "min_items", minimum=2)
    difference = float(xs.mean() - ys.mean())
    n = min(len(xs), len(ys))
    if n < min_items:
        return UnpairedDifference(len(xs), len(ys), difference, None, None, confidence,
                                  too_few(n, min_items))
    if np.ptp(xs) == 0 and np.ptp(ys) == 0:
        return UnpairedDifference(len(xs), len(ys), difference, None, None, confidence,
                                  "neither group varies: nothing varied, no interval")
    _, low, high = difference_intervals(xs[None, :], ys[None, :], confidence=confidence)
    return UnpairedDifference(len(xs), len(ys), difference, float(low[0]), float(high[0]),
                              confidence)


def permutation_p(
    a: Sequence[float], b: Sequence[float], *, exact_max: int = 20000, resamples: int = 10000,
    seed: int = 0,
) -> float:
    """Two-sided p-value of the permutation test of ``mean(a) = mean(b)`` (independent groups).

    Exact (every split of the pooled values into groups of ``len(a)`` and ``len(b)``) when
    there are at most ``exact_max`` splits, else Monte Carlo with ``resamples`` seeded
    random splits. Equal values everywhere give 1.

    >>> permutation_p([1.0, 1.0], [1.0, 1.0, 1.0])
    1.0
    >>> permutation_p([5.0], [1.0, 2.0, 3.0])  # 4 splits; only the observed one reaches |d| 3
    0.25
    """
    import numpy as np

    xs, ys = _values(a, "a"), _values(b, "b")
    _positive_int(exact_max, "exact_max")
    _positive_int(resamples, "resamples")
    _positive_int(seed, "seed", minimum=0)
    pooled = np.asarray(xs + ys)
    n, k = len(pooled), min(len(xs), len(ys))  # the smaller group is drawn; the rest is the other
    total = float(pooled.sum())
    observed = abs(sum(xs) / len(xs) - sum(ys) / len(ys))
    # a split's difference equal to the observed one up to rounding counts as reaching it
    tol = 1e-9 * max(1.0, float(np.abs(pooled).max()))

    def gaps(sums: np.ndarray) -> np.ndarray:  # |mean(small) - mean(rest)| from the small sums
        return np.abs(sums / k - (total - sums) / (n - k))

    if math.comb(n, k) <= exact_max:
        from itertools import combinations

        sums = np.fromiter((pooled[list(c)].sum() for c in combinations(range(n), k)), float)
        return float(np.mean(gaps(sums) >= observed - tol))
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, resamples, 1000):  # bounded memory: 1,000 splits at a time
        picks = _subsets(rng, n, k, min(1000, resamples - start))
        hits += int(np.sum(gaps(pooled[picks].sum(axis=1)) >= observed - tol))
    return (1 + hits) / (1 + resamples)


def _subsets(rng: Any, n: int, k: int, size: int) -> Any:
    """``size`` uniform random ``k``-subsets of ``range(n)``, one per row.

    A small group among many (``k * k <= 2 n``) is drawn with replacement and the rows with
    a repeated index drawn again (given distinct indices, every ordered draw is equally
    likely: a uniform subset); else the ``k`` smallest of ``n`` random keys per row.
    """
    import numpy as np

    if k * k > 2 * n:
        return np.argpartition(rng.random((size, n)), k - 1, axis=1)[:, :k]
    picks = rng.integers(0, n, size=(size, k))
    while True:
        ordered = np.sort(picks, axis=1)
        repeated = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not repeated.any():
            return picks
        picks[repeated] = rng.integers(0, n, size=(int(repeated.sum()), k))
