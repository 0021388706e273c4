"""Curves of a divergent measure against a quality measure along one generation option
(temperature, top-p), and comparisons of two models on them.

A *curve* is a list of points, one per option value ``v_1 < v_2 < ... < v_k``; at each point
the run's items carry a divergent value ``d`` and a quality value ``q`` (either may be None:
an invalid DAT trial has a quality of 0 and no divergent score). A point's estimates are the
means over the items that have a value.

**Matched quality.** Two models seldom reach the same quality at the same temperature, so
comparing their divergent measure at one temperature mixes diversity with validity. Joining
the points with straight lines in ``v`` (piecewise-linear ``q(v)`` and ``d(v)``), the divergent
value *at quality* ``q*`` is ``d(v*)`` where ``q(v*) = q*``: on the segment ``[v_i, v_i+1]``
with ``q_i != q_i+1``, ``t = (q* - q_i) / (q_i+1 - q_i)``, ``v* = v_i + t (v_i+1 - v_i)`` and
``d(v*) = d_i + t (d_i+1 - d_i)``. When the curve crosses ``q*`` more than once (quality need
not fall monotonically), the crossing with the largest divergent value is taken: the most
diverse setting at which the model still gives that quality. A curve that never reaches
``q*`` has no value there (None), never an extrapolated one.

**Intervals** are percentile bootstraps (Efron and Tibshirani 1993, ch. 13) over items,
resampled within each point (the points are separate runs), with the items' ``(d, q)`` pairs
kept together: each resample redraws every point's items, recomputes the curve and its
crossing. Resamples whose curve misses ``q*`` give no value; ``reached`` is the fraction that
did, and the interval is taken over those (it is conditional on reaching, which the caller
should say when ``reached`` is well below 1).

**Trend** (:func:`spearman_trend`, from :mod:`creval.metrics.trend`): whether a measure
rises with the option, with an interval and a test from the same resamples.

>>> v = [0.2, 0.7, 1.0]
>>> d = [[60.0, 62.0], [70.0, None], [80.0, 78.0]]   # divergent per item (None: no score)
>>> q = [[1.0, 1.0], [1.0, 0.0], [0.0, 0.5]]         # quality per item (the valid rate)
>>> point = value_at_quality(v, [61.0, 70.0, 79.0], [1.0, 0.5, 0.25], target=0.5)
>>> point
(0.7, 70.0)
>>> m = matched_quality(v, d, q, target=0.5, resamples=200)
>>> m.value, m.estimate, m.low <= m.estimate <= m.high, 0 < m.reached <= 1
(0.7, 70.0, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from creval.metrics.intervals import MeanInterval, difference_intervals, too_few
from creval.metrics.trend import TREND_MIN_PAIRS, TREND_MIN_VALUES, Trend, spearman_trend

__all__ = [
    "DIFFERENCE_MIN_ITEMS",
    "TREND_MIN_PAIRS",
    "TREND_MIN_VALUES",
    "Matched",
    "MatchedDifference",
    "Trend",
    "default_target",
    "matched_difference",
    "matched_quality",
    "mean_difference_ci",
    "spearman_trend",
    "value_at_quality",
]

Items = Sequence[Sequence[float | None]]


@dataclass(frozen=True)
class Matched:
    """A curve's divergent value ``estimate`` at quality ``target``, the option ``value`` where
    it crosses, the interval ``[low, high]`` and the fraction of resamples that ``reached``
    the target (``estimate``, ``value``, ``low`` and ``high`` are None when it did not)."""

    target: float
    value: float | None
    estimate: float | None
    low: float | None
    high: float | None
    reached: float
    confidence: float
    resamples: int


@dataclass(frozen=True)
class MatchedDifference:
    """Curve A minus curve B at the same quality ``target``, with both curves' values."""

    target: float
    a: Matched
    b: Matched
    difference: float | None
    low: float | None
    high: float | None
    #: Fraction of paired resamples in which both curves reached the target.
    reached: float


#: The fewest values on each side :func:`mean_difference_ci` gives an interval from.
DIFFERENCE_MIN_ITEMS = 30


