"""Paired comparison of two sets of per-item values measured on the same items.

Given ``a[i]`` and ``b[i]`` for the same item ``i`` (one model's and another's score on the
same question), everything here works on the differences ``d[i] = a[i] - b[i]``:

* :func:`paired_difference`: the mean difference with its interval over items (the t
  interval with Hall's skewness correction of :func:`creval.metrics.intervals.mean_interval`,
  whose coverage is simulated; none below its minimum number of pairs, or when every
  difference is the same), and the standard deviation of the differences.
* :func:`sign_flip_p`: the paired permutation test (Fisher 1935; Good 2005, ch. 3): under
  "no difference" each ``d[i]`` is as likely to have the other sign, so the p-value is the
  share of the ``2**n`` sign assignments whose ``|mean|`` is at least the observed one:
  enumerated exactly for ``n <= exact_max``, else estimated from ``resamples`` seeded random
  flips as ``(1 + hits) / (1 + resamples)`` (Phipson and Smyth 2010: never 0).
* :func:`holm`: Holm's (1979) step-down adjustment of several p-values (one report's
  comparisons), controlling the family-wise error rate.
* :func:`min_detectable_difference`: the smallest true mean difference a two-sided paired
  t-test at ``alpha`` would detect with ``power`` (default 80%), from the differences'
  standard deviation and ``n``: the noncentral t power, solved for the effect size.

Units: those of the values (a difference of rubric means is in rubric points, of pass rates
a fraction). All differences are ``a - b``.

>>> a, b = [3.0, 4.0, 3.5, 4.5], [2.5, 3.0, 3.5, 4.0]
>>> r = paired_difference(a, b)
>>> r.n, r.difference, r.low, r.reason
(4, 0.5, None, 'n=4: too few pairs for an interval (needs 10)')
>>> sign_flip_p(a, b)  # d = 0.5, 1, 0, 0.5: 4 of 16 sign flips reach |mean| 0.5
0.25
>>> holm([0.01, 0.04, 0.03])
[0.03, 0.06, 0.06]
>>> round(min_detectable_difference(sd=1.0, n=100), 3)  # about 2.8 sd / sqrt(n)
0.283
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from creval.metrics._validate import finite_numbers
from creval.metrics.intervals import MIN_ITEMS, mean_interval

__all__ = [
    "PairedDifference",
    "holm",
    "min_detectable_difference",
    "paired_difference",
    "sign_flip_p",
]


@dataclass(frozen=True)
class PairedDifference:
    """The mean of ``a - b`` over ``n`` pairs, its interval and the differences' sd (no
    interval, ``low`` and ``high`` None, when ``reason`` says why)."""

    n: int
    difference: float
    low: float | None
    high: float | None
    #: Sample standard deviation of the differences (ddof 1; 0 for one pair).
    sd: float
    confidence: float
    reason: str | None = None


def _differences(a: Sequence[float], b: Sequence[float]) -> list[float]:
    xs, ys = finite_numbers(a, "a"), finite_numbers(b, "b")
    if len(xs) != len(ys):
        raise ValueError(f"a and b must pair up item by item: {len(xs)} values in a, {len(ys)} in b.")
    if not xs:
        raise ValueError("a and b are empty: a paired comparison needs at least one item.")
    return [x - y for x, y in zip(xs, ys, strict=True)]


def _positive_int(value: int, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return value


def paired_difference(
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95,
    min_items: int = MIN_ITEMS,
) -> PairedDifference:
    """The mean of ``a[i] - b[i]`` with its interval over items (pairs stay together).

    >>> paired_difference([1.0, 1.0], [1.0, 1.0])
    PairedDifference(n=2, difference=0.0, low=None, high=None, sd=0.0, confidence=0.95, reason='n=2: too few pairs for an interval (needs 10)')
    >>> r = paired_difference([float(i % 3) for i in range(12)], [0.0] * 12)
    >>> r.difference, round(r.low, 3), round(r.high, 3)
    (1.0, 0.458, 1.542)
    """
    d = _differences(a, b)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    ci = mean_interval(d, confidence=confidence, min_items=min_items)
    reason = None if ci.reason is None else ci.reason.replace(" items ", " pairs ").replace(
        " values ", " differences ")
    mean = sum(d) / len(d)
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (len(d) - 1)) if len(d) > 1 else 0.0
    return PairedDifference(len(d), ci.mean, ci.low, ci.high, sd, confidence, reason)


def sign_flip_p(
    a: Sequence[float], b: Sequence[float], *, exact_max: int = 16, resamples: int = 10000,
    seed: int = 0,
) -> float:
    """Two-sided p-value of the paired sign-flip permutation test of ``mean(a - b) = 0``.

    Exact (all ``2**n`` sign assignments) when ``n <= exact_max``, else Monte Carlo with
    ``resamples`` seeded flips, except when Hoeffding's inequality already bounds the exact
    p-value below ``1 / (resamples + 1)``, the smallest the flips could give: then that bound
    (at least the exact p-value) is returned. Equal values everywhere give 1.

    >>> sign_flip_p([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    1.0
    >>> sign_flip_p([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])  # only all-plus and all-minus reach 1
    0.25
    """
    import numpy as np

    d = np.asarray(_differences(a, b))
    _positive_int(exact_max, "exact_max", minimum=0)
    _positive_int(resamples, "resamples")
    if exact_max > 24:
        raise ValueError(f"exact_max must be at most 24 (2**n sign assignments), got {exact_max}.")
    n = len(d)
    observed = abs(d.mean())
    # a flipped mean equal to the observed one up to rounding counts as reaching it
    tol = 1e-12 * max(1.0, float(np.abs(d).max()))
    if n <= exact_max:  # every sign assignment, as the rows of a 2**n x n matrix
        codes = np.arange(2**n, dtype=np.int64)[:, None]
        signs = 1.0 - 2.0 * ((codes >> np.arange(n)) & 1)
        means = np.abs(signs @ d) / n
        return float(np.mean(means >= observed - tol))
    if not d.any():
        return 1.0  # every flip gives 0, which reaches the observed 0
    # Hoeffding: P(|sum s_i d_i| >= t) <= 2 exp(-t^2 / (2 sum d_i^2)) bounds the exact p; when
    # it is below what the random flips could resolve, it is the (conservative) answer
    bound = 2.0 * math.exp(-((n * observed - n * tol) ** 2) / (2.0 * float(np.sum(d * d))))
    if bound < 1.0 / (1 + resamples):
        return bound
    rng = np.random.default_rng(seed)
    total, hits = float(d.sum()), 0
    for start in range(0, resamples, 2000):  # bounded memory: 2,000 x n signs at a time
        size = min(2000, resamples - start)
        # one random bit per item (unpacked from random bytes): a set bit flips its sign
        bits = np.unpackbits(rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8),
                             axis=1, count=n)
        flipped = total - 2.0 * (bits.astype(np.float64) @ d)
        hits += int(np.sum(np.abs(flipped) / n >= observed - tol))
    return (1 + hits) / (1 + resamples)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (each at most 1).

    Sorted ascending, the ``k``-th smallest (from 0) becomes ``max_{j <= k} (m - j) p_(j)``.

    >>> holm([0.5]), holm([])
    ([0.5], [])
    """
    ps = finite_numbers(pvalues, "pvalues")
    for i, p in enumerate(ps):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"pvalues[{i}] must be a probability in [0, 1], got {p!r}.")
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def min_detectable_difference(*, sd: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true mean difference a two-sided paired t-test at ``alpha`` detects with
    probability ``power``, for differences of standard deviation ``sd`` over ``n`` pairs.

    Solves ``P(|T| > t_{1-alpha/2, n-1}) = power`` for ``T`` noncentral t with ``n - 1``
    degrees of freedom and noncentrality ``delta sqrt(n) / sd``; returns ``delta``
    (``inf`` for ``n < 2``: one pair has no spread to test against; 0 when ``sd`` is 0).

    >>> min_detectable_difference(sd=0.0, n=10), min_detectable_difference(sd=1.0, n=1)
    (0.0, inf)
    """
    if isinstance(sd, bool) or not isinstance(sd, (int, float)) or not math.isfinite(sd) or sd < 0:
        raise ValueError(f"sd must be a finite number >= 0, got {sd!r}.")
    _positive_int(n, "n")
    for name, value in (("alpha", alpha), ("power", power)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name} must be strictly between 0 and 1, got {value!r}.")
    if n < 2:
        return math.inf
    if sd == 0:
        return 0.0
    return _effect_size(n, alpha, power) * float(sd)


@lru_cache(maxsize=256)
def _effect_size(n: int, alpha: float, power: float) -> float:
    """The detectable mean difference in sd units (Cohen's d_z) of ``n`` pairs."""
    from scipy import optimize, stats

    df = n - 1
    crit = float(stats.t.ppf(1 - alpha / 2, df))

    def shortfall(effect: float) -> float:  # effect in sd units (Cohen's d_z)
        nc = effect * math.sqrt(n)
        # P(T > crit) + P(T < -crit); scipy gives NaN for a far tail, whose mass is ~0
        tails = [float(stats.nct.sf(crit, df, nc)), float(stats.nct.sf(crit, df, -nc))]
        return sum(0.0 if math.isnan(t) else t for t in tails) - power

    if shortfall(0.0) >= 0:  # alpha >= power: any difference is "detected"
        return 0.0
    high = 1.0
    while shortfall(high) < 0:
        high *= 2
    return float(optimize.brentq(shortfall, 0.0, high, xtol=1e-12))
