"""Homogeneity: how alike the answers of several groups (models, people) are on the same items.

Each item (a question, a story, the one DAT prompt) holds answers from several groups and a
matrix ``S`` of pairwise similarities between its answers (:func:`cosine_similarity_matrix`
of embeddings, :func:`jaccard_similarity_matrix` of word sets). On one item:

* ``within(g)``: the mean of ``S[x, y]`` over the unordered pairs of *distinct* answers
  ``x != y`` of group ``g`` (undefined with fewer than two answers of ``g``);
* ``across(a, b)``: the mean of ``S[x, y]`` over every answer ``x`` of ``a`` and ``y`` of ``b``.

A group's ``within`` and a pair's ``similarity`` are the means over the items where they are
defined (each item weighs the same, as in Jiang et al. 2025's per-prompt averages). Their
units are those of ``S``: cosine similarity in ``[-1, 1]``, word overlap (Jaccard,
``|A & B| / |A | B|``) in ``[0, 1]``; 1 means identical answers.

Intervals are percentile bootstrap intervals. With ``unit="item"`` the items are resampled
with replacement (``resamples`` draws of ``len(items)`` item indices from
``numpy.random.default_rng([seed, 0]).integers``); each resample's value of a cell is the
mean over the drawn items where the cell is defined. With ``unit="answer"`` (one item with
many samples, as DAT's single prompt) each group's answers are resampled within each item
and pairs of copies of the same answer are left out of the means.

``p`` is a one-sided permutation test of "``a``'s answers are closer to ``b``'s than chance":
on each item the group labels of all its answers are shuffled (group sizes kept), the pair's
similarity is computed again, and ``p = (1 + #{permuted >= observed}) / (1 + permutations)``
(Phipson and Smyth 2010), with ``numpy.random.default_rng([seed, 1])``. A small ``p`` says
that an answer of ``a`` resembles one of ``b`` more than it resembles a random answer of the
pool of groups on that item. With two groups only, the pool is ``a`` and ``b`` themselves:
two groups that differ give a large ``p``.

>>> S = [[1.0, 0.5, 0.2, 0.0],
...      [0.5, 1.0, 0.4, 0.2],
...      [0.2, 0.4, 1.0, 0.6],
...      [0.0, 0.2, 0.6, 1.0]]
>>> result = homogeneity([(S, ["A", "A", "B", "B"])], unit="answer", permutations=0)
>>> result.within["A"].similarity, result.within["B"].similarity
(0.5, 0.6)
>>> pair = result.pairs[0]
>>> pair.a, pair.b, round(pair.similarity, 4)   # (0.2 + 0.0 + 0.4 + 0.2) / 4
('A', 'B', 0.2)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from creval.metrics.distance import pairwise_cosine_distances

__all__ = [
    "GroupSimilarity",
    "Homogeneity",
    "PairSimilarity",
    "cosine_similarity_matrix",
    "homogeneity",
    "item_block_means",
    "jaccard_similarity_matrix",
]

Unit = Literal["item", "answer"]


@dataclass(frozen=True)
class GroupSimilarity:
    """A group's mean within-group similarity, its interval and the items that define it."""

    group: str
    similarity: float | None
    low: float | None
    high: float | None
    items: int


@dataclass(frozen=True)
class PairSimilarity:
    """Two groups' mean across-group similarity, its interval, the permutation ``p`` (None
    without permutations) and the items holding answers of both."""

    a: str
    b: str
    similarity: float | None
    low: float | None
    high: float | None
    p: float | None
    items: int


@dataclass(frozen=True)
class Homogeneity:
    """Within-group and across-group similarities of several groups; ``matrix[i][j]`` is the
    similarity of ``groups[i]`` and ``groups[j]`` (their ``within`` on the diagonal)."""

    groups: tuple[str, ...]
    within: dict[str, GroupSimilarity]
    pairs: list[PairSimilarity]
    matrix: list[list[float | None]]
    unit: str
    confidence: float
    resamples: int
    permutations: int


def cosine_similarity_matrix(X: ArrayLike) -> np.ndarray:
    """``cos(x_i, x_j)`` for every pair of rows of ``X``, in ``[-1, 1]``.

    >>> cosine_similarity_matrix([[1.0, 0.0], [1.0, 1.0]]).round(4).tolist()
    [[1.0, 0.7071], [0.7071, 1.0]]
    """
    result: np.ndarray = 1.0 - pairwise_cosine_distances(X)
    return result


