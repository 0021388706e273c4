"""Curves of a divergent measure against quality: the crossing against a brute-force search on
a dense grid, the bootstrap against a plain loop, the trend test against scipy and an exact
permutation count."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from creval.metrics.curves import (
    default_target,
    matched_difference,
    matched_quality,
    mean_difference_ci,
    spearman_trend,
    value_at_quality,
)
from creval.metrics.trend import bootstrap_test


def _brute_crossing(xs, ds, qs, target, steps=200_001):
    """The curve on a dense grid of the option: the grid points whose interpolated quality is
    within a step's change of ``target``, and among them the largest divergent value."""
    grid = np.linspace(xs[0], xs[-1], steps)
    q = np.interp(grid, xs, qs)
    d = np.interp(grid, xs, ds)
    tolerance = max(abs(b - a) for a, b in zip(qs, qs[1:], strict=False)) / (steps - 1) * len(xs)
    close = np.abs(q - target) <= tolerance + 1e-12
    if not close.any():
        return None
    best = int(np.argmax(np.where(close, d, -np.inf)))
    return float(grid[best]), float(d[best])


@pytest.mark.parametrize("case", [
    ([0.2, 0.7, 1.0], [61.0, 70.0, 79.0], [1.0, 0.5, 0.25], 0.4),
    ([0.0, 0.5, 1.0, 1.5], [10.0, 30.0, 20.0, 40.0], [0.9, 0.3, 0.8, 0.1], 0.5),  # three crossings
    ([0.0, 1.0, 2.0], [5.0, 6.0, 7.0], [0.2, 0.6, 0.9], 0.75),  # quality rising
])
def test_crossing_matches_a_dense_grid(case) -> None:
    xs, ds, qs, target = case
    exact = value_at_quality(xs, ds, qs, target=target)
    brute = _brute_crossing(xs, ds, qs, target)
    assert exact is not None and brute is not None
    assert exact[0] == pytest.approx(brute[0], abs=1e-3)
    assert exact[1] == pytest.approx(brute[1], abs=1e-2)


def test_hand_calculation_and_edges() -> None:
    # q falls 0.9 -> 0.3 on [0, 0.5]: t = (0.5 - 0.9) / (0.3 - 0.9) = 2/3, d = 10 + 2/3 * 20
    v, d = value_at_quality([0.0, 0.5], [10.0, 30.0], [0.9, 0.3], target=0.5)
    assert (v, d) == (pytest.approx(1 / 3), pytest.approx(10 + 40 / 3))
    assert value_at_quality([0.0, 1.0], [1.0, 2.0], [0.9, 0.8], target=0.5) is None  # never reached
    # a point without a divergent value is left out of the curve
    assert value_at_quality([0.0, 0.5, 1.0], [10.0, None, 20.0], [1.0, 0.5, 0.0],
                            target=0.5) == (0.5, 15.0)
    with pytest.raises(ValueError, match="increase strictly"):
        value_at_quality([0.5, 0.2], [1.0, 2.0], [1.0, 0.0], target=0.5)
    with pytest.raises(ValueError, match=r"divergent\[1\]\[0\]"):
        matched_quality([0.0, 1.0], [[1.0], [math.nan]], [[1.0], [0.0]], target=0.5)
    with pytest.raises(ValueError, match="pairs"):
        matched_quality([0.0, 1.0], [[1.0], [2.0, 3.0]], [[1.0], [0.0]], target=0.5)
    with pytest.raises(ValueError, match="confidence"):
        matched_quality([0.0, 1.0], [[1.0], [2.0]], [[1.0], [0.0]], target=0.5, confidence=1.5)


def _loop_bootstrap(xs, divergent, quality, target, resamples, seed, confidence=0.95):
    """The documented resampling, written as plain loops: point i draws its indices from
    default_rng(seed + i), a resample's point mean is over the drawn items that have a value."""
    draws_by_point = []
    for i, (d, q) in enumerate(zip(divergent, quality, strict=True)):
        picks = np.random.default_rng(seed + i).integers(0, len(d), size=(resamples, len(d)))
        rows = []
        for row in picks:
            dv = [d[j] for j in row if d[j] is not None]
            qv = [q[j] for j in row if q[j] is not None]
            rows.append((sum(dv) / len(dv) if dv else None, sum(qv) / len(qv) if qv else None))
        draws_by_point.append(rows)
    values = []
    for b in range(resamples):
        keep = [(x, p[b][0], p[b][1]) for x, p in zip(xs, draws_by_point, strict=True)
                if p[b][0] is not None and p[b][1] is not None]
        hit = value_at_quality([k[0] for k in keep], [k[1] for k in keep], [k[2] for k in keep],
                               target=target) if keep else None
        if hit is not None:
            values.append(hit[1])
    return (float(np.quantile(values, 0.025)), float(np.quantile(values, 0.975)),
            len(values) / resamples)


def test_bootstrap_matches_a_plain_loop() -> None:
    rng = np.random.default_rng(5)
    xs = [0.2, 0.7, 1.0]
    divergent, quality = [], []
    for valid_rate, centre in ((0.9, 60.0), (0.6, 70.0), (0.3, 80.0)):
        valid = rng.random(12) < valid_rate
        divergent.append([float(centre + rng.normal(0, 4)) if v else None for v in valid])
        quality.append([1.0 if v else 0.0 for v in valid])
    m = matched_quality(xs, divergent, quality, target=0.55, resamples=300, seed=3)
    low, high, reached = _loop_bootstrap(xs, divergent, quality, 0.55, 300, 3)
    assert (m.low, m.high, m.reached) == (pytest.approx(low), pytest.approx(high),
                                         pytest.approx(reached))
    assert m.low <= m.estimate <= m.high


