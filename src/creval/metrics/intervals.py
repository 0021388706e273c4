"""Intervals that say how much they know: the mean of a few items, with an interval only
when the number of items supports one.

**The method.** :func:`mean_interval` is Student's t interval with Hall's (1992) skewness
correction ("On the removal of skewness by transformation", JRSS B 54: 221-228). With the
mean ``m``, the standard deviation ``s`` (ddof 1) and the sample skewness ``g`` (third
central moment over the cube of the ddof-0 sd), the studentised mean ``x = (m - mu) / s`` is
transformed by ``h(x) = ((1 + g x / 3)**3 - 1) / g + g / (6 n)``, which removes the first
(skewness) term of its Edgeworth expansion; ``sqrt(n) h(x)`` is then referred to Student's t
with ``n - 1`` degrees of freedom, and since ``h`` is increasing the interval is
``[m - s h^-1(q / sqrt(n)), m - s h^-1(-q / sqrt(n))]``, ``q`` the t quantile. With no
skewness (``g = 0``) it is exactly the t interval (:func:`scipy.stats.t.interval`).

**Why this one, and from how many items.** Simulated coverage (``tests/metrics/
test_interval_coverage.py``; the table in ``bench/README.md``) of nominal 95% intervals of a
mean on skewed (exponential, lognormal with sigma 0.5) and bounded (beta(2, 5), 0/1 with
p = 0.1, 0.3, 0.5, 1-5 Likert) data: the percentile bootstrap creval printed before covers
47-50% at n = 2, 71-84% at n = 5 and 85-90% at n = 10; the plain t interval 89-90% on
exponential data at n = 5-10 and 92.7% at n = 30; this interval at n >= 10 covers at least
93% on every one of those (exponential: 93.6% at n = 10, 94.8% at n = 30). At n = 5 no
method tried (t, percentile bootstrap, bootstrap-t, this one) stays within 2 points on both
the skewed and the Likert data, so below :data:`MIN_ITEMS` items no interval is given and
the reason says so. Counting data of 0/1 or a 1-5 scale are over-covered at small n (the
interval is wider than 95% needs): never narrower than its n allows. Heavier skew than
tested (lognormal sigma 1: skewness 6) still under-covers at n = 30 (92.6%).

Below :data:`HALL_ALONE_FROM` (15) values the sample skewness that drives the correction is
mostly noise: on discrete, nearly symmetric data (the differences of two models' 1-5
scores of the same items, ``compare --paired``) Hall's interval alone covered 90.8% at
n = 10 where the plain t interval covered 96.6%, so there the interval is the union of the
two (never narrower than either; at least 93% on every distribution tested); from 15 values
Hall's alone covers at least 93.9% on the same data.

When every value is the same, nothing varied and there is no interval either, except where
the values are a measure's items (``proportions=True``: the console, reports, leaderboards and
profiles; never a difference) and every value is 0 or 1: the mean is a proportion (0 of 15
too), and its interval is Clopper-Pearson's exact binomial interval (never below 0 or above 1, and at least 95% coverage at any n, where the
skewness correction of a rare outcome can reach past 1 at small n).

>>> r = mean_interval([0.0] * 10 + [1.0, 1.0], proportions=True)
>>> round(r.mean, 3), round(r.low, 3), round(r.high, 3)
(0.167, 0.021, 0.484)

>>> r = mean_interval([3.0, 4.0, 5.0, 4.0, 3.0, 5.0, 4.0, 4.0, 3.0, 5.0])
>>> r.n, r.mean, round(r.low, 3), round(r.high, 3), r.reason
(10, 4.0, 3.416, 4.584, None)
>>> mean_interval([77.0, 77.99])
MeanInterval(mean=77.495, low=None, high=None, n=2, confidence=0.95, reason='n=2: too few items for an interval (needs 10)')
>>> mean_interval([1.0] * 12).reason
'all 12 values are equal: nothing varied, no interval'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HALL_ALONE_FROM", "MIN_ITEMS", "MeanInterval", "describe_interval", "difference_intervals", "mean_interval",
           "mean_intervals", "too_few"]

#: The fewest values :func:`mean_interval` gives an interval from (see the module docstring).
MIN_ITEMS = 10
#: From this many values the interval is Hall's alone; below, it also holds the plain t
#: interval (see the module docstring).
HALL_ALONE_FROM = 15
METHOD = "t interval with Hall's skewness correction"
#: Below :data:`HALL_ALONE_FROM` values: the union of the plain t interval and Hall's.
UNION = "union of the t interval and the t interval with Hall's skewness correction"
#: A share of 0/1 values (``proportions=True``).
EXACT = "Clopper-Pearson exact binomial interval"


@dataclass(frozen=True)
class MeanInterval:
    """The mean of ``n`` values and its interval ``[low, high]``; both None, with the
    ``reason``, when ``n`` cannot support one."""

    mean: float
    low: float | None
    high: float | None
    n: int
    confidence: float
    reason: str | None = None
    #: How ``[low, high]`` was made (:data:`METHOD`, :data:`UNION`, :data:`EXACT`), for
    #: :func:`describe_interval`; None without an interval.
    method: str | None = field(default=None, repr=False)


def too_few(n: int, need: int, what: str = "items") -> str:
    """The sentence shown instead of an interval when ``n`` is below ``need``.

    >>> too_few(2, 10)
    'n=2: too few items for an interval (needs 10)'
    """
    return f"n={n}: too few {what} for an interval (needs {need})"


def describe_interval(r: MeanInterval) -> str:
    """How the interval of ``r`` was made, or why there is none, for a report.

    >>> describe_interval(mean_interval([0.5] * 3))
    'n=3: too few items for an interval (needs 10)'
    >>> describe_interval(mean_interval([float(i % 4) for i in range(16)]))
    "t interval with Hall's skewness correction over 16 items (95%)"
    >>> describe_interval(mean_interval([float(i % 4) for i in range(12)]))
    "union of the t interval and the t interval with Hall's skewness correction over 12 items (95%)"
    >>> describe_interval(mean_interval([0.0] * 15, proportions=True))
    'Clopper-Pearson exact binomial interval over 15 items (95%)'
    """
    if r.reason is not None:
        return r.reason
    return f"{r.method or METHOD} over {r.n} items ({r.confidence:.0%})"


def _checked(values: Sequence[float], confidence: float, min_items: int) -> list[float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError("values must be a non-empty sequence of numbers.")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"values[{i}] must be a finite number, got {v!r}.")
        out.append(float(v))
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 2:
        raise ValueError(f"min_items must be an integer >= 2, got {min_items!r}.")
    return out


def mean_intervals(rows: Any, *, confidence: float = 0.95, min_items: int = MIN_ITEMS,
                   proportions: bool = False) -> tuple[Any, Any, Any]:
    """Vectorised :func:`mean_interval` of each row of a 2-d array (every row ``n`` values):
    ``(means, lows, highs)``, NaN bounds where a row has no interval (``n < min_items`` or
    no spread). The coverage simulation calls it on thousands of rows at once. With
    ``proportions``, a row of 0/1 values is a share and gets Clopper-Pearson's interval,
    also when every value is 0 (or every one 1): 0 of 15 is ``[0, 0.218]``.

    >>> import numpy as np
    >>> m, lo, hi = mean_intervals(np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]]), min_items=3)
    >>> m.tolist(), round(float(lo[0]), 3), bool(np.isnan(lo[1]))
    ([2.0, 2.0], -0.484, True)
    """
    import numpy as np
    from scipy import stats

    x = np.asarray(rows, dtype=float)
    if x.ndim != 2 or x.shape[1] < 1:
        raise ValueError("rows must be a 2-d array with at least one value per row.")
    n = x.shape[1]
    mean = x.mean(axis=1)
    nan = np.full(x.shape[0], np.nan)
    if n < min_items:
        return mean, nan, nan.copy()
    dev = x - mean[:, None]
    squares = (dev * dev).sum(axis=1)
    spread = np.ptp(x, axis=1) > 0
    sd = np.sqrt(squares / (n - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        skew = np.where(spread, (dev**3).sum(axis=1) / n / (squares / n) ** 1.5, 0.0)
    q = float(stats.t.ppf((1 + confidence) / 2, n - 1))
    kappa = skew / math.sqrt(n)  # the skewness of the mean itself
    se = sd / math.sqrt(n)
    low = np.where(spread, mean - se * _hall_inverse(q, kappa), np.nan)
    high = np.where(spread, mean - se * _hall_inverse(-q, kappa), np.nan)
    if n < HALL_ALONE_FROM:  # the skewness of so few values is noise: never narrower than t
        low, high = np.minimum(low, mean - q * se), np.maximum(high, mean + q * se)
    # A share of 0/1 answers is a proportion: Clopper-Pearson's exact interval, within 0 and 1.
    binary = ((x == 0.0) | (x == 1.0)).all(axis=1) & proportions
    if binary.any():
        k, tail = x.sum(axis=1), (1 - confidence) / 2
        with np.errstate(invalid="ignore"):
            cp_low = np.nan_to_num(stats.beta.ppf(tail, k, n - k + 1), nan=0.0)
            cp_high = np.nan_to_num(stats.beta.ppf(1 - tail, k + 1, n - k), nan=1.0)
        low, high = np.where(binary, cp_low, low), np.where(binary, cp_high, high)
    return mean, low, high


def _hall_inverse(y: Any, kappa: Any) -> Any:
    """``T`` with ``h(T) = y`` for ``h(T) = ((1 + kappa T / 3)**3 - 1) / kappa + kappa / 6``:
    Hall's transformation of a studentised estimator ``T`` whose own skewness is ``kappa``
    (``g / sqrt(n)`` for a mean; ``h`` is the identity when ``kappa`` is 0)."""
    import numpy as np

    kappa = np.asarray(kappa, dtype=float)
    shifted = y - kappa / 6
    small = np.abs(kappa) < 1e-12
    with np.errstate(invalid="ignore", divide="ignore"):
        bent = 3.0 / np.where(small, 1.0, kappa) * (np.cbrt(1 + kappa * shifted) - 1)
    return np.where(small, shifted, bent)


def difference_intervals(a: Any, b: Any, *, confidence: float = 0.95) -> tuple[Any, Any, Any]:
    """``mean(a) - mean(b)`` of two independent samples per row, with Welch's t interval
    (Welch-Satterthwaite degrees of freedom) under Hall's skewness correction, the skewness
    of the difference being ``(m3_a / n_a**2 - m3_b / n_b**2) / se**3`` (``m3`` the third
    central moments): ``(differences, lows, highs)``, NaN where neither side varies. With no
    skewness it is exactly Welch's interval (:func:`scipy.stats.ttest_ind`).

    >>> import numpy as np
    >>> d, lo, hi = difference_intervals(np.array([[1.0, 2.0, 3.0]]), np.array([[0.0, 1.0]]))
    >>> float(d[0]), round(float(lo[0]), 3), round(float(hi[0]), 3)
    (1.5, -0.988, 3.988)
    """
    import numpy as np
    from scipy import stats

    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    na, nb = xa.shape[1], xb.shape[1]
    ma, mb = xa.mean(axis=1), xb.mean(axis=1)
    va, vb = xa.var(axis=1, ddof=1) / na, xb.var(axis=1, ddof=1) / nb
    se = np.sqrt(va + vb)
    m3a = ((xa - ma[:, None]) ** 3).mean(axis=1)
    m3b = ((xb - mb[:, None]) ** 3).mean(axis=1)
    varied = se > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
        kappa = np.where(varied, (m3a / na**2 - m3b / nb**2) / se**3, 0.0)
        q = stats.t.ppf((1 + confidence) / 2, df)
    diff = ma - mb
    low = np.where(varied, diff - se * _hall_inverse(q, kappa), np.nan)
    high = np.where(varied, diff - se * _hall_inverse(-q, kappa), np.nan)
    return diff, low, high


def mean_interval(
    values: Sequence[float], *, confidence: float = 0.95, min_items: int = MIN_ITEMS,
    proportions: bool = False,
) -> MeanInterval:
    """The mean of ``values`` with its Hall-corrected t interval, or no interval (and the
    reason) below ``min_items`` values or when all values are equal.

    >>> mean_interval([0.6667])
    MeanInterval(mean=0.6667, low=None, high=None, n=1, confidence=0.95, reason='n=1: too few items for an interval (needs 10)')
    """
    xs = _checked(values, confidence, min_items)
    n = len(xs)
    mean = math.fsum(xs) / n
    if n < min_items:
        return MeanInterval(mean, None, None, n, confidence, too_few(n, min_items))
    share = proportions and all(v in (0.0, 1.0) for v in xs)
    if min(xs) == max(xs) and not share:
        return MeanInterval(mean, None, None, n, confidence,
                            f"all {n} values are equal: nothing varied, no interval")
    _, low, high = mean_intervals([xs], confidence=confidence, min_items=min_items,
                                  proportions=proportions)
    method = EXACT if share else (UNION if n < HALL_ALONE_FROM else METHOD)
    return MeanInterval(mean, float(low[0]), float(high[0]), n, confidence, method=method)
