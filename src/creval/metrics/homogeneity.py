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

With ``unit="item"`` a cell's value is a mean over the items where it is defined, and its
interval is the interval of a mean (:func:`creval.metrics.intervals.mean_interval`: t with
Hall's skewness correction), given from :data:`HOMOGENEITY_MIN_ITEMS` such items and None
below (the percentile bootstrap over items used before covered 41-52% at 2 items, 77-84% at
5 and 87-91% at 10 on simulated skewed and bounded similarities; ``bench/README.md``). With
``unit="answer"`` (one item with many samples, as DAT's single prompt) the interval is
over the answers: a cell's delete-one-answer jackknife variance (Arvesen 1969's for
U-statistics: a mean over pairs), the items' summed, Student's t with the smaller group's
answers less one, on the Fisher z scale (``atanh``) and back; given where each group has
:data:`HOMOGENEITY_MIN_ANSWERS` answers on an item. On simulated answers it covered 94-96% on
bounded similarities from 5 answers a group, but 89-93% at 5-20 and 92-94% at 30 when the
answers' spread is skewed (the percentile bootstrap over answers used before: 64-79% at 5,
87-92% at 30); ``bench/README.md``.

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
from creval.metrics.intervals import MIN_ITEMS, mean_interval

__all__ = [
    "HOMOGENEITY_MIN_ANSWERS",
    "HOMOGENEITY_MIN_ITEMS",
    "GroupSimilarity",
    "Homogeneity",
    "PairSimilarity",
    "cosine_similarity_matrix",
    "homogeneity",
    "item_block_means",
    "jaccard_similarity_matrix",
]

Unit = Literal["item", "answer"]

#: The fewest items a cell's interval is given from with ``unit="item"`` (that of a mean).
HOMOGENEITY_MIN_ITEMS = MIN_ITEMS
#: The fewest answers of each group on an item for a cell's interval with ``unit="answer"``.
HOMOGENEITY_MIN_ANSWERS = 50


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


#: Label permutations drawn through one matrix product.
_CHUNK = 100


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


def _item_intervals(per_item: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's interval of the mean over the items where it is defined (NaN below
    :data:`HOMOGENEITY_MIN_ITEMS` of them, or when they are all equal)."""
    k = per_item.shape[1]
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            column = per_item[:, i, j][~np.isnan(per_item[:, i, j])]
            if column.size:
                r = mean_interval(column.tolist(), confidence=confidence, min_items=HOMOGENEITY_MIN_ITEMS)
                if r.low is not None and r.high is not None:
                    low[i, j], high[i, j] = r.low, r.high
    return low, high


def _answer_jackknife(S: np.ndarray, codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One item's ``k x k`` values, their delete-one-answer jackknife variances and the answers
    of the smaller group in each cell; NaN below :data:`HOMOGENEITY_MIN_ANSWERS` answers."""
    value, var, size = (np.full((k, k), np.nan) for _ in range(3))
    members = [np.flatnonzero(codes == g) for g in range(k)]
    for g in range(k):
        n = len(members[g])
        if n >= max(HOMOGENEITY_MIN_ANSWERS, 3):
            block = S[np.ix_(members[g], members[g])]
            total = (block.sum() - np.trace(block)) / 2
            left = (total - block.sum(1) + np.diag(block)) / ((n - 1) * (n - 2) / 2)
            value[g, g], var[g, g], size[g, g] = total / (n * (n - 1) / 2), _spread(left), n
        for h in range(g + 1, k):
            m = len(members[h])
            if min(n, m) >= max(HOMOGENEITY_MIN_ANSWERS, 2):
                block = S[np.ix_(members[g], members[h])]
                total = block.sum()
                jack = _spread((total - block.sum(1)) / ((n - 1) * m)) + _spread((total - block.sum(0)) / (n * (m - 1)))
                value[g, h] = value[h, g] = total / (n * m)
                var[g, h] = var[h, g] = jack
                size[g, h] = size[h, g] = min(n, m)
    return value, var, size


def _spread(left_out: np.ndarray) -> float:
    """The jackknife variance of an estimate from its ``n`` delete-one values."""
    n = len(left_out)
    return float((n - 1) / n * ((left_out - left_out.mean()) ** 2).sum())


def _answer_intervals(coded: list[tuple[np.ndarray, np.ndarray]], k: int,
                      confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's jackknife interval over answers on the Fisher z scale (NaN where no item
    has enough answers). Items are independent: the variance of the mean over ``m`` items is
    the sum of theirs over ``m**2``; Student's t with the smallest group's answers less one."""
    from scipy import stats

    parts = [_answer_jackknife(S, codes, k) for S, codes in coded]
    values, variances, sizes = (np.stack([p[i] for p in parts]) for i in range(3))
    defined = ~np.isnan(variances)
    m = defined.sum(axis=0)
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for i, j in zip(*np.nonzero(m), strict=True):
        keep = defined[:, i, j]
        mean = float(values[keep, i, j].mean())
        se = math.sqrt(float(variances[keep, i, j].sum())) / int(m[i, j])
        if se == 0.0 or abs(mean) >= 1.0:
            continue
        half = float(stats.t.ppf((1 + confidence) / 2, int(sizes[keep, i, j].min()) - 1)) * se / (1 - mean**2)
        low[i, j], high[i, j] = math.tanh(math.atanh(mean) - half), math.tanh(math.atanh(mean) + half)
    return low, high


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
        What the interval is over: items (needs at least two; an interval from
        :data:`HOMOGENEITY_MIN_ITEMS`), or answers within items (jackknife, an interval
        from :data:`HOMOGENEITY_MIN_ANSWERS` answers a group).
    confidence : interval level.
    resamples : no longer used (both intervals are analytic); kept so that callers' calls stand.
    permutations : label permutations for ``p`` (0: no test, ``p`` is None).
    seed : seeds the permutations.
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
    low, high = (_item_intervals(per_item, confidence) if unit == "item"
                 else _answer_intervals(coded, k, confidence))
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
