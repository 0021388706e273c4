"""Cosine distances between embedding vectors.

The cosine distance is ``1 - cos(a, b)``, the quantity ``scipy.spatial.distance.cosine``
returns: 0 for vectors pointing the same way, 1 for orthogonal vectors, 2 for opposite ones.
It is what the Divergent Association Task (mean over all pairs of words) and the Story
Alteration Task (original story against its rewrite) measure.

Results are clipped to ``[0, 2]`` to absorb floating-point rounding, as scipy does. A zero
vector has no direction, so its cosine distance is undefined: every function here raises
``ValueError`` for one instead of returning ``nan`` or silently treating it as orthogonal.

>>> import numpy as np
>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
>>> pairwise_cosine_distances(X).round(4).tolist()
[[0.0, 1.0, 0.2929], [1.0, 0.0, 0.2929], [0.2929, 0.2929, 0.0]]
>>> round(mean_pairwise_cosine_distance(X), 4)  # (1 + 0.2929 + 0.2929) / 3
0.5286
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "cosine_distance",
    "mean_pairwise_cosine_distance",
    "paired_cosine_distances",
    "pairwise_cosine_distances",
]


def _as_matrix(X: ArrayLike, *, name: str, min_rows: int = 1) -> np.ndarray:
    """``X`` as a finite float64 ``(n, d)`` array with ``n >= min_rows`` and ``d >= 1``."""
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 2-D array of numbers: {exc}") from exc
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (one vector per row), got {arr.ndim} dimension(s) "
            f"with shape {arr.shape}."
        )
    n, d = arr.shape
    if n < min_rows:
        raise ValueError(f"{name} needs at least {min_rows} row(s), got {n}.")
    if d < 1:
        raise ValueError(f"{name} has rows of length 0; vectors need at least one component.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr


def _unit_rows(arr: np.ndarray, *, name: str) -> np.ndarray:
    """Rows of ``arr`` scaled to length 1; a zero row raises ``ValueError``."""
    norms = np.linalg.norm(arr, axis=1)
    zero = np.flatnonzero(norms == 0.0)
    if zero.size and arr.shape[0] == 1:
        raise ValueError(
            f"{name} is a zero vector: the cosine distance of a vector with no direction "
            "is undefined."
        )
    if zero.size:
        rows = ", ".join(str(i) for i in zero[:10])
        more = "" if zero.size <= 10 else f" and {zero.size - 10} more"
        raise ValueError(
            f"{name} has zero vector(s) at row(s) {rows}{more}: the cosine distance of a "
            "vector with no direction is undefined."
        )
    return arr / norms[:, None]


def _clip(values: np.ndarray) -> np.ndarray:
    return np.clip(values, 0.0, 2.0)


def cosine_distance(a: ArrayLike, b: ArrayLike) -> float:
    """Cosine distance ``1 - a.b / (|a| |b|)`` between two vectors, in ``[0, 2]``.

    Parameters
    ----------
    a, b : array-like of shape (d,)
        Two non-zero vectors of the same length.

    Returns
    -------
    float
        0 for the same direction, 1 for orthogonal vectors, 2 for opposite vectors.

    Examples
    --------
    Hand calculation for ``a = (1, 0)`` and ``b = (1, 1)``: ``a.b = 1``, ``|a| = 1``,
    ``|b| = sqrt(2)``, so the distance is ``1 - 1/sqrt(2) = 0.2929``.

    >>> round(cosine_distance([1.0, 0.0], [1.0, 1.0]), 4)
    0.2929
    >>> cosine_distance([1.0, 0.0], [-2.0, 0.0])
    2.0
    """
    va = np.asarray(a, dtype=np.float64)
    vb = np.asarray(b, dtype=np.float64)
    if va.ndim != 1 or vb.ndim != 1:
        raise ValueError(
            f"cosine_distance takes two 1-D vectors, got shapes {va.shape} and {vb.shape}."
        )
    if va.shape != vb.shape:
        raise ValueError(
            f"cosine_distance needs vectors of the same length, got {va.size} and {vb.size}."
        )
    ua = _unit_rows(_as_matrix(va[None, :], name="a"), name="a")
    ub = _unit_rows(_as_matrix(vb[None, :], name="b"), name="b")
    return float(_clip(1.0 - ua[0] @ ub[0]))


def pairwise_cosine_distances(X: ArrayLike) -> np.ndarray:
    """Cosine distance between every pair of rows of ``X``: an ``(n, n)`` matrix.

    The matrix is symmetric with an exact zero diagonal.

    Parameters
    ----------
    X : array-like of shape (n, d)
        One non-zero vector per row, ``n >= 1``.

    Examples
    --------
    >>> pairwise_cosine_distances([[1.0, 0.0], [0.0, 3.0], [-1.0, 0.0]]).tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    unit = _unit_rows(_as_matrix(X, name="X"), name="X")
    dist = _clip(1.0 - unit @ unit.T)
    dist = (dist + dist.T) / 2.0
    np.fill_diagonal(dist, 0.0)
    return dist


def mean_pairwise_cosine_distance(X: ArrayLike) -> float:
    """Mean cosine distance over the ``n (n - 1) / 2`` unordered pairs of rows of ``X``.

    This is the Divergent Association Task's score before any scaling: Olson et al. (2021)
    multiply it by 100, the Japanese paper (Fukuda et al. 2025) reports it as it is.

    Parameters
    ----------
    X : array-like of shape (n, d)
        One non-zero vector per row, ``n >= 2``.

    Examples
    --------
    Three mutually orthogonal vectors: every one of the 3 pairs is at distance 1, so the
    mean is 1. Adding the opposite of the first vector adds 3 pairs: distance 2 to the
    first and 1 to the other two, so the mean over 6 pairs is ``(3 + 2 + 1 + 1) / 6``.

    >>> mean_pairwise_cosine_distance([[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    1.0
    >>> round(mean_pairwise_cosine_distance([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0]]), 4)
    1.1667
    """
    arr = _as_matrix(X, name="X", min_rows=2)
    dist = pairwise_cosine_distances(arr)
    upper = np.triu_indices(arr.shape[0], k=1)
    return float(dist[upper].mean())


def paired_cosine_distances(A: ArrayLike, B: ArrayLike) -> np.ndarray:
    """Row-wise cosine distance: ``out[i] = cosine_distance(A[i], B[i])``.

    The Story Alteration Task's per-story score: ``A`` holds the embeddings of the
    original stories and ``B`` those of the rewrites, in the same order.

    Parameters
    ----------
    A, B : array-like of shape (n, d)
        Non-zero vectors, one pair per row; both must have the same shape.

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> paired_cosine_distances([[1.0, 0.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 5.0]]).tolist()
    [0.0, 1.0]
    """
    a = _as_matrix(A, name="A")
    b = _as_matrix(B, name="B")
    if a.shape != b.shape:
        raise ValueError(
            f"A and B must have the same shape (one pair per row), got {a.shape} and {b.shape}."
        )
    ua = _unit_rows(a, name="A")
    ub = _unit_rows(b, name="B")
    return _clip(1.0 - np.einsum("ij,ij->i", ua, ub))
