"""Choice accuracy, top-1 and NDCG with their random baselines, against hand calculations
and scikit-learn's ndcg_score."""

from __future__ import annotations

import itertools
import math

import pytest

from creval.metrics.ranking import (
    choice_accuracy,
    ndcg,
    random_choice_accuracy,
    random_ndcg,
    random_top1,
    top1,
)


def test_ndcg_hand_calculation() -> None:
    # Relevance of items 0..4 (grades from likes): 4, 2, 2, 1, 0. The model ranks 3, 0, 1, 4, 2.
    # DCG = 1/1 + 4/log2(3) + 2/2 + 0/log2(5) + 2/log2(6)
    #     = 1 + 2.523719 + 1 + 0 + 0.773706 = 5.297425
    # IDCG = 4/1 + 2/log2(3) + 2/2 + 1/log2(5) + 0 = 4 + 1.261860 + 1 + 0.430677 = 6.692536
    rel = [4, 2, 2, 1, 0]
    dcg = 1 + 4 / math.log2(3) + 1 + 2 / math.log2(6)
    idcg = 4 + 2 / math.log2(3) + 1 + 1 / math.log2(5)
    assert ndcg(rel, [3, 0, 1, 4, 2]) == pytest.approx(dcg / idcg)
    assert ndcg(rel, [3, 0, 1, 4, 2]) == pytest.approx(0.791543, abs=1e-6)
    assert ndcg(rel, [0, 1, 2, 3, 4]) == 1.0
    assert ndcg(rel, [0, 2, 1, 3, 4]) == 1.0  # tied items in either order are ideal


def test_ndcg_at_k_counts_only_the_first_k() -> None:
    # @2: DCG = 0 + 4/log2(3); IDCG = 4 + 2/log2(3)
    assert ndcg([4, 2, 0], [2, 0, 1], k=2) == pytest.approx((4 / math.log2(3)) / (4 + 2 / math.log2(3)))


def test_ndcg_matches_scikit_learn() -> None:
    sklearn = pytest.importorskip("sklearn.metrics")
    rel = [5.0, 1.0, 3.0, 0.0, 2.0]
    for order in itertools.islice(itertools.permutations(range(5)), 0, 120, 7):
        # scikit-learn takes scores; give the model's first item the highest score
        scores = [0.0] * 5
        for position, item in enumerate(order):
            scores[item] = 5 - position
        assert ndcg(rel, list(order)) == pytest.approx(sklearn.ndcg_score([rel], [scores]))


def test_random_ndcg_is_the_mean_over_all_permutations() -> None:
    rel = [4, 2, 2, 1, 0]
    every = [ndcg(rel, list(p)) for p in itertools.permutations(range(5))]
    assert random_ndcg(rel) == pytest.approx(sum(every) / len(every))
    # closed form: mean(rel) * sum 1/log2(r+2) / IDCG = 1.8 * 2.948459 / 6.692536
    assert random_ndcg(rel) == pytest.approx(1.8 * (1 + 1 / math.log2(3) + 0.5 + 1 / math.log2(5)
                                                    + 1 / math.log2(6)) / 6.692536, abs=1e-6)


def test_top1_and_its_baseline() -> None:
    assert top1([3, 9, 1], [1, 0, 2]) and not top1([3, 9, 1], [0, 1, 2])
    assert random_top1([3, 9, 1]) == pytest.approx(1 / 3)
    assert random_top1([9, 9, 1, 0]) == 0.5


def test_choice_accuracy_counts_unparsed_as_wrong() -> None:
    # 2T1 right, 5T2 right (order of letters does not matter), 5T2 half right (wrong), unparsed
    acc = choice_accuracy([{"A"}, {"E", "B"}, {"B", "C"}, None],
                          [{"A"}, {"B", "E"}, {"B", "E"}, {"C"}])
    assert (acc.correct, acc.total, acc.unparsed) == (2, 4, 1)
    assert acc.accuracy == 0.5


def test_random_choice_baselines_per_mtn_type() -> None:
    # 2T1: 1/2, 3T1: 1/3, 4T1: 1/4, 5T2: one of C(5, 2) = 10 pairs
    assert [random_choice_accuracy(m, n) for m, n in [(2, 1), (3, 1), (4, 1), (5, 2)]] == \
        pytest.approx([0.5, 1 / 3, 0.25, 0.1])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ndcg([1, 2], [0, 0]), "permutation"),
        (lambda: ndcg([1, 2], [0, 1, 2]), "permutation"),
        (lambda: ndcg([0, 0], [0, 1]), "every relevance is 0"),
        (lambda: ndcg([1, -1], [0, 1]), r"relevance\[1\]"),
        (lambda: ndcg([1, 2], [0, 1], k=0), "k must be"),
        (lambda: choice_accuracy([{"A"}], []), "same length"),
        (lambda: choice_accuracy(["A"], [{"A"}]), r"chosen\[0\]"),  # type: ignore[list-item]
        (lambda: choice_accuracy([{"A"}], [set()]), r"correct\[0\]"),
        (lambda: random_choice_accuracy(2, 3), "at most m"),
    ],
)
def test_bad_input_is_named(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
