"""The unpaired comparison against scipy and brute force."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from creval.metrics.unpaired import permutation_p, unpaired_difference


def _brute_p(a: list[float], b: list[float]) -> float:
    """Every relabelling of the pooled values into groups of len(a) and len(b)."""
    pooled = a + b
    observed = abs(np.mean(a) - np.mean(b))
    hits = total = 0
    for chosen in combinations(range(len(pooled)), len(a)):
        x = [pooled[i] for i in chosen]
        y = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        hits += abs(np.mean(x) - np.mean(y)) >= observed - 1e-9
        total += 1
    return hits / total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_p_is_the_brute_force_share(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = [float(v) for v in rng.normal(0.5, 1.0, 6).round(2)]
    b = [float(v) for v in rng.normal(0.0, 1.0, 7).round(2)]
    assert permutation_p(a, b) == pytest.approx(_brute_p(a, b))


def test_exact_p_matches_scipy_for_a_symmetric_split() -> None:
    """Equal group sizes make the null distribution of the difference symmetric, so scipy's
    two-sided p (twice the smaller tail) is the share reaching |d|."""
    a, b = [3.1, 4.2, 5.0, 2.2, 4.4], [1.0, 2.5, 2.9, 1.7, 3.3]
    ref = stats.permutation_test((a, b), lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                                 permutation_type="independent", n_resamples=np.inf,
                                 alternative="two-sided", vectorized=True)
    assert permutation_p(a, b) == pytest.approx(ref.pvalue)


def test_monte_carlo_p_is_close_to_the_exact_one() -> None:
    rng = np.random.default_rng(5)
    a = [float(v) for v in rng.normal(0.4, 1.0, 9)]
    b = [float(v) for v in rng.normal(0.0, 1.0, 8)]
    exact = permutation_p(a, b, exact_max=10**6)
    sampled = permutation_p(a, b, exact_max=1, resamples=20000, seed=3)
    assert sampled == pytest.approx(exact, abs=0.015)
    # a small group among many is drawn index by index: the same p
    many = [float(v) for v in rng.normal(0.0, 1.0, 400)]
    few = [float(v) for v in rng.normal(0.3, 1.0, 10)]
    mc = permutation_p(few, many, resamples=4000)
    t = stats.ttest_ind(few, many).pvalue
    assert abs(mc - t) < 0.05


def test_interval_is_welch_on_symmetric_data_and_absent_below_30_a_side() -> None:
    """Symmetric groups (no skewness) give Welch's t interval exactly (scipy); skewed ones
    are shifted by Hall's correction; below 30 values a side there is no interval."""
    a = [float(v) for v in (np.arange(36) % 9)]  # 0-8 four times: symmetric about 4
    b = [float(v) for v in (np.arange(30) % 5)]  # 0-4 six times: symmetric about 2
    ours = unpaired_difference(a, b)
    ref = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert ours.difference == pytest.approx(np.mean(a) - np.mean(b))
    assert (ours.low, ours.high) == pytest.approx((ref.low, ref.high), rel=1e-9)
    rng = np.random.default_rng(1)
    skewed = unpaired_difference(rng.exponential(1, 40).tolist(), rng.exponential(1, 35).tolist())
    assert skewed.low is not None and skewed.high is not None
    assert skewed.low < skewed.difference < skewed.high
    few = unpaired_difference(a[:29], b)
    assert few.low is None and few.reason == "n=29: too few items for an interval (needs 30)"


def test_bad_input_says_what_to_fix() -> None:
    with pytest.raises(ValueError, match="b is empty"):
        unpaired_difference([1.0], [])
    with pytest.raises(ValueError, match=r"a\[1\] must be a finite number"):
        permutation_p([1.0, float("nan")], [2.0])
    with pytest.raises(ValueError, match="confidence"):
        unpaired_difference([1.0], [2.0], confidence=1.5)


def test_random_subsets_are_uniform() -> None:
    """Both ways of drawing a random group give every member the same chance, k / n."""
    from creval.metrics.unpaired import _subsets

    rng = np.random.default_rng(0)
    for n, k in ((50, 3), (10, 6)):
        picks = _subsets(rng, n, k, 20000)
        assert all(len(set(row)) == k for row in picks[:500].tolist())
        counts = np.bincount(picks.ravel(), minlength=n) / 20000
        assert np.allclose(counts, k / n, atol=0.02)