# -- validation -------------------------------------------------------------------------------
def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where} must be a finite number, got {value!r}.")
    return float(value)


def _optional(value: Any, where: str) -> float:
    """NaN for None (a missing value), else the checked number."""
    return math.nan if value is None else _number(value, where)


def _sequence(values: Any, where: str) -> Sequence[Any]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{where} must be a sequence, got {type(values).__name__}.")
    return values


def _check_values(values: Sequence[float]) -> list[float]:
    xs = [_number(v, f"values[{i}]") for i, v in enumerate(_sequence(values, "values"))]
    if not xs:
        raise ValueError("values is empty: a curve needs at least one point.")
    bad = next((i for i in range(1, len(xs)) if xs[i] <= xs[i - 1]), None)
    if bad is not None:
        raise ValueError(f"values must increase strictly: values[{bad}] = {xs[bad]} follows {xs[bad - 1]}.")
    return xs


def _check_options(confidence: float, resamples: int) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")


def _check_items(values: list[float], divergent: Items, quality: Items) -> list[tuple[Any, Any]]:
    """Per point, the divergent and quality values as float arrays (NaN for None)."""
    import numpy as np

    for name, items in (("divergent", divergent), ("quality", quality)):
        if len(_sequence(items, name)) != len(values):
            raise ValueError(f"{name} has {len(items)} points for {len(values)} values.")
    out = []
    for i, (ds, qs) in enumerate(zip(divergent, quality, strict=True)):
        ds, qs = _sequence(ds, f"divergent[{i}]"), _sequence(qs, f"quality[{i}]")
        if len(ds) != len(qs):
            raise ValueError(f"divergent[{i}] has {len(ds)} items and quality[{i}] {len(qs)}: "
                             "the items of a point are pairs (None where one value is missing).")
        out.append((np.array([_optional(x, f"divergent[{i}][{j}]") for j, x in enumerate(ds)]),
                    np.array([_optional(x, f"quality[{i}][{j}]") for j, x in enumerate(qs)])))
    return out


# -- the curve --------------------------------------------------------------------------------
def value_at_quality(
    values: Sequence[float], divergent: Sequence[float | None], quality: Sequence[float | None],
    *, target: float,
) -> tuple[float, float] | None:
    """``(v*, d(v*))``: where the piecewise-linear curve of point means reaches quality
    ``target`` (the crossing with the largest divergent value), or None if it never does.

    Points with a None mean are left out of the curve.

    >>> value_at_quality([0.0, 1.0], [10.0, 20.0], [1.0, 0.0], target=0.25)
    (0.75, 17.5)
    >>> value_at_quality([0.0, 1.0], [10.0, 20.0], [1.0, 0.5], target=0.25) is None
    True
    """
    xs = _check_values(values)
    target = _number(target, "target")
    ds = [_optional(d, f"divergent[{i}]") for i, d in enumerate(_sequence(divergent, "divergent"))]
    qs = [_optional(q, f"quality[{i}]") for i, q in enumerate(_sequence(quality, "quality"))]
    if len(ds) != len(xs) or len(qs) != len(xs):
        raise ValueError(f"divergent and quality need one mean per value ({len(xs)}), got "
                         f"{len(ds)} and {len(qs)}.")
    return _crossing(xs, ds, qs, target)


def _crossing(xs: Sequence[float], ds: Sequence[float], qs: Sequence[float],
              target: float) -> tuple[float, float] | None:
    """The crossing of already-checked means (NaN: left out)."""
    points = [(x, d, q) for x, d, q in zip(xs, ds, qs, strict=True)
              if not (math.isnan(d) or math.isnan(q))]
    best: tuple[float, float] | None = None
    for (x0, d0, q0), (x1, d1, q1) in zip(points, points[1:], strict=False):
        if q0 == q1:
            found = [(x0, d0), (x1, d1)] if q0 == target else []
        elif min(q0, q1) <= target <= max(q0, q1):
            t = (target - q0) / (q1 - q0)
            found = [(x0 + t * (x1 - x0), d0 + t * (d1 - d0))]
        else:
            found = []
        for candidate in found:
            if best is None or candidate[1] > best[1]:
                best = candidate
    if best is None and len(points) == 1 and points[0][2] == target:
        best = (points[0][0], points[0][1])
    return best


