"""Coverage, simulated: every interval creval prints covers the true value at least 93% of
the time (nominal 95% less 2 points) at n = 2, 5, 10, 30 on skewed and bounded data, and
where a method cannot, no interval is printed.

Seeded and vectorised (a few thousand replications per cell); ``bench/interval_coverage.py``
runs the same grid with more replications, the methods creval used before and the
over-coverage of each cell, and ``bench/README.md`` records its table.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from creval.metrics.curves import DIFFERENCE_MIN_ITEMS, mean_difference_ci
from creval.metrics.intervals import MIN_ITEMS, difference_intervals, mean_intervals
from creval.metrics.paired import paired_difference
from creval.metrics.percentile import percentile_bounds
from creval.metrics.trend import TREND_MIN_PAIRS, spearman_trend
from creval.metrics.unpaired import UNPAIRED_MIN_ITEMS, unpaired_difference

NOMINAL, SLACK = 0.95, 0.02
SIZES = (2, 5, 10, 30)
LIKERT = np.array([0.05, 0.10, 0.20, 0.40, 0.25])  # a 1-5 scale, piled up at 4

Draw = Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]

#: name -> (draw, true mean): skewed (exponential, lognormal) and bounded (beta, 0/1, 1-5)
DISTRIBUTIONS: dict[str, tuple[Draw, float]] = {
    "exponential": (lambda r, s: r.exponential(1.0, s), 1.0),
    "lognormal(0, 0.5)": (lambda r, s: r.lognormal(0.0, 0.5, s), float(np.exp(0.125))),
    "beta(2, 5)": (lambda r, s: r.beta(2.0, 5.0, s), 2 / 7),
    "0/1, p = 0.1": (lambda r, s: (r.random(s) < 0.1).astype(float), 0.1),
    "0/1, p = 0.3": (lambda r, s: (r.random(s) < 0.3).astype(float), 0.3),
    "Likert 1-5": (lambda r, s: 1.0 + r.choice(5, size=s, p=LIKERT),
                   float(np.dot(np.arange(1, 6), LIKERT))),
}


def mean_coverage(draw: Draw, mean: float, n: int, reps: int, seed: int) -> tuple[float, float]:
    """(coverage among the intervals printed, share of samples that printed one), of the
    interval a report prints: Clopper-Pearson's for 0/1 data (``proportions``, also when all
    values are 0), as the console, reports and profiles ask for it."""
    x = draw(np.random.default_rng(seed), (reps, n))
    _, low, high = mean_intervals(x, proportions=True)
    printed = ~np.isnan(low)
    hit = (low <= mean) & (mean <= high)
    return (float(hit[printed].mean()) if printed.any() else float("nan"), float(printed.mean()))


def percentile_coverage(draw: Draw, mean: float, n: int, reps: int, seed: int,
                        people: int = 300) -> tuple[float, float]:
    """The model's trials are ``70 + 5 X``; people ~ N(75, 8): the true percentile is
    ``100 Phi((70 + 5 mean - 75) / 8)``."""
    rng = np.random.default_rng(seed)
    trials = 70.0 + 5.0 * draw(rng, (reps, n))
    crowd = rng.normal(75.0, 8.0, (reps, people))
    low, high = percentile_bounds(trials, crowd)
    truth = 100 * stats.norm.cdf((70.0 + 5.0 * mean - 75.0) / 8.0)
    printed = ~np.isnan(low)
    hit = (low <= truth) & (truth <= high)
    return (float(hit[printed].mean()) if printed.any() else float("nan"), float(printed.mean()))


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_mean_interval_covers_or_is_not_printed(name: str) -> None:
    draw, mean = DISTRIBUTIONS[name]
    for n in SIZES:
        coverage, printed = mean_coverage(draw, mean, n, reps=4000, seed=n)
        if n < MIN_ITEMS:
            assert printed == 0, f"{name}, n={n}: an interval below {MIN_ITEMS} items"
        else:
            assert printed > 0.5 and coverage >= NOMINAL - SLACK, (name, n, coverage)


@pytest.mark.parametrize("name", ["exponential", "lognormal(0, 0.5)", "0/1, p = 0.3", "Likert 1-5"])
def test_percentile_among_people_covers_or_is_not_printed(name: str) -> None:
    draw, mean = DISTRIBUTIONS[name]
    for n in SIZES:
        coverage, printed = percentile_coverage(draw, mean, n, reps=2000, seed=10 + n)
        if n < MIN_ITEMS:
            assert printed == 0
        else:
            assert coverage >= NOMINAL - SLACK, (name, n, coverage)


CASES = {  # two independent samples: (draw a, draw b, true difference)
    "exponential - beta(2, 5)": ("exponential", "beta(2, 5)"),
    "0/1 p = 0.1 - 0/1 p = 0.3": ("0/1, p = 0.1", "0/1, p = 0.3"),
    "lognormal - Likert": ("lognormal(0, 0.5)", "Likert 1-5"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_difference_of_means_covers_or_is_not_printed(case: str) -> None:
    (da, ma), (db, mb) = (DISTRIBUTIONS[k] for k in CASES[case])
    rng = np.random.default_rng(3)
    for n in SIZES:
        a, b = da(rng, (3000, n)), db(rng, (3000, n))
        if n < min(DIFFERENCE_MIN_ITEMS, UNPAIRED_MIN_ITEMS):
            assert mean_difference_ci(a[0].tolist(), b[0].tolist()).low is None
            assert unpaired_difference(a[0].tolist(), b[0].tolist()).low is None
            continue
        # mean_difference_ci (test_curves.py) and unpaired_difference (DAT's comparisons) are
        # difference_intervals row by row
        _, low, high = difference_intervals(a, b, confidence=NOMINAL)
        one = unpaired_difference(a[0].tolist(), b[0].tolist())
        assert (one.low, one.high) == pytest.approx((low[0], high[0]))
        ok = ~np.isnan(low)
        hit = (low <= ma - mb) & (ma - mb <= high)
        assert hit[ok].mean() >= NOMINAL - SLACK, (case, n, hit[ok].mean())


def _trend_truth(levels: np.ndarray, noise: str, slope: float) -> float:
    x = np.repeat(levels, 40_000)
    return float(stats.spearmanr(x, _trend_y(np.random.default_rng(99), x, noise, slope)).statistic)


def _trend_y(rng: np.random.Generator, x: np.ndarray, noise: str, slope: float) -> np.ndarray:
    if noise == "0/1":
        return (rng.random(x.shape) < 0.3 + 0.4 * slope * x).astype(float)
    if noise == "Likert":
        return np.clip(np.round(3 + 2 * slope * x + rng.normal(0, 1, x.shape)), 1, 5)
    return 3 * slope * x + rng.exponential(1.0, x.shape)


@pytest.mark.parametrize("noise", ["exponential", "0/1", "Likert"])
def test_trend_covers_or_is_not_printed(noise: str) -> None:
    """3 or 5 swept values; below 30 pairs no interval, from 30 coverage of the true rho.
    The replications are few (the bench runs 600): the bar here is 1 point lower for
    their Monte Carlo error (about 1 point), the bench holds the 93%."""
    rng = np.random.default_rng(5)
    for k, per in ((3, 2), (5, 2), (3, 10), (5, 6)):
        levels = np.linspace(0.2, 1.2, k)
        x = np.repeat(levels, per)
        truth = _trend_truth(levels, noise, 0.3)
        hits = printed = 0
        for rep in range(300 if k * per >= TREND_MIN_PAIRS else 20):
            y = _trend_y(rng, x, noise, 0.3)
            if y.min() == y.max():
                continue
            t = spearman_trend(x.tolist(), y.tolist(), resamples=400, seed=rep)
            if k * per < TREND_MIN_PAIRS:
                assert t.low is None and t.p is None and t.reason
                continue
            printed += 1
            hits += t.low is not None and t.high is not None and t.low <= truth <= t.high
        if k * per >= TREND_MIN_PAIRS:
            assert hits / printed >= NOMINAL - SLACK - 0.01, (noise, k, per, hits / printed)


PAIRED = {  # per item, a judge's score of two models that share the item's difficulty
    "exponential item effect, 0/1 answers": (
        lambda r, s: r.exponential(1.0, s), lambda r, s, base: (r.random(s) < 0.3).astype(float)),
    "Likert scores of two models": (
        lambda r, s: 1.0 + r.choice(5, size=s, p=LIKERT),
        lambda r, s, base: np.clip(base + r.choice([-1.0, 0.0, 1.0], size=s, p=[0.2, 0.5, 0.3]), 1, 5)),
}


@pytest.mark.parametrize("name", list(PAIRED))
def test_paired_difference_covers_or_is_not_printed(name: str) -> None:
    """The paired difference (``compare --paired``, ``--published``) is the interval of the
    mean of the differences: its coverage is that of the mean interval on the (skewed or
    bounded) differences, checked here against the true mean difference, estimated from a
    large sample of the same model."""
    first, shift = PAIRED[name]
    rng = np.random.default_rng(7)
    big = first(rng, (400_000,))
    truth = float(np.mean(shift(rng, big.shape, big) - big)) if name.startswith("Likert") else \
        float(np.mean(big + shift(rng, big.shape, big) - big))
    for n in SIZES:
        a = first(rng, (4000, n))
        b = shift(rng, a.shape, a) if name.startswith("Likert") else a + shift(rng, a.shape, a)
        one = paired_difference(b[0].tolist(), a[0].tolist())
        _, low, high = mean_intervals(b - a)
        assert (one.low is None) == bool(np.isnan(low[0])), (name, n)
        if n < MIN_ITEMS:
            assert np.isnan(low).all(), (name, n)
            continue
        assert one.low == pytest.approx(low[0]) and one.high == pytest.approx(high[0])
        printed = ~np.isnan(low)
        hit = (low <= truth) & (truth <= high)
        assert hit[printed].mean() >= NOMINAL - SLACK, (name, n, hit[printed].mean())


@pytest.mark.parametrize("p", [0.1, 0.3])
def test_a_share_of_0_1_values_gets_clopper_pearson_and_covers(p: float) -> None:
    """A measure's 0/1 items (``proportions=True``) get the exact binomial interval: scipy's
    own, never past 0 or 1, and covering at every n where one is printed."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(7)
    for n in SIZES:
        x = (rng.random((4000, n)) < p).astype(float)
        _, low, high = mean_intervals(x, proportions=True)
        printed = ~np.isnan(low)
        if n < MIN_ITEMS:
            assert not printed.any()
            continue
        assert (low[printed] >= 0).all() and (high[printed] <= 1).all()
        hit = (low <= p) & (p <= high)
        assert hit[printed].mean() >= NOMINAL - SLACK, (p, n, hit[printed].mean())
        k = int(x[0].sum())
        if 0 < k < n:
            exact = binomtest(k, n).proportion_ci(method="exact")
            assert (low[0], high[0]) == pytest.approx((exact.low, exact.high))