def test_difference_and_default_target() -> None:
    a = ([0.0, 1.0], [[10.0, 12.0], [20.0, 22.0]], [[1.0, 1.0], [0.0, 0.0]])
    b = ([0.0, 1.0], [[5.0, 5.0], [9.0, 9.0]], [[1.0, 1.0], [0.5, 0.5]])
    target = default_target([1.0, 0.0], [1.0, 0.5])
    assert target == 0.75  # overlap [0.5, 1.0]
    r = matched_difference(a, b, target=target, resamples=200)
    # A reaches 0.75 at v = 0.25 (d = 11 + 0.25 * 10 = 13.5); B at v = 0.5 (d = 5 + 0.5 * 4 = 7)
    assert (r.a.value, r.a.estimate) == (pytest.approx(0.25), pytest.approx(13.5))
    assert (r.b.value, r.b.estimate) == (pytest.approx(0.5), pytest.approx(7.0))
    assert r.difference == pytest.approx(6.5)
    assert r.low <= r.difference <= r.high and r.reached == 1.0
    assert default_target([0.9, 0.8], [0.2, 0.1]) is None


def test_mean_difference_ci_against_scipy() -> None:
    a = [4.0, 5.0, 6.0, 5.0] * 8  # both sides without skewness: exactly Welch's interval
    b = [1.0, 3.0, 5.0] * 11
    r = mean_difference_ci(a, b)
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert r.mean == pytest.approx(np.mean(a) - np.mean(b)) and r.n == 32
    assert (r.low, r.high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    small = mean_difference_ci(a[:29], b)
    assert small.low is None and small.reason == "n=29: too few items for an interval (needs 30)"


def test_mean_difference_ci_solves_halls_transformation() -> None:
    """Skewed sides: each end is where Hall's transformation of the Welch statistic reaches
    the t quantile (Welch-Satterthwaite df), found here by root finding."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(5, 1, 40), rng.exponential(4, 30)
    va, vb = a.var(ddof=1) / 40, b.var(ddof=1) / 30
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 39 + vb**2 / 29)
    kappa = (stats.moment(a, 3) / 40**2 - stats.moment(b, 3) / 30**2) / se**3
    q = stats.t.ppf(0.975, df)
    diff = a.mean() - b.mean()

    def end(target: float) -> float:
        def h(t: float) -> float:
            return t + kappa * t * t / 3 + kappa**2 * t**3 / 27 + kappa / 6
        return diff - se * optimize.brentq(lambda t: h(t) - target, -50, 50, xtol=1e-14)

    r = mean_difference_ci(a.tolist(), b.tolist())
    assert (r.low, r.high) == pytest.approx((end(q), end(-q)), rel=1e-9)


def test_trend_interval_and_test_never_contradict() -> None:
    """The p-value comes from the resamples of the interval: 0 is outside the interval exactly
    when p < 1 - confidence, at every level (the sweep once printed rho -0.58 [-1.00, -0.29],
    p = 0.429)."""
    rng = np.random.default_rng(3)
    for trial in range(30):
        x = np.repeat([0.2, 0.7, 1.0, 1.3], 8)
        y = rng.normal(0, 1, x.size) + trial * 0.03 * x
        for level in (0.8, 0.9, 0.95):
            t = spearman_trend(list(x), list(y), confidence=level, resamples=400, seed=trial)
            assert t.low is not None and t.high is not None and t.p is not None
            assert (t.low > 0 or t.high < 0) == (t.p < 1 - level), (trial, level, t)


def test_bootstrap_test_against_brute_force_counting() -> None:
    rng = np.random.default_rng(4)
    draws = np.round(rng.normal(0.1, 0.1, 301), 2)  # ties, some at 0
    low, high, p = bootstrap_test(draws, 0.9)
    ordered = sorted(draws)
    assert low == ordered[math.ceil(0.05 * 301) - 1]  # the inverted-CDF quantile
    assert high == ordered[301 - math.ceil(0.05 * 301)]
    assert p == pytest.approx(min(1, 2 * min(np.mean(draws <= 0), np.mean(draws >= 0))))


def test_trend_says_when_too_few_values_or_pairs() -> None:
    x = [0.1, 0.1, 0.4, 0.7, 1.0, 1.0]
    y = [60.0, 63.0, 61.0, 66.0, 64.0, 70.0]
    t = spearman_trend(x, y)
    assert t.rho == pytest.approx(stats.spearmanr(x, y).statistic)
    assert (t.low, t.high, t.p, t.values) == (None, None, None, 4)
    assert t.reason == "n=6: too few pairs for a trend interval and test (needs 30)"
    two = spearman_trend([0.2, 1.0] * 20, [float(i) for i in range(40)])
    assert two.p is None and two.reason == "2 values swept: too few for a trend (needs 3)"


def test_trend_interval_against_scipy_bootstrap() -> None:
    rng = np.random.default_rng(0)
    x = np.repeat([0.1, 0.4, 0.7, 1.0], 30)
    y = 60 + 5 * x + rng.normal(0, 3, x.size)
    t = spearman_trend(list(x), list(y), resamples=2000)
    assert t.low is not None and t.high is not None and t.p is not None
    ref = stats.bootstrap((x, y), lambda a, b: stats.spearmanr(a, b).statistic, paired=True,
                          vectorized=False, n_resamples=1000, method="percentile",
                          random_state=1).confidence_interval
    assert t.low == pytest.approx(ref.low, abs=0.05) and t.high == pytest.approx(ref.high, abs=0.05)
    assert t.p < 0.01
    flat = spearman_trend([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert flat.rho is None and flat.p is None
