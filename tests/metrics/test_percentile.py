"""A model's percentile among people: scipy's percentileofscore, and the bootstrap interval
against resampling the people one by one and against an exact enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import percentileofscore

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


def _exact_distribution(model: list[float], people: list[float], kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Every equally likely bootstrap draw of model trials and people: values and weights."""
    values = []
    for trials in itertools.product(model, repeat=len(model)):
        mean = float(np.mean(trials))
        for drawn in itertools.product(people, repeat=len(people)):
            values.append(percentileofscore(drawn, mean, kind=kind))
    return np.asarray(values), np.full(len(values), 1.0 / len(values))


def _quantile(values: np.ndarray, q: float) -> float:
    return float(np.quantile(values, q))


@pytest.mark.parametrize("kind", ["mean", "strict"])
def test_interval_matches_exact_enumeration(kind: str) -> None:
    model, people = [70.0, 80.0], [65.0, 70.0, 75.0, 75.0, 90.0]  # ties with a trial and a mean
    exact, _ = _exact_distribution(model, people, kind)  # 2^2 * 5^5 = 12,500 draws
    r = human_percentile(model, people, kind=kind, resamples=40000, seed=3)  # type: ignore[arg-type]
    step = 100 / len(people) / 2  # the percentile lives on a lattice of half-steps
    assert r.low == pytest.approx(_quantile(exact, 0.025), abs=step)
    assert r.high == pytest.approx(_quantile(exact, 0.975), abs=step)


def test_interval_matches_resampling_people_one_by_one() -> None:
    rng = np.random.default_rng(7)
    people = np.round(rng.normal(78, 7, size=400), 1)
    model = rng.normal(82, 4, size=30)
    r = human_percentile(model.tolist(), people.tolist(), resamples=4000, seed=11)
    brute = []
    for _ in range(4000):
        mean = rng.choice(model, size=len(model)).mean()
        brute.append(percentileofscore(rng.choice(people, size=len(people)), mean, kind="mean"))
    low, high = np.quantile(brute, [0.025, 0.975])
    assert r.low == pytest.approx(low, abs=1.5) and r.high == pytest.approx(high, abs=1.5)
    assert r.low < r.percentile < r.high


def test_one_trial_still_varies_with_the_people_and_is_seeded() -> None:
    people = list(np.linspace(60, 95, 200))
    a = human_percentile([80.0], people, seed=5)
    assert a.low < a.percentile < a.high
    assert a == human_percentile([80.0], people, seed=5)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"model": []}, "model must be a non-empty"),
    ({"model": [1.0, float("nan")]}, r"model\[1\] must be a finite number"),
    ({"people": ["a"]}, r"people\[0\] must be a finite number"),
    ({"kind": "rank"}, "kind must be"),
    ({"confidence": 1.0}, "confidence must be"),
    ({"resamples": 0}, "resamples must be"),
])
def test_bad_arguments_are_named(kwargs: dict, message: str) -> None:
    args = {"model": [1.0], "people": [1.0, 2.0], **kwargs}
    with pytest.raises(ValueError, match=message):
        human_percentile(args.pop("model"), args.pop("people"), **args)


def test_groups_resample_a_trial_with_its_repeats() -> None:
    """Two identical repeats per trial, resampled as groups, give the interval of the trials
    alone; resampled one by one they would look like twice the trials (narrower)."""
    from creval.metrics.percentile import human_percentile

    rng = __import__("numpy").random.default_rng(0)
    people = [float(v) for v in rng.normal(78, 6, 500)]
    trials = [float(v) for v in rng.normal(80, 4, 12)]
    doubled = [v for t in trials for v in (t, t)]
    alone = human_percentile(trials, people, seed=3)
    grouped = human_percentile(doubled, people, seed=3, groups=[i // 2 for i in range(24)])
    naive = human_percentile(doubled, people, seed=3)
    assert (grouped.low, grouped.high) == (alone.low, alone.high)
    assert grouped.covers == "groups of trials and people" and grouped.n_groups == 12
    assert naive.high - naive.low < grouped.high - grouped.low
    one = human_percentile([80.0], people)
    assert one.covers == "people only"
    with __import__("pytest").raises(ValueError, match="one label per model value"):
        human_percentile(trials, people, groups=[0, 1])
