"""A model's percentile among people: scipy's percentileofscore, and the interval against
its construction from scipy's t and exact binomial bounds (its coverage:
test_interval_coverage.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, percentileofscore

from creval.metrics.intervals import mean_interval
from creval.metrics.percentile import human_percentile, percentile_of_score


@pytest.mark.parametrize("kind", ["mean", "strict", "weak"])
def test_percentile_matches_scipy_with_ties(kind: str) -> None:
    rng = np.random.default_rng(1)
    people = rng.integers(50, 100, size=300).astype(float)  # many ties
    for score in [49.0, 50.0, 73.0, 73.5, 99.0, 120.0]:
        ours = percentile_of_score(people.tolist(), score, kind=kind)  # type: ignore[arg-type]
        assert ours == pytest.approx(percentileofscore(people, score, kind=kind))
    r = human_percentile([70.0, 76.0], people.tolist(), kind=kind)  # type: ignore[arg-type]
    assert r.percentile == pytest.approx(percentileofscore(people, 73.0, kind=kind))


def test_hand_example() -> None:
    # 5 people; the model's mean 78 is above 60, 70, 75: 3 of 5 = 60%.
    r = human_percentile([77.0, 79.0], [60.0, 70.0, 75.0, 80.0, 90.0])
    assert (r.mean, r.percentile, r.n_model, r.n_people) == (78.0, 60.0, 2, 5)


@pytest.mark.parametrize("kind", ["mean", "strict", "weak"])
def test_interval_matches_its_construction_with_scipy(kind: str) -> None:
    """The mean's interval at 1 - alpha/2 mapped through the people's shares (scipy's
    percentileofscore), each end widened by scipy's exact binomial bound at 1 - alpha/4."""
    rng = np.random.default_rng(7)
    people = np.round(rng.normal(78, 7, size=400), 0)  # ties
    model = rng.normal(80, 4, size=25)
    r = human_percentile(model.tolist(), people.tolist(), kind=kind)  # type: ignore[arg-type]
    m = mean_interval(model.tolist(), confidence=0.975)
    assert m.low is not None and m.high is not None
    n = len(people)
    k_low = math.floor(percentileofscore(people, m.low, kind=kind) * n / 100 + 1e-9)
    k_high = math.ceil(percentileofscore(people, m.high, kind=kind) * n / 100 - 1e-9)
    low = binomtest(k_low, n).proportion_ci(confidence_level=0.975, method="exact").low
    high = binomtest(k_high, n).proportion_ci(confidence_level=0.975, method="exact").high
    assert (r.low, r.high) == pytest.approx((100 * low, 100 * high), abs=1e-9)
    assert r.low < r.percentile < r.high


def test_too_few_trials_give_no_interval() -> None:
    people = list(np.linspace(60, 95, 200))
    for trials in ([80.0], [77.0, 77.99], [70.0 + i for i in range(9)]):
        r = human_percentile(trials, people)
        assert r.low is None and r.high is None
        assert r.reason == f"n={len(trials)}: too few trials for an interval (needs 10)"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"model": []}, "model must be a non-empty"),
    ({"model": [1.0, float("nan")]}, r"model\[1\] must be a finite number"),
    ({"people": ["a"]}, r"people\[0\] must be a finite number"),
    ({"kind": "rank"}, "kind must be"),
    ({"confidence": 1.0}, "confidence must be"),
    ({"min_items": 1}, "min_items must be"),
])
def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    args = {"model": [1.0], "people": [1.0, 2.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        human_percentile(args.pop("model"), args.pop("people"), **args)


def test_groups_resample_a_trial_with_its_repeats() -> None:
    """Two identical repeats per trial, taken as groups, give the interval of the trials alone;
    taken one by one they would look like twice the trials (narrower)."""
    from creval.metrics.percentile import human_percentile

    rng = __import__("numpy").random.default_rng(0)
    people = [float(v) for v in rng.normal(78, 6, 500)]
    trials = [float(v) for v in rng.normal(80, 4, 12)]
    doubled = [v for t in trials for v in (t, t)]
    alone = human_percentile(trials, people)
    grouped = human_percentile(doubled, people, groups=[i // 2 for i in range(24)])
    naive = human_percentile(doubled, people)
    assert (grouped.low, grouped.high) == (alone.low, alone.high)
    assert grouped.covers == "groups of trials and people" and grouped.n_groups == 12
    assert naive.high - naive.low < grouped.high - grouped.low
    few = human_percentile(doubled[:18], people, groups=[i // 2 for i in range(18)])
    assert few.low is None and few.reason == "n=9: too few trials for an interval (needs 10)"
    one = human_percentile([80.0], people)
    assert one.low is None and one.reason == "n=1: too few trials for an interval (needs 10)"
    with __import__("pytest").raises(ValueError, match="one label per model value"):
        human_percentile(trials, people, groups=[0, 1])