def jaccard_similarity_matrix(sets: Sequence[Collection[str]]) -> np.ndarray:
    """``|A & B| / |A | B|`` for every pair of word sets (duplicates within a set count once).

    >>> jaccard_similarity_matrix([{"cat", "dog"}, ["dog", "sun", "sun"]]).round(4).tolist()
    [[1.0, 0.3333], [0.3333, 1.0]]
    """
    if isinstance(sets, (str, bytes)) or not isinstance(sets, Sequence) or not sets:
        raise ValueError("sets must be a non-empty sequence of collections of words.")
    vocabulary: dict[str, int] = {}
    rows = []
    for i, words in enumerate(sets):
        if isinstance(words, (str, bytes)) or not isinstance(words, Collection):
            raise ValueError(f"sets[{i}] must be a collection of words, got {type(words).__name__}.")
        unique = set(words)
        if not unique:
            raise ValueError(f"sets[{i}] is empty: word overlap needs at least one word.")
        if bad := [w for w in unique if not isinstance(w, str)]:
            raise ValueError(f"sets[{i}] holds {bad[0]!r}, not a string.")
        rows.append([vocabulary.setdefault(w, len(vocabulary)) for w in unique])
    member = np.zeros((len(rows), len(vocabulary)))
    for i, columns in enumerate(rows):
        member[i, columns] = 1.0
    shared = member @ member.T
    sizes = member.sum(axis=1)
    result: np.ndarray = shared / (sizes[:, None] + sizes[None, :] - shared)
    return result


def _check_item(item: object, index: int) -> tuple[np.ndarray, list[str]]:
    if not isinstance(item, Sequence) or len(item) != 2:
        raise ValueError(f"items[{index}] must be a pair (similarity matrix, labels).")
    matrix, labels = item
    try:
        S = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"items[{index}]'s similarity matrix is not numeric: {exc}") from None
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] == 0:
        raise ValueError(f"items[{index}]'s similarity matrix must be square and non-empty, got shape {S.shape}.")
    if not np.all(np.isfinite(S)):
        raise ValueError(f"items[{index}]'s similarity matrix has NaN or infinite values.")
    if not np.allclose(S, S.T, atol=1e-9):
        raise ValueError(f"items[{index}]'s similarity matrix is not symmetric.")
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence) or len(labels) != len(S):
        raise ValueError(f"items[{index}] needs one label per row of its matrix ({len(S)}).")
    if bad := [x for x in labels if not isinstance(x, str)]:
        raise ValueError(f"items[{index}] has the label {bad[0]!r}: labels are group names (strings).")
    return S, list(labels)


def item_block_means(similarity: np.ndarray, codes: np.ndarray, groups: int,
                     *, same: np.ndarray | None = None) -> np.ndarray:
    """The ``groups x groups`` matrix of one item: ``within`` on the diagonal, ``across``
    elsewhere, NaN where undefined. ``codes[i]`` is the group index of answer ``i``;
    ``same[i, j]`` marks pairs to leave out (by default the diagonal: an answer with itself).

    >>> S = np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.4], [0.2, 0.4, 1.0]])
    >>> item_block_means(S, np.array([0, 0, 1]), 2).round(2).tolist()
    [[0.5, 0.3], [0.3, nan]]
    """
    onehot = np.zeros((len(codes), groups))
    onehot[np.arange(len(codes)), codes] = 1.0
    keep = ~(np.eye(len(codes), dtype=bool) if same is None else same)
    sums = onehot.T @ (similarity * keep) @ onehot
    counts = onehot.T @ keep.astype(np.float64) @ onehot
    with np.errstate(invalid="ignore", divide="ignore"):
        means: np.ndarray = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
    return means