def _means(data: Any, picks: Any) -> Any:
    """Mean of the non-NaN values of each resample (rows of ``picks``); NaN when none."""
    import numpy as np

    drawn = data[picks]
    present = ~np.isnan(drawn)
    counts = present.sum(axis=1)
    sums = np.where(present, drawn, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _point_means(points: list[tuple[Any, Any]]) -> tuple[list[float], list[float]]:
    import numpy as np

    def mean(a: Any) -> float:
        kept = a[~np.isnan(a)]
        return float(kept.mean()) if kept.size else math.nan

    return [mean(d) for d, _ in points], [mean(q) for _, q in points]


def _resampled_crossings(xs: list[float], points: list[tuple[Any, Any]], target: float,
                         resamples: int, seed: int) -> list[float]:
    """The crossing's divergent value per resample (NaN where the curve misses ``target``).

    Point i draws ``resamples x n_i`` item indices from ``default_rng(seed + i)``."""
    import numpy as np

    ds, qs = [], []
    for i, (d, q) in enumerate(points):
        if d.size == 0:
            ds.append(np.full(resamples, np.nan))
            qs.append(np.full(resamples, np.nan))
            continue
        picks = np.random.default_rng(seed + i).integers(0, d.size, size=(resamples, d.size))
        ds.append(_means(d, picks))
        qs.append(_means(q, picks))
    out = []
    for b in range(resamples):
        hit = _crossing(xs, [float(d[b]) for d in ds], [float(q[b]) for q in qs], target)
        out.append(math.nan if hit is None else hit[1])
    return out


def _interval(draws: Sequence[float], confidence: float) -> tuple[float | None, float | None, float]:
    import numpy as np

    arr = np.asarray(draws, dtype=float)
    kept = arr[~np.isnan(arr)]
    if not kept.size:
        return None, None, 0.0
    low, high = np.quantile(kept, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high), kept.size / arr.size


def matched_quality(
    values: Sequence[float], divergent: Items, quality: Items, *, target: float,
    confidence: float = 0.95, resamples: int = 2000, seed: int = 0,
) -> Matched:
    """The divergent value of a curve where its quality is ``target``, with a bootstrap
    interval over items (see the module docstring).

    ``divergent[i]`` and ``quality[i]`` are the values of point ``i``'s items, pairs in the
    same order (None where an item has no value of that kind).

    >>> m = matched_quality([0.0, 1.0], [[10.0, 10.0], [20.0, 20.0]], [[1.0, 1.0], [0.0, 0.0]],
    ...                     target=0.5)
    >>> m.value, m.estimate, m.low, m.high, m.reached   # no spread: the interval is a point
    (0.5, 15.0, 15.0, 15.0, 1.0)
    """
    xs = _check_values(values)
    target = _number(target, "target")
    _check_options(confidence, resamples)
    matched, _ = _matched(xs, _check_items(xs, divergent, quality), target, confidence,
                          resamples, seed)
    return matched


def _matched(xs: list[float], points: list[tuple[Any, Any]], target: float, confidence: float,
             resamples: int, seed: int) -> tuple[Matched, list[float]]:
    """:func:`matched_quality` of checked input, and its resampled crossings."""
    d_means, q_means = _point_means(points)
    hit = _crossing(xs, d_means, q_means, target)
    draws = _resampled_crossings(xs, points, target, resamples, seed)
    low, high, reached = _interval(draws, confidence)
    return Matched(target, None if hit is None else hit[0], None if hit is None else hit[1],
                   low, high, reached, confidence, resamples), draws


def default_target(quality_a: Sequence[float | None], quality_b: Sequence[float | None]) -> float | None:
    """The quality at which two curves are compared when none is given: the middle of the
    range both curves' point means span, or None when the ranges do not overlap.

    >>> default_target([0.9, 0.6, 0.3], [1.0, 0.8, 0.5])
    0.7
    >>> default_target([0.9, 0.8], [0.5, 0.2]) is None
    True
    """
    a = [_number(q, f"quality_a[{i}]") for i, q in enumerate(quality_a) if q is not None]
    b = [_number(q, f"quality_b[{i}]") for i, q in enumerate(quality_b) if q is not None]
    if not a or not b:
        return None
    low, high = max(min(a), min(b)), min(max(a), max(b))
    return None if low > high else (low + high) / 2


def matched_difference(
    a: tuple[Sequence[float], Items, Items], b: tuple[Sequence[float], Items, Items],
    *, target: float, confidence: float = 0.95, resamples: int = 2000, seed: int = 0,
) -> MatchedDifference:
    """Curve ``a`` minus curve ``b`` (each ``(values, divergent, quality)``) at quality
    ``target``: the difference of their matched divergent values, with a percentile interval
    over independent resamples of the two curves (B's points use seeds after A's).

    >>> a = ([0.0, 1.0], [[10.0], [20.0]], [[1.0], [0.0]])
    >>> b = ([0.0, 1.0], [[5.0], [9.0]], [[1.0], [0.0]])
    >>> r = matched_difference(a, b, target=0.5, resamples=50)
    >>> r.a.estimate, r.b.estimate, r.difference, r.low, r.high
    (15.0, 7.0, 8.0, 8.0, 8.0)
    """
    _check_options(confidence, resamples)
    target = _number(target, "target")
    xa, xb = _check_values(a[0]), _check_values(b[0])
    first, da = _matched(xa, _check_items(xa, a[1], a[2]), target, confidence, resamples, seed)
    second, db = _matched(xb, _check_items(xb, b[1], b[2]), target, confidence, resamples,
                          seed + len(xa))
    low, high, reached = _interval([x - y for x, y in zip(da, db, strict=True)], confidence)
    difference = (None if first.estimate is None or second.estimate is None
                  else first.estimate - second.estimate)
    return MatchedDifference(target, first, second, difference, low, high, reached)


def mean_difference_ci(
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95,
    min_items: int = DIFFERENCE_MIN_ITEMS,
) -> MeanInterval:
    """``mean(a) - mean(b)`` of two independent samples with Welch's t interval under Hall's
    skewness correction (:func:`creval.metrics.intervals.difference_intervals`), as a
    :class:`~creval.metrics.intervals.MeanInterval` whose ``mean`` is the difference and ``n``
    the smaller sample; no interval below ``min_items`` values on either side, or when
    neither side varies. Simulated coverage (``tests/metrics/test_interval_coverage.py``):
    90-93% at 5-10 values a side on skewed against bounded data, at least 93.5% from 30.

    >>> mean_difference_ci([3.0, 3.0], [1.0, 1.0])
    MeanInterval(mean=2.0, low=None, high=None, n=2, confidence=0.95, reason='n=2: too few items for an interval (needs 30)')
    >>> r = mean_difference_ci([float(i % 5) for i in range(30)], [float(i % 3) for i in range(30)])
    >>> r.mean, round(r.low, 3), round(r.high, 3)
    (1.0, 0.39, 1.61)
    """
    import numpy as np

    _check_options(confidence, 1)
    xs = np.array([_number(v, f"a[{i}]") for i, v in enumerate(_sequence(a, "a"))])
    ys = np.array([_number(v, f"b[{i}]") for i, v in enumerate(_sequence(b, "b"))])
    if not xs.size or not ys.size:
        raise ValueError("a and b must each hold at least one value.")
    n = int(min(xs.size, ys.size))
    diff = float(xs.mean() - ys.mean())
    if n < min_items:
        return MeanInterval(diff, None, None, n, confidence, too_few(n, min_items))
    if np.ptp(xs) == 0 and np.ptp(ys) == 0:
        return MeanInterval(diff, None, None, n, confidence,
                            "neither side varies: nothing varied, no interval")
    _, low, high = difference_intervals(xs[None, :], ys[None, :], confidence=confidence)
    return MeanInterval(diff, float(low[0]), float(high[0]), n, confidence,
                        method="Welch's t interval with Hall's skewness correction")
