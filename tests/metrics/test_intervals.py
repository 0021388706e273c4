"""The interval of a mean (t with Hall's skewness correction) against scipy's t interval and
against Hall's transformation solved numerically; its refusals below its minimum n."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from creval.metrics.intervals import MIN_ITEMS, mean_interval, mean_intervals


def test_symmetric_values_give_scipys_t_interval() -> None:
    values = [3.0, 4.0, 5.0, 4.0, 3.0, 5.0, 4.0, 4.0, 3.0, 5.0, 1.0, 7.0]  # skewness 0
    r = mean_interval(values, confidence=0.9)
    ref = stats.t.interval(0.9, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert (r.low, r.high) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_skewed_values_solve_halls_transformation(seed: int) -> None:
    """Each end is where sqrt(n) h((mean - end) / s) reaches the t quantile, h(x) = x +
    g x^2 / 3 + g^2 x^3 / 27 + g / (6 n) (Hall 1992), found here by root finding."""
    x = np.random.default_rng(seed).exponential(2.0, size=15 + 5 * seed)
    n, mean, s = len(x), float(x.mean()), float(x.std(ddof=1))
    g = float(stats.skew(x))  # the biased sample skewness, m3 / m2^1.5
    q = stats.t.ppf(0.975, n - 1)

    def h(z: float) -> float:
        return z + g * z * z / 3 + g * g * z**3 / 27 + g / (6 * n)

    def end(target: float) -> float:
        z = optimize.brentq(lambda z: math.sqrt(n) * h(z) - target, -50, 50, xtol=1e-14)
        return mean - s * z

    r = mean_interval(x.tolist())
    assert (r.low, r.high) == pytest.approx((end(q), end(-q)), rel=1e-9)
    t = stats.t.interval(0.95, n - 1, loc=mean, scale=stats.sem(x))
    assert r.high - r.mean > t[1] - mean  # right-skewed: stretched to the right


def test_rows_match_one_by_one() -> None:
    rows = np.random.default_rng(9).lognormal(0, 0.7, size=(6, 12))
    rows[2] = 1.5  # no spread
    means, lows, highs = mean_intervals(rows)
    for row, m, lo, hi in zip(rows, means, lows, highs, strict=True):
        r = mean_interval(row.tolist())
        assert m == pytest.approx(r.mean)
        if r.low is None:
            assert math.isnan(lo) and math.isnan(hi)
        else:
            assert (lo, hi) == pytest.approx((r.low, r.high), rel=1e-12)


def test_too_few_items_or_nothing_varied() -> None:
    two = mean_interval([77.0, 77.99])  # DAT with 2 valid trials printed 77.49 [77.00, 77.99]
    assert two.mean == pytest.approx(77.495) and two.low is None and two.high is None
    assert two.reason == f"n=2: too few items for an interval (needs {MIN_ITEMS})"
    assert mean_interval([0.6667]).reason == "n=1: too few items for an interval (needs 10)"
    assert mean_interval([0.5] * 20).reason == "all 20 values are equal: nothing varied, no interval"
    assert mean_interval([1.0, 2.0, 3.0], min_items=3).low is not None


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"values": []}, "non-empty"),
    ({"values": [1.0, float("inf")]}, r"values\[1\]"),
    ({"values": [1.0, True]}, r"values\[1\]"),
    ({"values": [1.0], "confidence": 0.0}, "confidence"),
    ({"values": [1.0], "min_items": 1}, "min_items"),
])
def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mean_interval(**kwargs)


@pytest.mark.parametrize("n", [10, 15, 30])
@pytest.mark.parametrize("share", ["none", "all", "some"])
def test_a_share_of_0_1_items_is_clopper_pearson_also_at_0_and_n(n: int, share: str) -> None:
    """Against scipy's exact binomial interval; 0 of 15 is [0, 0.218] (issue 44: it printed
    'nothing varied, no interval')."""
    from creval.metrics.intervals import describe_interval

    k = {"none": 0, "all": n, "some": n // 3}[share]
    values = [1.0] * k + [0.0] * (n - k)
    r = mean_interval(values, proportions=True)
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    assert (r.low, r.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert r.reason is None
    assert describe_interval(r) == f"Clopper-Pearson exact binomial interval over {n} items (95%)"
    _, lows, highs = mean_intervals(np.array([values]), proportions=True)
    assert (lows[0], highs[0]) == pytest.approx((ref.low, ref.high), abs=1e-12)
    if k == 0 and n == 15:
        assert round(r.high, 3) == 0.218


def test_the_label_is_the_method_used() -> None:
    from creval.metrics.intervals import describe_interval

    union = describe_interval(mean_interval([float(i % 4) for i in range(12)]))
    assert union.startswith("union of the t interval and the t interval with Hall's")
    hall = describe_interval(mean_interval([float(i % 4) for i in range(15)]))
    assert hall.startswith("t interval with Hall's skewness correction over 15")
    # not a proportion: equal values still have no interval
    assert mean_interval([0.0] * 15).reason == "all 15 values are equal: nothing varied, no interval"
