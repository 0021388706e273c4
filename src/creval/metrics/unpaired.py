"""Unpaired comparison of two groups' means: independent values, no item shared.

When the values of the two groups are exchangeable trials (DAT: every trial answers the same
single prompt, so trial 3 of one model has no partner in another model's trial 3), nothing
pairs them up, and the comparison is the two-sample one on ``d = mean(a) - mean(b)``:

* :func:`unpaired_difference`: ``d`` with its two-sample percentile bootstrap interval: each
  resample draws ``a`` and ``b`` with replacement, independently (Efron and Tibshirani 1993,
  ch. 13 and 16), and takes the difference of the resampled means.
* :func:`permutation_p`: the two-sided permutation test of "both groups come from one
  distribution" (Fisher 1935; Good 2005, ch. 3) with the difference in means as statistic:
  the share of the ways to split the pooled values into groups of the same sizes whose
  ``|d|`` is at least the observed one; enumerated exactly when there are at most
  ``exact_max`` splits, else estimated from ``resamples`` seeded random splits as
  ``(1 + hits) / (1 + resamples)`` (Phipson and Smyth 2010: never 0).

Several comparisons of one report are corrected together with Holm's step-down method
(:func:`creval.metrics.paired.holm`). Units: those of the values.

>>> a, b = [3.0, 4.0, 5.0], [1.0, 2.0]
>>> r = unpaired_difference(a, b, seed=0)
>>> r.n_a, r.n_b, r.difference, r.low <= r.difference <= r.high
(3, 2, 2.5, True)
>>> permutation_p(a, b)  # 10 splits; only {3,4,5}|{1,2} and {1,2,3}|{4,5} reach |d| 2.5
0.2
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from creval.metrics._validate import finite_numbers

__all__ = ["UnpairedDifference", "permutation_p", "unpaired_difference"]


@dataclass(frozen=True)
class UnpairedDifference:
    """``mean(a) - mean(b)`` over independent groups, and its bootstrap interval."""

    n_a: int
    n_b: int
    difference: float
    low: float
    high: float
    confidence: float
    resamples: int


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
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
    seed: int = 0,
) -> UnpairedDifference:
    """``mean(a) - mean(b)`` with its two-sample percentile bootstrap interval.

    A group of one value (or of equal values) is not resampled into anything else: the
    interval then reflects the other group's spread only.

    >>> unpaired_difference([2.0, 2.0], [1.0])
    UnpairedDifference(n_a=2, n_b=1, difference=1.0, low=1.0, high=1.0, confidence=0.95, resamples=2000)
    """
    import numpy as np

    xs, ys = np.asarray(_values(a, "a")), np.asarray(_values(b, "b"))
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    _positive_int(resamples, "resamples")
    _positive_int(seed, "seed", minimum=0)
    difference = float(xs.mean() - ys.mean())
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples)
    for start in range(0, resamples, 500):  # bounded memory: 500 resamples of each at a time
        size = min(500, resamples - start)
        mean_a = xs[rng.integers(0, len(xs), size=(size, len(xs)))].mean(axis=1)
        mean_b = ys[rng.integers(0, len(ys), size=(size, len(ys)))].mean(axis=1)
        diffs[start:start + size] = mean_a - mean_b
    low, high = np.quantile(diffs, [(1 - confidence) / 2, (1 + confidence) / 2])
    # equal values resample to one difference up to rounding: keep the point inside
    low, high = min(float(low), difference), max(float(high), difference)
    return UnpairedDifference(len(xs), len(ys), difference, low, high, confidence, resamples)


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
