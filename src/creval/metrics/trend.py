"""Whether a measure rises with a swept option: Spearman's rho of per-item values against
the option value, with a paired percentile-bootstrap interval and the two-sided p-value of
the same resamples (the interval inverted, :func:`bootstrap_test`), so that the interval
excludes 0 exactly when ``p < 1 - confidence``: they never contradict each other.

Below :data:`TREND_MIN_VALUES` swept values there is no trend (rho is still given), and below
:data:`TREND_MIN_PAIRS` pairs no interval or test: simulated coverage
(``tests/metrics/test_interval_coverage.py``) of this interval with 3-5 swept values was
63-90% at 6-12 pairs of 0/1 or 1-5 scores and at least 92.8% from 30 pairs.

>>> x = [0.1, 0.5, 1.0] * 10
>>> t = spearman_trend(x, [4 * v + i % 5 for i, v in enumerate(x)])
>>> round(t.rho, 3), t.n, t.values, t.reason
(0.711, 30, 3, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from creval.metrics._validate import finite_numbers

__all__ = ["TREND_MIN_PAIRS", "TREND_MIN_VALUES", "Trend", "bootstrap_test", "spearman_trend"]


@dataclass(frozen=True)
class Trend:
    """Spearman's ``rho`` of ``n`` pairs over ``values`` distinct option values, its percentile
    bootstrap interval and the two-sided ``p`` of the same resamples; ``rho`` is None when a
    side is constant, ``low``, ``high`` and ``p`` are None (and ``reason`` says why) when too
    few values were swept or too few pairs measured."""

    rho: float | None
    low: float | None
    high: float | None
    p: float | None
    n: int
    confidence: float
    resamples: int
    values: int = 0
    reason: str | None = None


#: The fewest distinct option values a trend is tested over.
TREND_MIN_VALUES = 3
#: The fewest (value, item) pairs a trend interval and test are given from.
TREND_MIN_PAIRS = 30


def _spearman_statistic(x: Any, y: Any, axis: int = -1) -> Any:
    """Spearman's rho along ``axis`` (vectorised for scipy's resampling): Pearson's r of
    the average ranks; NaN where a side is constant."""
    import numpy as np
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=axis), rankdata(y, axis=axis)
    rx = rx - rx.mean(axis=axis, keepdims=True)
    ry = ry - ry.mean(axis=axis, keepdims=True)
    denominator = np.sqrt((rx * rx).sum(axis=axis) * (ry * ry).sum(axis=axis))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (rx * ry).sum(axis=axis) / denominator, np.nan)


def _trend_reason(n: int, values: int, min_pairs: int, min_values: int) -> str | None:
    if values < min_values:
        return f"{values} values swept: too few for a trend (needs {min_values})"
    if n < min_pairs:
        return f"n={n}: too few pairs for a trend interval and test (needs {min_pairs})"
    return None


def bootstrap_test(draws: Any, confidence: float) -> tuple[float, float, float]:
    """``(low, high, p)`` of resampled statistics ``draws`` (NaN ones left out): the
    percentile interval with both ends taken as order statistics, and the two-sided p-value
    ``2 min(share <= 0, share >= 0)`` (at most 1). By construction 0 lies outside
    ``[low, high]`` exactly when ``p < 1 - confidence``.

    >>> import numpy as np
    >>> bootstrap_test(np.arange(1.0, 101.0), 0.9)  # every draw above 0: p = 0
    (5.0, 96.0, 0.0)
    >>> low, high, p = bootstrap_test(np.arange(-4.0, 96.0), 0.9)  # 5 of 100 at or below 0
    >>> low, high, p, (low > 0) == (p < 0.1)
    (0.0, 91.0, 0.1, True)
    """
    import numpy as np

    kept = np.asarray(draws, dtype=float)
    kept = kept[~np.isnan(kept)]
    tail = (1 - confidence) / 2
    low = float(np.quantile(kept, tail, method="inverted_cdf"))
    high = -float(np.quantile(-kept, tail, method="inverted_cdf"))
    p = min(1.0, 2 * min(float(np.mean(kept <= 0)), float(np.mean(kept >= 0))))
    return low, high, p


def spearman_trend(
    x: Sequence[float], y: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
    seed: int = 0, min_pairs: int = TREND_MIN_PAIRS, min_values: int = TREND_MIN_VALUES,
) -> Trend:
    """Whether ``y`` rises with ``x``: Spearman's rho (ties averaged), its paired percentile
    bootstrap interval (pairs resampled together; resamples with a constant side, where rho
    is undefined, left out) and the two-sided p-value of the same resamples
    (:func:`bootstrap_test`); no interval or p below ``min_values`` distinct ``x`` or
    ``min_pairs`` pairs (``reason`` says which).

    >>> t = spearman_trend([0.1, 0.1, 0.5, 0.5, 1.0, 1.0], [60, 62, 65, 61, 70, 72])
    >>> round(t.rho, 4), t.n, t.values, t.p, t.reason
    (0.8367, 6, 3, None, 'n=6: too few pairs for a trend interval and test (needs 30)')
    >>> x = [0.1, 0.5, 1.0] * 10
    >>> t = spearman_trend(x, [4 * v + i % 5 for i, v in enumerate(x)])
    >>> round(t.rho, 3), round(t.low, 3), round(t.high, 3), t.p
    (0.711, 0.491, 0.841, 0.0)
    >>> spearman_trend([0.2, 1.0] * 20, list(range(40))).reason
    '2 values swept: too few for a trend (needs 3)'
    """
    import numpy as np

    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")
    xs, ys = np.array(finite_numbers(x, "x")), np.array(finite_numbers(y, "y"))
    if xs.size != ys.size:
        raise ValueError(f"x and y must have the same length, got {xs.size} and {ys.size}.")
    if xs.size < 3:
        raise ValueError(f"A trend needs at least 3 pairs, got {xs.size}.")
    n, values = int(xs.size), len(set(xs.tolist()))
    reason = _trend_reason(n, values, min_pairs, min_values)
    if xs.min() == xs.max() or ys.min() == ys.max():
        return Trend(None, None, None, None, n, confidence, resamples, values,
                     reason if values < min_values else "a side is constant: rho is undefined")
    rho = float(_spearman_statistic(xs, ys))
    if reason is not None:
        return Trend(rho, None, None, None, n, confidence, resamples, values, reason)
    picks = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    low, high, p = bootstrap_test(_spearman_statistic(xs[picks], ys[picks]), confidence)
    return Trend(rho, low, high, p, n, confidence, resamples, values)
