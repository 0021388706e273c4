"""The variance split, held against known components (simulation), statsmodels' REML fit of
the same nested random-effects model, and hand calculations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from creval.metrics.variance import (
    VarianceSplit,
    bootstrap_split,
    noise_floor,
    retest_reliability,
    variance_components,
)


def simulate(rng: np.random.Generator, *, items: int, samples: list[int] | int, judgements: int,
             sd: tuple[float, float, float]) -> tuple[list[float], list[int], list[int]]:
    """y = a_i + b_ij + e_ijk with the given standard deviations."""
    values, item_ids, sample_ids = [], [], []
    for i in range(items):
        a = rng.normal(0, sd[0])
        count = samples if isinstance(samples, int) else samples[i % len(samples)]
        for j in range(count):
            b = rng.normal(0, sd[1])
            for _ in range(judgements if j else 1 if isinstance(samples, list) else judgements):
                values.append(10 + a + b + rng.normal(0, sd[2]))
                item_ids.append(i)
                sample_ids.append(j)
    return values, item_ids, sample_ids


def test_simulated_components_are_recovered() -> None:
    # 600 items x 4 samples x 2 judgements, components 4, 1 and 0.25: the estimator's standard
    # errors here are about 0.26, 0.05 and 0.009, so these bounds are 2-3 of them wide
    rng = np.random.default_rng(7)
    values, items, samples = simulate(rng, items=600, samples=4, judgements=2, sd=(2.0, 1.0, 0.5))
    split = variance_components(values, items=items, samples=samples)
    assert split.items == pytest.approx(4.0, abs=0.6)
    assert split.samples == pytest.approx(1.0, abs=0.15)
    assert split.judge == pytest.approx(0.25, abs=0.03)
    shares = split.shares()
    assert shares["items"] == pytest.approx(4 / 5.25, abs=0.04)
    assert split.reliability == shares["items"]
    assert sum(v for v in shares.values() if v is not None) == pytest.approx(1.0)


def test_simulated_unbalanced_design_is_recovered() -> None:
    # the shape of a rubric run with repeats: the first sample judged once, later ones twice,
    # and items with different numbers of samples
    rng = np.random.default_rng(11)
    values, items, samples = simulate(rng, items=500, samples=[2, 3, 5], judgements=2,
                                      sd=(1.0, 1.5, 1.0))
    split = variance_components(values, items=items, samples=samples)
    assert split.items == pytest.approx(1.0, abs=0.3)
    assert split.samples == pytest.approx(2.25, abs=0.35)
    assert split.judge == pytest.approx(1.0, abs=0.12)


def _statsmodels_fit(values: list[float], items: list[int], samples: list[int]) -> tuple[float, float, float]:
    pd = pytest.importorskip("pandas")
    smf = pytest.importorskip("statsmodels.formula.api")
    frame = pd.DataFrame({"y": values, "item": items, "sample": samples})
    model = smf.mixedlm("y ~ 1", frame, groups="item", re_formula="1",
                        vc_formula={"sample": "0 + C(sample)"})
    fit = model.fit(reml=True, method=["lbfgs", "powell"])
    return float(fit.cov_re.iloc[0, 0]), float(fit.vcomp[0]), float(fit.scale)


def test_balanced_split_equals_statsmodels_reml() -> None:
    # on balanced data with positive estimates, ANOVA and REML are the same estimator
    rng = np.random.default_rng(3)
    values, items, samples = simulate(rng, items=40, samples=3, judgements=2, sd=(1.5, 1.0, 0.7))
    split = variance_components(values, items=items, samples=samples)
    assert not split.truncated
    items_var, samples_var, judge_var = _statsmodels_fit(values, items, samples)
    assert split.items == pytest.approx(items_var, rel=2e-3)
    assert split.samples == pytest.approx(samples_var, rel=2e-3)
    assert split.judge == pytest.approx(judge_var, rel=2e-3)


def test_unbalanced_split_is_close_to_statsmodels_reml() -> None:
    # unbalanced, the two estimators differ a little; both estimate the same components
    rng = np.random.default_rng(5)
    values, items, samples = simulate(rng, items=80, samples=[2, 3], judgements=2,
                                      sd=(1.5, 1.0, 0.7))
    split = variance_components(values, items=items, samples=samples)
    items_var, samples_var, judge_var = _statsmodels_fit(values, items, samples)
    assert split.items == pytest.approx(items_var, rel=0.1)
    assert split.samples == pytest.approx(samples_var, rel=0.15)
    assert split.judge == pytest.approx(judge_var, rel=0.1)


def test_two_levels_is_the_one_way_anova_icc() -> None:
    # k values per item: ICC(1) = (MSB - MSW) / (MSB + (k - 1) MSW), by hand with scipy's F
    rng = np.random.default_rng(1)
    groups = [rng.normal(rng.normal(0, 1), 0.8, size=3) for _ in range(25)]
    values = [float(v) for g in groups for v in g]
    items = [i for i, g in enumerate(groups) for _ in g]
    split = variance_components(values, items=items)
    f, _ = stats.f_oneway(*groups)
    grand = np.mean(values)
    msb = sum(3 * (g.mean() - grand) ** 2 for g in groups) / 24
    msw = msb / f
    assert split.judge is None and split.samples == pytest.approx(msw)
    assert split.reliability == pytest.approx((msb - msw) / (msb + 2 * msw))


def test_one_sample_per_item_judged_twice_is_items_and_judge() -> None:
    split = variance_components([1.0, 1.2, 5.0, 5.4, 3.0, 2.8], items=[0, 0, 1, 1, 2, 2],
                                samples=[0, 0, 0, 0, 0, 0])
    assert split.samples is None and split.judge is not None
    assert split.judge == pytest.approx((0.02 + 0.08 + 0.02) / 3)  # pairs: 2 x 0.1^2, 2 x 0.2^2, 2 x 0.1^2


def test_negative_estimates_are_truncated_and_named() -> None:
    # item means equal: the items' estimate is negative
    split = variance_components([1.0, 3.0, 3.0, 1.0], items=["a", "a", "b", "b"])
    assert split.items == 0.0 and split.truncated == ("items",)
    assert split.reliability == 0.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"values": [1.0, 2.0], "items": [0]}, "items has 1 labels"),
        ({"values": [1.0, 2.0], "items": [0, 0]}, "at least two items"),
        ({"values": [1.0, 2.0], "items": [0, 1]}, "every item has one value"),
        ({"values": [1.0, float("nan")], "items": [0, 1]}, "values[1]"),
        ({"values": [1.0, "x"], "items": [0, 1]}, "values[1] must be a number"),
        ({"values": [1.0, 2.0, 3.0], "items": [0, 0, 1], "samples": [0]}, "samples has 1"),
    ],
)
def test_bad_input_names_the_argument(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        variance_components(kwargs.pop("values"), **kwargs)
    assert message in str(caught.value)


def test_noise_floor_holds_the_rerun_differences_at_95_percent() -> None:
    # two one-draw runs over the same 50 items: |mean difference| < floor in ~95% of 4000 pairs
    rng = np.random.default_rng(2)
    split = VarianceSplit(items=4.0, samples=1.5, judge=0.5, n_items=50, n_samples=100, n_values=150)
    floor = noise_floor(split, n_items=50)
    item_means = rng.normal(0, 2, size=50)
    def run() -> np.ndarray:
        noise = rng.normal(0, math.sqrt(1.5), size=(4000, 50)) + rng.normal(0, math.sqrt(0.5), size=(4000, 50))
        return (item_means + noise).mean(axis=1)
    inside = np.mean(np.abs(run() - run()) < floor)
    assert inside == pytest.approx(0.95, abs=0.015)
    with pytest.raises(ValueError, match="n_items"):
        noise_floor(split, n_items=0)


def test_retest_matches_scipy_pearson_and_its_interval() -> None:
    rng = np.random.default_rng(4)
    first = rng.normal(80, 6, size=50)
    second = first + rng.normal(0, 4, size=50)
    result = retest_reliability(list(first), list(second))
    reference = stats.pearsonr(first, second)
    interval = reference.confidence_interval(0.95)  # Fisher's z, as ours
    assert result.r == pytest.approx(reference.statistic)
    assert (result.low, result.high) == pytest.approx((interval.low, interval.high))
    assert result.within_sd == pytest.approx(np.std(second - first, ddof=1) / math.sqrt(2))
    with pytest.raises(ValueError, match="pair them"):
        retest_reliability([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    few = retest_reliability(list(first[:9]), list(second[:9]))  # below the interval's minimum
    assert few.low is None and few.high is None and few.r == pytest.approx(stats.pearsonr(first[:9], second[:9])[0])


def test_bootstrap_interval_of_the_reliability_is_near_the_exact_f_interval() -> None:
    # balanced one-way data: ICC(1)'s exact interval from the F distribution (Shrout and
    # Fleiss 1979), by scipy, against the items bootstrap
    rng = np.random.default_rng(9)
    n, k = 60, 3
    groups = [rng.normal(rng.normal(0, 1.0), 1.0, size=k) for _ in range(n)]
    values = [float(v) for g in groups for v in g]
    items = [i for i in range(n) for _ in range(k)]
    f_value, _ = stats.f_oneway(*groups)
    df1, df2 = n - 1, n * (k - 1)
    f_low = f_value / stats.f.ppf(0.975, df1, df2)
    f_high = f_value * stats.f.ppf(0.975, df2, df1)
    exact = ((f_low - 1) / (f_low + k - 1), (f_high - 1) / (f_high + k - 1))
    interval = bootstrap_split(values, items=items, resamples=2000, seed=1)
    assert interval["judge"] is None
    low, high = interval["reliability"]  # type: ignore[misc]
    assert low == pytest.approx(exact[0], abs=0.06) and high == pytest.approx(exact[1], abs=0.06)
    assert interval["items"] == interval["reliability"]
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_split(values, items=items, resamples=3)
