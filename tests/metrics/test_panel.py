"""The panel's per-item values and the judges' agreement matrix, held against scipy and
scikit-learn computed independently."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr, trim_mean
from sklearn.metrics import cohen_kappa_score

from creval.metrics.panel import agreement_matrix, panel_values, value_kind


def test_mean_and_trimmed_against_numpy_and_scipy() -> None:
    rng = np.random.default_rng(3)
    table = rng.integers(1, 6, size=(4, 12)).astype(float)  # 4 judges x 12 items
    by_judge = table.tolist()
    assert panel_values(by_judge, aggregate="mean") == pytest.approx(table.mean(axis=0).tolist())
    # one lowest and one highest of four values dropped: trim_mean with a cut of 1/4
    expected = [trim_mean(table[:, i], 0.25) for i in range(12)]
    assert panel_values(by_judge, aggregate="trimmed") == pytest.approx(expected)


def test_missing_values_are_left_out_of_an_item() -> None:
    assert panel_values([[1.0, None], [3.0, None]], aggregate="mean") == [2.0, None]
    assert panel_values([[1, 2], [1, 3], [5, None]], aggregate="trimmed") == [1.0, None]


def test_majority_by_brute_force() -> None:
    by_judge = [[1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 0, 1]]
    expected = []
    for i in range(4):
        votes = [row[i] for row in by_judge]
        top = max(set(votes), key=votes.count)
        expected.append(top if votes.count(top) > len(votes) / 2 else None)
    assert panel_values(by_judge, aggregate="majority") == expected
    assert panel_values([[1, 2], [2, 2]], aggregate="majority") == [None, 2]  # 1 vs 2: tied


def test_kappa_matrix_against_sklearn() -> None:
    rng = np.random.default_rng(7)
    by_judge = rng.integers(0, 2, size=(3, 30)).tolist()
    pairs = agreement_matrix(by_judge)
    assert [(p.a, p.b) for p in pairs] == [(0, 1), (0, 2), (1, 2)]
    for p in pairs:
        assert p.statistic == "kappa" and p.n == 30
        assert p.value == pytest.approx(cohen_kappa_score(by_judge[p.a], by_judge[p.b]))
        assert p.exact == pytest.approx(np.mean(np.array(by_judge[p.a]) == np.array(by_judge[p.b])))


def test_spearman_matrix_against_scipy_on_common_items() -> None:
    a = [1.0, 2.5, 3.0, None, 4.0, 1.0]
    b = [2.0, 2.0, 5.0, 1.0, None, 1.0]
    (pair,) = agreement_matrix([a, b])
    both = [(x, y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    assert pair.statistic == "spearman" and pair.n == 4
    assert pair.value == pytest.approx(spearmanr([x for x, _ in both], [y for _, y in both]).statistic)
    assert pair.exact == pytest.approx(1 / 4)


def test_undefined_agreement_says_why() -> None:
    (pair,) = agreement_matrix([[3, 3, 3], [1, 2, 3]])
    assert pair.value is None and pair.note  # one judge gave 3 throughout
    (few,) = agreement_matrix([[1, None], [None, 2]])
    assert few.value is None and few.n == 0 and "too few" in (few.note or "")


def test_bad_input_names_the_argument() -> None:
    with pytest.raises(ValueError, match="by_judge\\[1\\] has 1 values"):
        panel_values([[1, 2], [1]])
    with pytest.raises(ValueError, match="at least 2 judges"):
        agreement_matrix([[1, 2]])
    with pytest.raises(ValueError, match="aggregate must be"):
        panel_values([[1]], aggregate="median")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="finite number"):
        panel_values([[float("nan")]])
    assert value_kind([[0, 1], [1, 1]]) == "binary" and value_kind([[0, 2]]) == "numeric"
