"""The random-word control and norms by group, against independent computations (scipy,
pandas-free brute force)."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from creval.metrics.chance import (
    chance_placement,
    draw_random_lists,
    group_norms,
    place_in_groups,
)


def test_random_lists_are_seeded_distinct_and_uniform() -> None:
    vocabulary = [f"w{i}" for i in range(20)]
    lists = draw_random_lists(vocabulary, lists=4000, words=5, seed=7)
    assert lists == draw_random_lists(vocabulary, lists=4000, words=5, seed=7)
    assert lists != draw_random_lists(vocabulary, lists=4000, words=5, seed=8)
    assert all(len(set(x)) == 5 and set(x) <= set(vocabulary) for x in lists)
    # each word is expected in 4000 * 5 / 20 = 1000 lists: a chi-square test of uniformity
    counts = Counter(w for x in lists for w in x)
    assert stats.chisquare([counts[w] for w in vocabulary]).pvalue > 0.001
    # duplicates in the vocabulary do not weigh a word twice
    assert draw_random_lists(["a", "a", "b"], lists=1, words=2, seed=0)[0] in (("a", "b"), ("b", "a"))


@pytest.mark.parametrize("bad", [{"lists": 0}, {"words": 0}, {"seed": 1.5}, {"words": 30}])
def test_random_lists_refuse_bad_counts(bad: dict[str, object]) -> None:
    kwargs = {"lists": 2, "words": 3, "seed": 0, **bad}
    with pytest.raises(ValueError):
        draw_random_lists([f"w{i}" for i in range(10)], **kwargs)  # type: ignore[arg-type]


def test_chance_placement_matches_scipy() -> None:
    rng = np.random.default_rng(3)
    random_scores = list(rng.normal(90.0, 3.6, 500))
    model = list(rng.normal(88.0, 4.0, 40))
    p = chance_placement(model, random_scores)
    mean = float(np.mean(model))
    assert p.mean_model == pytest.approx(mean)
    assert p.percentile == pytest.approx(stats.percentileofscore(random_scores, mean, kind="mean"))
    assert p.mean_random == pytest.approx(float(np.mean(random_scores)))
    assert p.sd_random == pytest.approx(float(np.std(random_scores, ddof=1)))
    assert p.difference == pytest.approx(mean - float(np.mean(random_scores)))
    # the difference's interval is close to Welch's (Hall's correction moves it a little)
    welch = stats.ttest_ind(model, random_scores, equal_var=False).confidence_interval(0.95)
    assert p.difference_low == pytest.approx(welch.low, abs=0.1)
    assert p.difference_high == pytest.approx(welch.high, abs=0.1)
    assert p.low is not None and p.high is not None and p.low < p.percentile < p.high


def test_norms_by_group_match_brute_force() -> None:
    rnd = random.Random(5)
    labels = [rnd.choice(["20s", "30s", "40s", None]) for _ in range(300)]
    scores = [rnd.gauss(81.0, 7.0) for _ in labels]
    norms = {g.group: g for g in group_norms(scores, labels)}
    assert set(norms) == {"20s", "30s", "40s"}
    for label, g in norms.items():
        values = [s for s, lab in zip(scores, labels, strict=True) if lab == label]
        mean = sum(values) / len(values)
        assert g.n == len(values) and g.mean == pytest.approx(mean)
        assert g.sd == pytest.approx(math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)))
    placed = place_in_groups(81.0, scores, labels)
    for label, pct in placed.items():
        values = [s for s, lab in zip(scores, labels, strict=True) if lab == label]
        below = sum(v < 81.0 for v in values) + 0.5 * sum(v == 81.0 for v in values)
        assert pct == pytest.approx(100.0 * below / len(values))
    assert group_norms(scores, labels, min_people=1000) == []
    with pytest.raises(ValueError, match="differ in length"):
        group_norms([1.0], ["a", "b"])
