"""creval.metrics.correlation against scipy and a brute-force paired bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from creval.metrics.correlation import correlation_difference, correlation_interval, zou_interval


def _data(n: int = 300, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    a = 0.7 * y + rng.normal(scale=0.7, size=n)  # r about 0.7
    b = 0.4 * y + 0.3 * a + rng.normal(scale=0.9, size=n)  # correlated with a as well
    return y, a, b


def test_pearson_interval_is_scipys_fisher_interval() -> None:
    y, a, _ = _data()
    ours = correlation_interval(a.tolist(), y.tolist())
    ref = stats.pearsonr(a, y)
    ci = ref.confidence_interval(0.95)
    assert ours.r == pytest.approx(ref.statistic, abs=1e-12)
    assert (ours.low, ours.high) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_spearman_uses_ranks_and_bonett_wright_se() -> None:
    y, a, _ = _data(n=120)
    ours = correlation_interval(a.tolist(), y.tolist(), method="spearman")
    rho = stats.spearmanr(a, y).statistic
    se = math.sqrt((1 + rho ** 2 / 2) / (120 - 3))  # by hand
    assert ours.r == pytest.approx(rho, abs=1e-12)
    assert ours.low == pytest.approx(math.tanh(math.atanh(rho) - 1.959963984540054 * se), abs=1e-9)


def test_zou_matches_the_papers_example() -> None:
    low, high = zou_interval(0.396, 0.179, 0.088, 66)
    assert (round(low, 3), round(high, 3)) == (-0.093, 0.517)


def test_difference_agrees_with_a_paired_bootstrap_over_responses() -> None:
    y, a, b = _data(n=400, seed=3)
    ours = correlation_difference(y.tolist(), a.tolist(), b.tolist())
    rng = np.random.default_rng(0)
    diffs = []
    for _ in range(4000):  # resample the same responses for both scorers (paired)
        i = rng.integers(0, len(y), len(y))
        diffs.append(np.corrcoef(y[i], a[i])[0, 1] - np.corrcoef(y[i], b[i])[0, 1])
    low, high = np.percentile(diffs, [2.5, 97.5])
    assert ours.difference == pytest.approx(stats.pearsonr(y, a)[0] - stats.pearsonr(y, b)[0])
    assert ours.low == pytest.approx(low, abs=0.02) and ours.high == pytest.approx(high, abs=0.02)
    assert ours.differs


def test_too_few_and_bad_input() -> None:
    d = correlation_difference([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], [2, 1, 3, 4, 5])
    assert d.low is None and d.reason == "n=5: too few pairs for an interval (needs 10)"
    with pytest.raises(ValueError, match=r"x\[1\] must be a finite number"):
        correlation_interval([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(ValueError, match="same length"):
        correlation_interval([1.0, 2.0], [1.0])
