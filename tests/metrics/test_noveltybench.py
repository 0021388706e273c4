"""NoveltyBench's distinct and utility, by hand, against numpy and against the paper's stored
per-prompt values (the site's ``scores.jsonl``, read in place)."""

from __future__ import annotations

import bisect
import itertools
import json

import numpy as np
import pytest

from creval.metrics.noveltybench import (
    REWARD_THRESHOLDS,
    check_partition,
    distinct_classes,
    founders,
    paper_distinct,
    reward_to_rating,
    utility,
)
from tests.tests_paths import shared_data_path


def test_hand_calculation() -> None:
    # classes (0, 1, 0, 2): founders 0, 1, 3 rated 9, 5, 2; weights 1, .8, .64, .512
    value = utility([0, 1, 0, 2], [9, 5, 7, 2])
    assert value == pytest.approx((9 + 0.8 * 5 + 0.512 * 2) / (1 + 0.8 + 0.64 + 0.512))
    assert distinct_classes([0, 1, 0, 2]) == 3 and paper_distinct([0, 1, 0, 2]) == 2


def test_against_numpy_on_every_small_partition() -> None:
    """Every canonical partition of 5 answers (restricted growth strings), brute force."""
    rng = np.random.default_rng(0)
    count = 0
    for ids in itertools.product(range(5), repeat=5):
        try:
            check_partition(list(ids))
        except ValueError:
            continue
        count += 1
        ratings = [int(r) for r in rng.integers(1, 11, size=5)]
        seen: set[int] = set()
        scores = []
        for c, r in zip(ids, ratings, strict=True):
            scores.append(r if c not in seen else 0)
            seen.add(c)
        expected = np.average(scores, weights=0.8 ** np.arange(5))
        assert utility(list(ids), ratings) == pytest.approx(expected)
        assert distinct_classes(list(ids)) == len(set(ids))
        assert founders(list(ids)) == [s != 0 for s in scores]
    assert count == 52  # the Bell number B5


def test_reward_map_matches_bisect() -> None:
    for reward in [-10.0, *REWARD_THRESHOLDS, *(t + 1e-6 for t in REWARD_THRESHOLDS), 3.0]:
        assert reward_to_rating(reward) == bisect.bisect_left(list(REWARD_THRESHOLDS), reward) + 1
    assert reward_to_rating(-2.0) == 10


@pytest.mark.parametrize("bad", [[1, 0], [0, 2], [], [0, -1], "01"])
def test_bad_partitions(bad: object) -> None:
    with pytest.raises(ValueError, match="partition"):
        distinct_classes(bad)  # type: ignore[arg-type]


def test_bad_ratings_and_patience() -> None:
    with pytest.raises(ValueError, match="one rating per answer"):
        utility([0, 1], [3])
    with pytest.raises(ValueError, match=r"ratings\[1\]"):
        utility([0, 1], [3, None])
    with pytest.raises(ValueError, match="patience"):
        utility([0], [3], patience=0)


def test_published_values_are_reproduced() -> None:
    """GPT-4o's stored distinct (max index) and utility, from its partitions and scores."""
    path = shared_data_path("noveltybench", "site", "eval", "03-27-2025", "curated", "openai",
                            "gpt-4o-2024-11-20", "scores.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        part = row["partition"]
        assert paper_distinct(part) == row["distinct"]
        assert distinct_classes(part) == row["distinct"] + 1
        assert utility(part, row["generation_scores"]) == pytest.approx(row["utility"], abs=1e-12)
