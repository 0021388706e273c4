"""Paired difference, sign-flip p-value, Holm and the minimum detectable difference, each held
against an independent computation: brute-force enumeration, scipy and statsmodels."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from creval.metrics.paired import (
    holm,
    min_detectable_difference,
    paired_difference,
    sign_flip_p,
)


def brute_sign_flip(d: list[float]) -> float:
    """Every sign assignment, one by one: the share whose |mean| reaches the observed one."""
    observed = abs(sum(d) / len(d))
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        total += 1
        hits += abs(sum(s * x for s, x in zip(signs, d, strict=True)) / len(d)) >= observed - 1e-12
    return hits / total


@pytest.mark.parametrize("seed", range(5))
def test_exact_sign_flip_equals_enumeration_and_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 6, size=9).astype(float).tolist()
    b = rng.integers(1, 6, size=9).astype(float).tolist()
    d = [x - y for x, y in zip(a, b, strict=True)]
    p = sign_flip_p(a, b)
    assert p == pytest.approx(brute_sign_flip(d), abs=1e-12)
    if any(d):  # scipy's two-sided p is 2 min(P(T <= t), P(T >= t)): the same for this symmetric null
        ref = stats.permutation_test((np.array(a), np.array(b)), lambda x, y: np.mean(x - y),
                                     permutation_type="samples", n_resamples=10**6)
        assert p == pytest.approx(ref.pvalue, abs=1e-9)


def test_hand_calculation_and_no_difference() -> None:
    # d = 1, 1, 1: only all-plus and all-minus reach |mean| 1: 2 of 8.
    assert sign_flip_p([2.0, 3.0, 4.0], [1.0, 2.0, 3.0]) == 0.25
    assert sign_flip_p([0.3] * 40, [0.3] * 40) == 1.0  # Monte Carlo: every flip reaches 0
    # n = 5 identical positive differences: 2 / 32, the smallest p five items can give
    assert sign_flip_p([1.0] * 5, [0.0] * 5) == pytest.approx(1 / 16)


def test_monte_carlo_is_seeded_and_close_to_exact() -> None:
    rng = np.random.default_rng(7)
    d = rng.normal(0.25, 1.0, size=18).round(3).tolist()
    zeros = [0.0] * 18
    exact = sign_flip_p(d, zeros, exact_max=18)
    approx = sign_flip_p(d, zeros, exact_max=10, resamples=20000, seed=3)
    assert approx == sign_flip_p(d, zeros, exact_max=10, resamples=20000, seed=3)
    assert approx == pytest.approx(exact, abs=0.01)
    assert 0 < approx <= 1


def test_holm_matches_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(1)
    for m in (1, 2, 5, 23):
        ps = (rng.uniform(0, 0.2, size=m) ** 2).tolist()
        ps[0] = ps[-1]  # a tie
        ref = multipletests(ps, alpha=0.05, method="holm")[1]
        assert holm(ps) == pytest.approx(list(ref), abs=1e-15)
    # hand: sorted 0.01, 0.03, 0.04 -> 3 x 0.01, max(0.03, 2 x 0.03), max(0.06, 0.04)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.9, 0.8]) == [1.0, 1.0]


@pytest.mark.parametrize(("sd", "n"), [(1.0, 2), (0.7, 10), (2.5, 50), (1.0, 700)])
def test_mdd_matches_statsmodels_power(sd: float, n: int) -> None:
    from statsmodels.stats.power import TTestPower

    effect = TTestPower().solve_power(effect_size=None, nobs=n, alpha=0.05, power=0.8,
                                      alternative="two-sided")
    assert min_detectable_difference(sd=sd, n=n) == pytest.approx(effect * sd, rel=1e-5)


def test_mdd_by_simulation() -> None:
    """Differences with mean = the mdd are detected by a paired t-test about 80% of the time."""
    sd, n = 1.3, 25
    mdd = min_detectable_difference(sd=sd, n=n)
    rng = np.random.default_rng(11)
    draws = rng.normal(mdd, sd, size=(4000, n))
    rejected = stats.ttest_1samp(draws, 0.0, axis=1).pvalue < 0.05
    assert rejected.mean() == pytest.approx(0.8, abs=0.025)
    # the normal approximation 2.8 sd / sqrt(n) is a little smaller for small n
    assert 2.8 * sd / math.sqrt(n) < mdd < 3.1 * sd / math.sqrt(n)


def test_paired_difference_interval() -> None:
    rng = np.random.default_rng(5)
    b = rng.normal(3.0, 0.5, size=400)
    a = b + rng.normal(0.2, 0.4, size=400)
    r = paired_difference(a.tolist(), b.tolist())
    d = a - b
    assert r.n == 400 and r.difference == pytest.approx(d.mean())
    assert r.sd == pytest.approx(d.std(ddof=1))
    # near-symmetric differences: Hall's correction is tiny, the t interval of scipy
    ref = stats.t.interval(0.95, 399, loc=d.mean(), scale=stats.sem(d))
    assert (r.low, r.high) == pytest.approx(ref, abs=0.002)


def test_paired_difference_symmetric_is_exactly_the_t_interval() -> None:
    d = [-2.0, -1.0, 0.0, 1.0, 2.0] * 2 + [0.5, -0.5]  # skewness exactly 0
    r = paired_difference([x + 3 for x in d], [3.0] * len(d))
    ref = stats.t.interval(0.95, len(d) - 1, loc=np.mean(d), scale=stats.sem(d))
    assert (r.low, r.high) == pytest.approx(ref, rel=1e-12)


def test_paired_difference_too_few_pairs_or_nothing_varied() -> None:
    r = paired_difference([1.0, 2.0, 4.0], [1.0, 1.0, 1.0])
    assert r.difference == pytest.approx(4 / 3) and r.low is None and r.high is None
    assert r.reason == "n=3: too few pairs for an interval (needs 10)"
    same = paired_difference([2.0] * 12, [1.0] * 12)
    assert same.low is None and same.reason == "all 12 differences are equal: nothing varied, no interval"


@pytest.mark.parametrize(("call", "message"), [
    (lambda: paired_difference([1.0], [1.0, 2.0]), "1 values in a, 2 in b"),
    (lambda: paired_difference([], []), "empty"),
    (lambda: paired_difference([1.0, float("nan")], [1.0, 2.0]), r"a\[1\]"),
    (lambda: paired_difference([1.0], [1.0], confidence=1.0), "confidence"),
    (lambda: sign_flip_p([1.0], [True], seed=0), r"b\[0\]"),  # type: ignore[list-item]
    (lambda: sign_flip_p([1.0], [1.0], exact_max=30), "exact_max"),
    (lambda: sign_flip_p([1.0], [1.0], resamples=0), "resamples"),
    (lambda: holm([0.5, 1.5]), r"pvalues\[1\]"),
    (lambda: min_detectable_difference(sd=-1.0, n=5), "sd"),
    (lambda: min_detectable_difference(sd=1.0, n=0), "n must"),
    (lambda: min_detectable_difference(sd=1.0, n=5, power=1.0), "power"),
])
def test_bad_input_names_the_argument(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_hoeffding_shortcut_is_never_below_the_exact_p() -> None:
    """For a large difference the flips cannot resolve, the bound is returned: check on data
    small enough to enumerate that it is at least the exact p, and that it is returned."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        d = rng.normal(0.8, 1.0, size=14)
        exact = brute_sign_flip(d.tolist())
        bound = min(1.0, 2 * math.exp(-(d.sum() ** 2) / (2 * np.sum(d * d))))
        assert bound >= exact
    d = [1.0 + 0.01 * i for i in range(40)]  # 40 items all the same way: exact p = 2 / 2**40
    p = sign_flip_p(d, [0.0] * 40, resamples=1000)
    assert 2 / 2**40 <= p < 1 / 1001
    assert p == pytest.approx(2 * math.exp(-sum(d) ** 2 / (2 * sum(x * x for x in d))))