def _check_options(unit: str, confidence: float, resamples: int, permutations: int) -> None:
    if unit not in ("item", "answer"):
        raise ValueError(f"unit must be 'item' or 'answer', got {unit!r}.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")
    if isinstance(permutations, bool) or not isinstance(permutations, int) or permutations < 0:
        raise ValueError(f"permutations must be a non-negative integer, got {permutations!r}.")


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    """Mean over ``axis`` ignoring NaN, NaN where every value is NaN (without a warning)."""
    defined = ~np.isnan(values)
    counts = defined.sum(axis=axis)
    sums = np.where(defined, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        means: np.ndarray = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
    return means


def _item_bootstrap(per_item: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """``resamples x k x k``: each cell's mean over a resample of the items."""
    n, k, _ = per_item.shape
    picks = np.random.default_rng([seed, 0]).integers(0, n, size=(resamples, n))
    weights = np.stack([np.bincount(row, minlength=n) for row in picks]).astype(np.float64)
    flat = per_item.reshape(n, k * k)
    defined = ~np.isnan(flat)
    sums = weights @ np.where(defined, flat, 0.0)
    counts = weights @ defined.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
    return means.reshape(resamples, k, k)


def _weighted_block_means(similarity: np.ndarray, codes: np.ndarray, groups: int,
                          weights: np.ndarray) -> np.ndarray:
    """:func:`item_block_means` of resamples: ``weights[r, i]`` copies of answer ``i`` in
    resample ``r`` (``R x n``; gives ``R x groups x groups``), the pairs of copies of one
    answer left out (they are in the diagonal blocks only)."""
    resamples, n = weights.shape
    onehot = np.zeros((n, groups))
    onehot[np.arange(n), codes] = 1.0
    W = weights[:, :, None] * onehot[None, :, :]                    # R x n x k
    SW = (similarity @ W.transpose(1, 0, 2).reshape(n, resamples * groups)).reshape(n, resamples, groups)
    sums = np.einsum("rng,nrh->rgh", W, SW)
    sizes = W.sum(axis=1)                                           # R x k
    repeats = (weights**2) @ onehot                                 # R x k
    own = (weights**2 * np.diag(similarity)[None, :]) @ onehot      # R x k
    diagonal = np.arange(groups)
    sums[:, diagonal, diagonal] -= own
    counts = sizes[:, :, None] * sizes[:, None, :]
    counts[:, diagonal, diagonal] -= repeats
    with np.errstate(invalid="ignore", divide="ignore"):
        means: np.ndarray = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
    return means


#: Resamples drawn through one matrix product.
_CHUNK = 100


def _answer_bootstrap(items: list[tuple[np.ndarray, np.ndarray]], k: int, resamples: int,
                      seed: int) -> np.ndarray:
    """``resamples x k x k``: each cell's mean over items after resampling every group's
    answers within each item (pairs of copies of one answer left out)."""
    rng = np.random.default_rng([seed, 0])
    members = [[np.flatnonzero(codes == g) for g in range(k) if (codes == g).any()] for _, codes in items]
    weights = [np.zeros((resamples, len(codes))) for _, codes in items]
    for r in range(resamples):
        for item, groups in enumerate(members):
            picks = np.concatenate([rng.choice(g, size=len(g)) for g in groups])
            weights[item][r] = np.bincount(picks, minlength=weights[item].shape[1])
    out = np.empty((resamples, k, k))
    for start in range(0, resamples, _CHUNK):
        blocks = [_weighted_block_means(S, codes, k, w[start:start + _CHUNK])
                  for (S, codes), w in zip(items, weights, strict=True)]
        out[start:start + _CHUNK] = _nanmean(np.stack(blocks), axis=0)
    return out


def _permutation_counts(items: list[tuple[np.ndarray, np.ndarray]], k: int, observed: np.ndarray,
                        permutations: int, seed: int) -> np.ndarray:
    """How many label permutations within items give each pair a similarity >= observed."""
    rng = np.random.default_rng([seed, 1])
    shuffled = [np.stack([rng.permutation(codes) for _ in range(permutations)]) for _, codes in items]
    exceed = np.zeros((k, k))
    tolerance = 1e-12
    for start in range(0, permutations, _CHUNK):
        blocks = [_relabelled_means(S, labels[start:start + _CHUNK], k)
                  for (S, _), labels in zip(items, shuffled, strict=True)]
        exceed += (_nanmean(np.stack(blocks), axis=0) >= observed - tolerance).sum(axis=0)
    return exceed


def _relabelled_means(similarity: np.ndarray, labels: np.ndarray, groups: int) -> np.ndarray:
    """Block means of one item under each row of ``labels`` (``P x n``): ``P x k x k``."""
    P, n = labels.shape
    onehot = np.zeros((P, n, groups))
    onehot[np.arange(P)[:, None], np.arange(n)[None, :], labels] = 1.0
    SW = (similarity @ onehot.transpose(1, 0, 2).reshape(n, P * groups)).reshape(n, P, groups)
    sums = np.einsum("png,nph->pgh", onehot, SW)
    diagonal = np.arange(groups)
    sums[:, diagonal, diagonal] -= onehot.transpose(0, 2, 1) @ np.diag(similarity)
    sizes = onehot.sum(axis=1)
    counts = sizes[:, :, None] * sizes[:, None, :]
    counts[:, diagonal, diagonal] -= sizes
    with np.errstate(invalid="ignore", divide="ignore"):
        means: np.ndarray = np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)
    return means


def _value(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def homogeneity(
    items: Sequence[tuple[ArrayLike, Sequence[str]]],
    *,
    groups: Sequence[str] | None = None,
    unit: Unit = "item",
    confidence: float = 0.95,
    resamples: int = 2000,
    permutations: int = 1000,
    seed: int = 0,
) -> Homogeneity:
    """Within-group and across-group similarity of answers on shared items (module docstring).

    Parameters
    ----------
    items : sequence of (similarity matrix, labels)
        Per item, the ``n x n`` symmetric similarity matrix of its answers and the group of
        each answer.
    groups : sequence of str, optional
        The groups and their order (default: in order of first appearance). Answers of other
        groups raise ``ValueError``.
    unit : {"item", "answer"}
        What the bootstrap resamples: items (needs at least two), or answers within items.
    confidence, resamples : interval level and bootstrap resamples.
    permutations : label permutations for ``p`` (0: no test, ``p`` is None).
    seed : seeds the bootstrap and the permutations.
    """
    _check_options(unit, confidence, resamples, permutations)
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence) or not items:
        raise ValueError("items must be a non-empty sequence of (similarity matrix, labels) pairs.")
    checked = [_check_item(item, i) for i, item in enumerate(items)]
    seen = list(dict.fromkeys(label for _, labels in checked for label in labels))
    order = list(dict.fromkeys(groups)) if groups is not None else seen
    if unknown := [g for g in seen if g not in order]:
        raise ValueError(f"groups does not list {unknown[0]!r}, which labels answers in items.")
    if unit == "item" and len(checked) < 2:
        raise ValueError("unit='item' resamples items and needs at least two; with one item "
                         "use unit='answer'.")
    k = len(order)
    index = {g: i for i, g in enumerate(order)}
    coded = [(S, np.array([index[x] for x in labels], dtype=np.int64)) for S, labels in checked]
    per_item = np.stack([item_block_means(S, codes, k) for S, codes in coded])
    per_item = (per_item + per_item.transpose(0, 2, 1)) / 2  # equal up to rounding: make it exact
    observed = _nanmean(per_item, axis=0)
    defined = (~np.isnan(per_item)).sum(axis=0)
    draws = (_item_bootstrap(per_item, resamples, seed) if unit == "item"
             else _answer_bootstrap(coded, k, resamples, seed))
    tails = [(1 - confidence) / 2, (1 + confidence) / 2]
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            column = draws[:, i, j][~np.isnan(draws[:, i, j])]
            if not np.isnan(observed[i, j]) and column.size:
                low[i, j], high[i, j] = np.quantile(column, tails)
    exceed = _permutation_counts(coded, k, observed, permutations, seed) if permutations else None
    within = {g: GroupSimilarity(g, _value(observed[i, i]), _value(low[i, i]), _value(high[i, i]),
                                 int(defined[i, i])) for g, i in index.items()}
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            p = None
            if exceed is not None and not np.isnan(observed[i, j]):
                p = float((1 + exceed[i, j]) / (1 + permutations))
            pairs.append(PairSimilarity(order[i], order[j], _value(observed[i, j]), _value(low[i, j]),
                                        _value(high[i, j]), p, int(defined[i, j])))
    matrix = [[_value(observed[i, j]) for j in range(k)] for i in range(k)]
    return Homogeneity(tuple(order), within, pairs, matrix, unit, confidence, resamples, permutations)
