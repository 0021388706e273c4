"""Cosine distances: hand calculations, scipy agreement, input validation."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from creval.metrics import (
    cosine_distance,
    mean_pairwise_cosine_distance,
    paired_cosine_distances,
    pairwise_cosine_distances,
)


def test_cosine_distance_hand_calculation() -> None:
    # a = (3, 4), b = (4, 3): a.b = 24, |a| = |b| = 5, cos = 24/25 = 0.96, distance 0.04.
    assert cosine_distance([3.0, 4.0], [4.0, 3.0]) == pytest.approx(0.04)
    # Orthogonal: 1; same direction (any length): 0; opposite: 2.
    assert cosine_distance([1.0, 0.0], [0.0, 7.0]) == pytest.approx(1.0)
    assert cosine_distance([2.0, 2.0], [5.0, 5.0]) == pytest.approx(0.0, abs=1e-12)
    assert cosine_distance([1.0, -1.0], [-3.0, 3.0]) == pytest.approx(2.0)


def test_pairwise_matrix_hand_calculation() -> None:
    # a=(1,0), b=(0,1), c=(1,1): d(a,b)=1, d(a,c)=d(b,c)=1-1/sqrt(2)=0.29289.
    d = 1 - 1 / math.sqrt(2)
    expected = np.array([[0, 1, d], [1, 0, d], [d, d, 0]])
    got = pairwise_cosine_distances([[1, 0], [0, 1], [1, 1]])
    assert got.shape == (3, 3)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    assert np.array_equal(got, got.T)
    assert np.all(np.diag(got) == 0.0)


def test_mean_pairwise_hand_calculation() -> None:
    # Same three vectors: mean of the 3 unordered pairs = (1 + 2(1 - 1/sqrt(2))) / 3
    # = (3 - sqrt(2)) / 3 = 0.528595.
    assert mean_pairwise_cosine_distance([[1, 0], [0, 1], [1, 1]]) == pytest.approx(
        (3 - math.sqrt(2)) / 3
    )
    # Seven orthogonal unit vectors: all 21 pairs at distance 1.
    assert mean_pairwise_cosine_distance(np.eye(7)) == pytest.approx(1.0)
    # Two rows: the mean is the single distance.
    assert mean_pairwise_cosine_distance([[3, 4], [4, 3]]) == pytest.approx(0.04)


def test_mean_is_over_unordered_pairs_not_the_full_matrix() -> None:
    # Full-matrix mean would include the zero diagonal: 4 * 1 / 9 = 0.444 for 3 orthogonal
    # vectors, while the pair mean is 1.
    assert mean_pairwise_cosine_distance(np.eye(3)) == pytest.approx(1.0)


def test_paired_hand_calculation() -> None:
    got = paired_cosine_distances([[3, 4], [1, 0], [1, 1]], [[4, 3], [0, 2], [-1, -1]])
    np.testing.assert_allclose(got, [0.04, 1.0, 2.0], atol=1e-12)
    assert got.shape == (3,)


def test_agrees_with_scipy() -> None:
    spatial = pytest.importorskip("scipy.spatial.distance")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 17))
    Y = rng.normal(size=(9, 17))
    ref = spatial.squareform(spatial.pdist(X, "cosine"))
    np.testing.assert_allclose(pairwise_cosine_distances(X), ref, atol=1e-12)
    assert mean_pairwise_cosine_distance(X) == pytest.approx(spatial.pdist(X, "cosine").mean())
    np.testing.assert_allclose(
        paired_cosine_distances(X, Y),
        [spatial.cosine(x, y) for x, y in zip(X, Y, strict=True)],
        atol=1e-12,
    )
    assert cosine_distance(X[0], Y[0]) == pytest.approx(spatial.cosine(X[0], Y[0]))


def test_result_is_clipped_to_range() -> None:
    # Nearly identical vectors can give a tiny negative 1 - cos through rounding.
    x = np.array([[0.1, 0.2, 0.3]] * 4)
    assert np.all(pairwise_cosine_distances(x) >= 0.0)
    assert np.all(paired_cosine_distances(x, -x) <= 2.0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mean_pairwise_cosine_distance([[1.0, 0.0]]), "at least 2 row"),
        (lambda: mean_pairwise_cosine_distance([1.0, 0.0]), "2-D array"),
        (lambda: mean_pairwise_cosine_distance([[1, 0], [0, 0]]), "zero vector"),
        (lambda: pairwise_cosine_distances([[1, 0], [0, 0], [0, 0]]), "row\\(s\\) 1, 2"),
        (lambda: pairwise_cosine_distances([[1.0, np.nan]]), "NaN or infinite"),
        (lambda: pairwise_cosine_distances([["a", "b"]]), "array of numbers"),
        (lambda: pairwise_cosine_distances(np.zeros((2, 0))), "length 0"),
        (lambda: cosine_distance([0.0, 0.0], [1.0, 0.0]), "a is a zero vector"),
        (lambda: cosine_distance([1.0, 0.0], [1.0, 0.0, 0.0]), "same length"),
        (lambda: cosine_distance([[1.0, 0.0]], [[1.0, 0.0]]), "1-D vectors"),
        (lambda: paired_cosine_distances([[1, 0]], [[1, 0], [0, 1]]), "same shape"),
        (lambda: paired_cosine_distances([[1, 0]], [[0, 0]]), "B is a zero vector"),
    ],
)
def test_invalid_input(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
