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

**Trend.** :func:`spearman_trend` asks whether a measure rises with the option: Spearman's
rho of per-item values against the option value, a two-sided permutation p-value and a
paired percentile-bootstrap interval, both from ``scipy.stats``.

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

__all__ = [
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


@dataclass(frozen=True)
class Trend:
    """Spearman's ``rho`` of ``n`` pairs, its percentile bootstrap interval and the two-sided
    permutation ``p``; ``rho``, ``low``, ``high`` and ``p`` are None when a side is constant."""

    rho: float | None
    low: float | None
    high: float | None
    p: float | None
    n: int
    confidence: float
    resamples: int


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
    a: Sequence[float], b: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` of two independent samples with its percentile bootstrap
    interval (each sample resampled on its own): ``(difference, low, high)``.

    >>> mean_difference_ci([3.0, 3.0], [1.0, 1.0])
    (2.0, 2.0, 2.0)
    """
    import numpy as np

    _check_options(confidence, resamples)
    xs = np.array([_number(v, f"a[{i}]") for i, v in enumerate(_sequence(a, "a"))])
    ys = np.array([_number(v, f"b[{i}]") for i, v in enumerate(_sequence(b, "b"))])
    if not xs.size or not ys.size:
        raise ValueError("a and b must each hold at least one value.")
    rng = np.random.default_rng(seed)
    da = xs[rng.integers(0, xs.size, size=(resamples, xs.size))].mean(axis=1)
    db = ys[rng.integers(0, ys.size, size=(resamples, ys.size))].mean(axis=1)
    low, high = np.quantile(da - db, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(xs.mean() - ys.mean()), float(low), float(high)


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


def spearman_trend(
    x: Sequence[float], y: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000,
    seed: int = 0,
) -> Trend:
    """Whether ``y`` rises with ``x``: Spearman's rho (ties averaged), its paired percentile
    bootstrap interval (pairs resampled together; resamples with a constant side, where rho
    is undefined, left out) and the two-sided permutation p-value
    (``scipy.stats.permutation_test``, pairings: twice the smaller one-sided p; exact when
    ``n!`` <= ``resamples``).

    >>> t = spearman_trend([0.1, 0.1, 0.5, 0.5, 1.0, 1.0], [60, 62, 65, 61, 70, 72])
    >>> round(t.rho, 4), t.n, t.p < 0.1, t.low <= t.rho <= t.high
    (0.8367, 6, True, True)
    """
    import numpy as np
    from scipy import stats

    _check_options(confidence, resamples)
    xs = np.array([_number(v, f"x[{i}]") for i, v in enumerate(_sequence(x, "x"))])
    ys = np.array([_number(v, f"y[{i}]") for i, v in enumerate(_sequence(y, "y"))])
    if xs.size != ys.size:
        raise ValueError(f"x and y must have the same length, got {xs.size} and {ys.size}.")
    if xs.size < 3:
        raise ValueError(f"A trend needs at least 3 pairs, got {xs.size}.")
    if xs.min() == xs.max() or ys.min() == ys.max():
        return Trend(None, None, None, None, int(xs.size), confidence, resamples)
    rho = float(_spearman_statistic(xs, ys))
    # only y is permuted (x stays in place): n! pairings, so exact when n! <= resamples
    test = stats.permutation_test((ys,), lambda y, axis=-1: _spearman_statistic(xs, y, axis),
                                  permutation_type="pairings", vectorized=True,
                                  n_resamples=resamples, alternative="two-sided",
                                  random_state=seed)
    # the paired percentile bootstrap of scipy.stats.bootstrap, except that resamples in
    # which a side is constant (rho undefined) are left out instead of making it NaN
    picks = np.random.default_rng(seed).integers(0, xs.size, size=(resamples, xs.size))
    draws = _spearman_statistic(xs[picks], ys[picks])
    low, high, _ = _interval(list(draws), confidence)
    return Trend(rho, low, high, float(test.pvalue), int(xs.size), confidence, resamples)


