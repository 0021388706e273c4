"""Majority-vote accuracy, Cohen's kappa, and Spearman/Kendall rank agreement."""

from __future__ import annotations

import math
from collections.abc import Hashable

import pytest

from creval.metrics.agreement import (
    cohen_kappa,
    majority_accuracy,
    majority_vote,
    rank_agreement,
)
from creval.metrics.stats import kendall


def test_majority_vote_ties_give_none() -> None:
    votes: list[list[Hashable]] = [
        ["A", "B", "A"],
        ["B", "B", "A"],
        ["A", "B"],
        ["C", "A", "B"],
        [True],
    ]
    assert majority_vote(votes) == ["A", "B", None, None, True]


def test_majority_accuracy_tie_policies_by_hand() -> None:
    # Majorities: GPT, QWEN, tie(GPT/QWEN), GPT, QWEN. Predictions right on items 1, 4,
    # wrong on 2 and 5; item 3 predicted QWEN (one of the tied labels).
    votes = [
        ["GPT", "GPT", "QWEN"],
        ["QWEN", "QWEN", "GPT"],
        ["GPT", "QWEN"],
        ["GPT", "GPT", "GPT"],
        ["QWEN", "QWEN", "QWEN"],
    ]
    preds = ["GPT", "GPT", "QWEN", "GPT", "GPT"]
    excluded = majority_accuracy(preds, votes)
    assert (excluded.n_correct, excluded.n_scored, excluded.n_ties) == (2, 4, 1)
    assert excluded.accuracy == pytest.approx(2 / 4)
    assert excluded.majority == ["GPT", "QWEN", None, "GPT", "QWEN"]
    anyof = majority_accuracy(preds, votes, ties="any")
    assert anyof.accuracy == pytest.approx(3 / 5)
    with pytest.raises(ValueError, match="no majority"):
        majority_accuracy(preds, votes, ties="error")


def test_majority_accuracy_validation() -> None:
    with pytest.raises(ValueError, match="same length"):
        majority_accuracy(["a"], [["a"], ["b"]])
    with pytest.raises(ValueError, match="at least one"):
        majority_accuracy(["a"], [[]])
    with pytest.raises(ValueError, match="ties"):
        majority_accuracy(["a"], [["a"]], ties="first")  # type: ignore[arg-type]
    only_ties = majority_accuracy(["a"], [["a", "b"]])
    assert only_ties.accuracy is None and only_ties.n_ties == 1


def test_cohen_kappa_three_labels_by_hand() -> None:
    # 10 items. a: x x x x y y y z z z ; b: x x x y y y z z z x
    # agreements: items 1-3 (x), 5-6 (y), 8-9 (z) -> p_o = 7/10.
    # a: x 4, y 3, z 3; b: x 4, y 3, z 3 -> p_e = (16 + 9 + 9) / 100 = 0.34.
    a = list("xxxxyyyzzz")
    b = list("xxxyyyzzzx")
    k = cohen_kappa(a, b)
    assert (k.p_o, k.p_e, k.n) == (pytest.approx(0.7), pytest.approx(0.34), 10)
    assert k.kappa == pytest.approx((0.7 - 0.34) / (1 - 0.34))


def test_cohen_kappa_matches_scikit_learn() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    a = [1, 0, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0]
    b = [1, 0, 2, 1, 1, 0, 2, 1, 2, 0, 1, 1]
    assert cohen_kappa(a, b).kappa == pytest.approx(metrics.cohen_kappa_score(a, b))


def test_cohen_kappa_edge_cases() -> None:
    perfect = cohen_kappa(["p", "q"], ["p", "q"])
    assert perfect.kappa == pytest.approx(1.0)
    # Opposite raters on a balanced binary task: p_o = 0, p_e = 0.5 -> kappa = -1.
    assert cohen_kappa(["p", "q"], ["q", "p"]).kappa == pytest.approx(-1.0)
    undefined = cohen_kappa(["p", "p", "p"], ["p", "p", "p"])
    assert undefined.kappa is None and "undefined" in (undefined.note or "")
    # One rater constant, the other not: p_e = 1 * (2/3) < 1, defined (and 0 here).
    assert cohen_kappa(["p", "p", "p"], ["p", "p", "q"]).kappa == pytest.approx(0.0)
    with pytest.raises(ValueError, match="not in labels"):
        cohen_kappa(["yes", "Yes"], ["yes", "yes"], labels=["yes", "no"])
    with pytest.raises(ValueError, match="same length"):
        cohen_kappa(["a"], ["a", "b"])
    with pytest.raises(ValueError, match="hashable"):
        cohen_kappa([None], ["a"])


def test_kendall_tau_b_by_hand_and_against_definition() -> None:
    # x = 1..5, y = 2 1 4 3 5: discordant pairs (1,2) and (3,4) -> C = 8, D = 2, tau = 0.6.
    c = kendall([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert c.r == pytest.approx(0.6) and c.n == 5 and c.p is not None and 0 < c.p < 1
    # Ties in both: x = 1 1 2 3, y = 1 2 2 3. Pairs: (1,2) tied in x, (2,3) tied in y,
    # the other 4 concordant. tau-b = 4 / sqrt((6 - 1)(6 - 1)) = 0.8.
    assert kendall([1, 1, 2, 3], [1, 2, 2, 3]).r == pytest.approx(0.8)
    assert kendall([3, 2, 1], [1, 2, 3]).r == pytest.approx(-1.0)
    assert kendall([1, 2, 3], [4, 4, 4]).note == "y is constant: the correlation is undefined"
    with pytest.raises(ValueError, match="at least 3"):
        kendall([1, 2], [1, 2])


def test_rank_agreement_reports_both() -> None:
    # Ranks 1..5 vs 2 1 4 3 5: d^2 sum = 4, rho = 1 - 6*4 / (5*24) = 0.8; tau = 0.6.
    r = rank_agreement([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert r.spearman.r == pytest.approx(0.8)
    assert r.kendall.r == pytest.approx(0.6)
    assert not math.isnan(r.kendall.p or math.nan)
