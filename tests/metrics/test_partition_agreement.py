"""Partition agreement (adjusted Rand index, distinct-count error) against scikit-learn and
against a brute-force count over every pair of answers."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest

from creval.metrics.intervals import mean_interval
from creval.metrics.partition_agreement import (
    adjusted_rand_index,
    distinct_error,
    pair_confusion,
    partition_agreement,
)


def brute_force_ari(a: list[int], b: list[int]) -> float:
    """Hubert and Arabie's index from the pair counts, enumerating every pair."""
    n = len(a)
    pairs = list(itertools.combinations(range(n), 2))
    both = sum(a[i] == a[j] and b[i] == b[j] for i, j in pairs)
    in_a = sum(a[i] == a[j] for i, j in pairs)
    in_b = sum(b[i] == b[j] for i, j in pairs)
    total = comb(n, 2)
    expected = in_a * in_b / total if total else 0.0
    maximum = (in_a + in_b) / 2
    if maximum == expected:
        return 1.0
    return (both - expected) / (maximum - expected)


def random_partition(rng: random.Random, n: int) -> list[int]:
    k = rng.randint(1, n)
    return [rng.randrange(k) for _ in range(n)]


def test_hand_worked_example() -> None:
    # ours {0,1}{2,3}, published {0,1}{2}{3}: tp=1, fp=1, fn=0, tn=4 -> 2*4 / (1*4 + 2*5) = 4/7
    assert pair_confusion([0, 0, 1, 1], [0, 0, 1, 2]) == (1, 1, 0, 4)
    assert adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 2]) == pytest.approx(4 / 7)
    assert distinct_error([0, 0, 1, 1], [0, 0, 1, 2]) == -1


def test_matches_sklearn_and_brute_force_on_random_partitions() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 12)
        a, b = random_partition(rng, n), random_partition(rng, n)
        ours = adjusted_rand_index(a, b)
        assert ours == pytest.approx(sklearn_metrics.adjusted_rand_score(b, a), abs=1e-12)
        assert ours == pytest.approx(brute_force_ari(a, b), abs=1e-12)
        assert ours == pytest.approx(adjusted_rand_index(b, a), abs=1e-12)


def test_degenerate_partitions_follow_sklearn() -> None:
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    singletons, merged_pair, one_class = list(range(10)), [0, 0] + list(range(1, 9)), [0] * 10
    for a, b in [(singletons, singletons), (singletons, merged_pair), (one_class, one_class),
                 (one_class, singletons), ([3], [4])]:
        assert adjusted_rand_index(a, b) == pytest.approx(sklearn_metrics.adjusted_rand_score(b, a))
    assert adjusted_rand_index(merged_pair, singletons) == 0.0  # one merge of ten: ARI 0


def test_labels_are_names_not_numbers() -> None:
    assert adjusted_rand_index(["x", "x", "y"], [7, 7, 2]) == 1.0
    assert distinct_error(["x", "y", "z"], [0, 0, 0]) == 2


def test_summary_means_intervals_and_exact_rate() -> None:
    rng = random.Random(1)
    ours = [random_partition(rng, 10) for _ in range(25)]
    ref = [random_partition(rng, 10) for _ in range(25)]
    s = partition_agreement(ours, ref)
    aris = [adjusted_rand_index(a, b) for a, b in zip(ours, ref, strict=True)]
    errors = [len(set(a)) - len(set(b)) for a, b in zip(ours, ref, strict=True)]
    assert s.n == 25 and [p.ari for p in s.prompts] == pytest.approx(aris)
    assert [p.distinct_error for p in s.prompts] == errors
    assert s.ari == mean_interval(aris)
    assert s.distinct_error == mean_interval([float(e) for e in errors])
    assert s.ari.low is not None and s.ari.low < s.ari.mean < s.ari.high
    assert s.exact_distinct == sum(e == 0 for e in errors) / 25


def test_too_few_prompts_give_no_interval() -> None:
    s = partition_agreement([[0, 1]] * 3, [[0, 0]] * 3)
    assert s.ari.low is None and "too few" in (s.ari.reason or "")
    assert s.distinct_error.mean == 1.0 and s.exact_distinct == 0.0


@pytest.mark.parametrize(
    ("ours", "ref", "message"),
    [
        ([[0, 1]], [[0]], "Prompt 0: The two partitions must label the same answers"),
        ([[0, 1]], [], "ours has 1 prompts and reference 0"),
        ([], [], "no prompts"),
        ([[]], [[]], "no answers"),
        ([[0, [1]]], [[0, 1]], r"ours\[1\] must be a class label"),
        (["ab"], ["ab"], "must be a sequence of class labels"),
    ],
)
def test_bad_input_says_what_to_fix(ours: list, ref: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        partition_agreement(ours, ref)
