"""Choice and ranking questions (seed 003, section 4): accuracy, top-1, NDCG, and the
scores a uniformly random answerer gets, computed rather than assumed.

* **Choice accuracy** (mTn questions: pick the ``n`` humorous answers among ``m``
  options). An answer is right only when the chosen set equals the correct set; an
  unparsable answer (``None``) is wrong and counted. A random guesser who picks ``n`` of
  ``m`` options uniformly is right with probability ``1 / C(m, n)``.
* **Top-1** of a ranking: the model's first choice is one of the items with the highest
  human relevance. Random baseline: the share of items tied at the top.
* **NDCG** (Jarvelin and Kekalainen 2002, linear gain, log2 discount, as scikit-learn's
  ``ndcg_score``): ``DCG = sum_r rel[ranking[r]] / log2(r + 2)`` (``r`` from 0) over the
  first ``k`` positions, divided by the DCG of the ideal order. Range 0..1. Because every
  position of a uniformly random permutation holds an item of expected relevance
  ``mean(rel)``, the random baseline is exactly ``mean(rel) * sum_r 1/log2(r + 2) / IDCG``.

Hand check: relevance (3, 2, 1) (item 0 best) ranked 1, 0, 2 gives
DCG = 2 + 3/log2(3) + 1/2 = 4.3928 and IDCG = 3 + 2/log2(3) + 1/2 = 4.7619, NDCG 0.9225;
the random baseline is 2 * (1 + 0.6309 + 0.5) / 4.7619 = 0.8950.

>>> round(ndcg([3, 2, 1], [1, 0, 2]), 4), round(random_ndcg([3, 2, 1]), 4)
(0.9225, 0.895)
>>> choice_accuracy([{"A"}, {"B", "C"}, None], [{"A"}, {"C", "B"}, {"D"}])
ChoiceAccuracy(accuracy=0.6666666666666666, correct=2, total=3, unparsed=1)
>>> random_choice_accuracy(5, 2)
0.1
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence, Set
from dataclasses import dataclass

__all__ = [
    "ChoiceAccuracy", "choice_accuracy", "ndcg", "random_choice_accuracy", "random_ndcg",
    "interval_ranks", "random_top1", "top1",
]  # fmt: skip


@dataclass(frozen=True)
class ChoiceAccuracy:
    """Share of questions answered with exactly the correct set; ``unparsed`` were wrong."""

    accuracy: float
    correct: int
    total: int
    unparsed: int


def choice_accuracy(
    chosen: Sequence[Set[Hashable] | None], correct: Sequence[Set[Hashable]]
) -> ChoiceAccuracy:
    """Exact-set accuracy of choice answers; ``None`` marks an unparsable answer (wrong).

    >>> choice_accuracy([{"B"}, {"A"}], [{"B"}, {"B"}]).accuracy
    0.5
    """
    if len(chosen) != len(correct):
        raise ValueError(
            f"chosen and correct must have the same length, got {len(chosen)} and {len(correct)}."
        )
    if not correct:
        raise ValueError("choice_accuracy needs at least one question.")
    right = unparsed = 0
    for i, (got, want) in enumerate(zip(chosen, correct, strict=True)):
        if not isinstance(want, Set) or not want:
            raise ValueError(f"correct[{i}] must be a non-empty set of options, got {want!r}.")
        if got is None:
            unparsed += 1
        elif not isinstance(got, Set):
            raise ValueError(f"chosen[{i}] must be a set of options or None, got {got!r}.")
        elif set(got) == set(want):
            right += 1
    return ChoiceAccuracy(right / len(correct), right, len(correct), unparsed)


def random_choice_accuracy(m: int, n: int) -> float:
    """Probability that ``n`` options drawn uniformly from ``m`` are the ``n`` correct ones.

    >>> random_choice_accuracy(2, 1), random_choice_accuracy(4, 1)
    (0.5, 0.25)
    """
    for name, value in (("m", m), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    if n > m:
        raise ValueError(f"n must be at most m, got m={m}, n={n}.")
    return 1.0 / math.comb(m, n)


def _relevance(relevance: Sequence[float]) -> list[float]:
    if isinstance(relevance, (str, bytes)) or not isinstance(relevance, Sequence):
        raise ValueError("relevance must be a sequence of numbers.")
    out = []
    for i, v in enumerate(relevance):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"relevance[{i}] must be a finite number >= 0, got {v!r}.")
        out.append(float(v))
    if not out:
        raise ValueError("relevance must not be empty.")
    return out


def _ranking(ranking: Sequence[int], size: int) -> list[int]:
    items = list(ranking)
    if sorted(items) != list(range(size)) or any(isinstance(i, bool) for i in items):
        raise ValueError(
            f"ranking must order every item exactly once: a permutation of 0..{size - 1}, "
            f"got {items!r}."
        )
    return items


def _cutoff(k: int | None, size: int) -> int:
    if k is None:
        return size
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer or None, got {k!r}.")
    return min(k, size)


def _dcg(gains: Sequence[float], k: int) -> float:
    return sum(g / math.log2(r + 2) for r, g in enumerate(gains[:k]))


def _ideal(rel: list[float], k: int) -> float:
    ideal = _dcg(sorted(rel, reverse=True), k)
    if ideal == 0.0:
        raise ValueError("NDCG is undefined when every relevance is 0.")
    return ideal


def ndcg(relevance: Sequence[float], ranking: Sequence[int], *, k: int | None = None) -> float:
    """NDCG@k of ``ranking`` (item indices, best first) against ``relevance[item]``.

    Ties in relevance are harmless: any order of tied items is ideal.

    >>> ndcg([5, 0, 1], [0, 2, 1])
    1.0
    >>> round(ndcg([1, 0], [1, 0]), 4)  # the only relevant item at rank 2: 1/log2(3)
    0.6309
    """
    rel = _relevance(relevance)
    order = _ranking(ranking, len(rel))
    cut = _cutoff(k, len(rel))
    return _dcg([rel[i] for i in order], cut) / _ideal(rel, cut)


def random_ndcg(relevance: Sequence[float], *, k: int | None = None) -> float:
    """Expected NDCG@k of a uniformly random ranking (exact, not simulated).

    >>> random_ndcg([1, 1, 1])
    1.0
    """
    rel = _relevance(relevance)
    cut = _cutoff(k, len(rel))
    mean = sum(rel) / len(rel)
    return mean * sum(1 / math.log2(r + 2) for r in range(cut)) / _ideal(rel, cut)


def top1(relevance: Sequence[float], ranking: Sequence[int]) -> bool:
    """Whether the first item of ``ranking`` has the highest relevance (ties count).

    >>> top1([2, 9, 9], [2, 0, 1]), top1([2, 9, 9], [0, 1, 2])
    (True, False)
    """
    rel = _relevance(relevance)
    order = _ranking(ranking, len(rel))
    return rel[order[0]] == max(rel)


def random_top1(relevance: Sequence[float]) -> float:
    """Probability that a random first choice has the highest relevance.

    >>> random_top1([2, 9, 9, 1])
    0.5
    """
    rel = _relevance(relevance)
    return sum(r == max(rel) for r in rel) / len(rel)


def interval_ranks(
    entries: Sequence[tuple[float, float | None, float | None]], *, higher_is_better: bool = True
) -> list[tuple[int, int, int, bool]]:
    """Ranks of ``(value, low, high)`` entries with the ranks their intervals allow.

    For each entry: ``(rank, best, worst, tied)``. ``rank`` is 1 + the number of entries
    with a better value; ``best`` is 1 + the number whose interval lies wholly above its
    interval (better for sure), ``worst`` is the count minus those wholly below it; ``tied``
    is True when its interval overlaps another entry's (the data do not separate them). An
    entry without an interval (too few items for one) could lie anywhere: it may take any
    rank, is tied with every other entry, and separates no other entry from it.

    >>> interval_ranks([(0.9, 0.85, 0.95), (0.7, 0.6, 0.88), (0.2, 0.1, 0.3)])
    [(1, 1, 2, True), (2, 1, 2, True), (3, 3, 3, False)]
    >>> interval_ranks([(1.0, None, None), (2.0, None, None)], higher_is_better=False)
    [(1, 1, 2, True), (2, 1, 2, True)]
    >>> interval_ranks([(0.9, 0.85, 0.95), (0.2, 0.1, 0.3), (0.5, None, None)])
    [(1, 1, 2, True), (3, 2, 3, True), (2, 1, 3, True)]
    """
    sign = 1.0 if higher_is_better else -1.0
    spans = []
    for value, low, high in entries:
        if low is None or high is None:  # no interval: it could lie anywhere
            spans.append((sign * value, -math.inf, math.inf))
            continue
        spans.append((sign * value, min(sign * low, sign * high), max(sign * low, sign * high)))
    out = []
    for i, (v, lo, hi) in enumerate(spans):
        others = [s for j, s in enumerate(spans) if j != i]
        rank = 1 + sum(1 for o in others if o[0] > v)
        above = sum(1 for o in others if o[1] > hi)
        below = sum(1 for o in others if o[2] < lo)
        out.append((rank, 1 + above, len(spans) - below, any(o[1] <= hi and lo <= o[2] for o in others)))
    return out
