"""NoveltyBench's measures of k answers to one prompt (Zhang et al. 2025, "NoveltyBench:
Evaluating Language Models for Humanlike Diversity"; code ``novelty-bench/novelty-bench``,
``src/partition.py`` and ``src/score.py``).

The k answers are partitioned into equivalence classes (class ids numbered 0, 1, ... in order
of first appearance, as the greedy representative partition of
:mod:`creval.metrics.partition` numbers them).

* :func:`distinct_classes`: ``distinct_k``, the number of classes, in ``[1, k]``.
* :func:`paper_distinct`: the value the paper's code stores per prompt as ``distinct``,
  ``max(partition)``: one less than the number of classes (``[0, k - 1]``). The site's
  summaries add the one back; creval reports both and names them apart.
* :func:`utility`: ``utility_k``. Each answer that founds a class keeps its quality rating
  (an integer 1-10), every other answer scores 0, and the k values are averaged with the
  patience weights ``patience ** i`` (``np.average(generation_scores, weights=0.8 **
  arange(k))`` in ``score.py``): a user who reads answers in order, with probability
  ``patience`` of reading the next one, values each new idea by its quality.
* :func:`reward_to_rating`: the paper's map of its reward model's raw reward (Skywork-Reward-
  Gemma-2-27B-v0.2) to a rating 1-10 (``bisect_left`` over nine thresholds, plus one).

Worked example: classes ``(0, 0, 1)``, ratings 8 (first answer) and 6 (third): the founders
are answers 0 and 2, the scores ``(8, 0, 6)``, the weights ``(1, 0.8, 0.64)``, so utility is
``(8 + 0 + 3.84) / 2.44 = 4.8525``.

>>> distinct_classes([0, 0, 1]), paper_distinct([0, 0, 1])
(2, 1)
>>> round(utility([0, 0, 1], [8, None, 6]), 4)
4.8525
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

__all__ = [
    "PATIENCE",
    "REWARD_THRESHOLDS",
    "check_partition",
    "distinct_classes",
    "founders",
    "generation_scores",
    "paper_distinct",
    "reward_to_rating",
    "utility",
]

#: The paper's default patience (``score.py --patience 0.8``).
PATIENCE = 0.8
#: The raw rewards at which the paper's rating steps up (``score.py``'s ``reward_thresholds``).
REWARD_THRESHOLDS: tuple[float, ...] = (
    -7.71875, -6.28125, -6.0, -5.71875, -5.5, -5.0, -4.375, -3.4375, -2.046875,
)


def check_partition(partition: Sequence[int]) -> list[int]:
    """``partition`` as a list of class ids numbered in order of first appearance (the
    first answer is class 0, and each new class is one more than the largest so far).

    >>> check_partition([0, 1, 0, 2])
    [0, 1, 0, 2]
    >>> check_partition([0, 2, 1])
    Traceback (most recent call last):
    ...
    ValueError: partition[1] is 2, but a new class must be numbered 1 (classes are numbered in order of first appearance).
    """
    if isinstance(partition, (str, bytes)) or not isinstance(partition, Sequence):
        raise ValueError(f"partition must be a sequence of class ids, got {type(partition).__name__}.")
    if not partition:
        raise ValueError("partition is empty: it needs the class of at least one answer.")
    out: list[int] = []
    seen = 0
    for i, c in enumerate(partition):
        if isinstance(c, bool) or not isinstance(c, int) or c < 0:
            raise ValueError(f"partition[{i}] must be a class id (an integer >= 0), got {c!r}.")
        if c > seen:
            raise ValueError(f"partition[{i}] is {c}, but a new class must be numbered {seen} "
                             "(classes are numbered in order of first appearance).")
        seen += c == seen
        out.append(c)
    return out


def distinct_classes(partition: Sequence[int]) -> int:
    """``distinct_k``: the number of equivalence classes among the answers.

    >>> distinct_classes([0, 1, 1, 2])
    3
    """
    return max(check_partition(partition)) + 1


def paper_distinct(partition: Sequence[int]) -> int:
    """The paper's stored per-prompt ``distinct``, ``max(partition)``: the number of classes
    minus one (``partition.py``). Compare it only with values stored the same way.

    >>> paper_distinct([0, 1, 1, 2])
    2
    """
    return max(check_partition(partition))


def founders(partition: Sequence[int]) -> list[bool]:
    """Whether each answer is the first of its class (the one whose quality counts).

    >>> founders([0, 0, 1, 0, 2])
    [True, False, True, False, True]
    """
    ids = check_partition(partition)
    first: set[int] = set()
    out = []
    for c in ids:
        out.append(c not in first)
        first.add(c)
    return out


def _rating(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    return float(value)


def generation_scores(partition: Sequence[int], ratings: Sequence[float | None]) -> list[float]:
    """The paper's ``generation_scores``: each founder's rating, 0 for every other answer.
    Ratings of non-founders are not read (they may be None).

    >>> generation_scores([0, 0, 1], [8, None, 6])
    [8.0, 0.0, 6.0]
    """
    first = founders(partition)
    if isinstance(ratings, (str, bytes)) or not isinstance(ratings, Sequence):
        raise ValueError(f"ratings must be a sequence of numbers, got {type(ratings).__name__}.")
    if len(ratings) != len(first):
        raise ValueError(f"ratings has {len(ratings)} values but partition {len(first)} answers; "
                         "give one rating per answer.")
    return [_rating(r, f"ratings[{i}]") if f else 0.0
            for i, (f, r) in enumerate(zip(first, ratings, strict=True))]


def utility(partition: Sequence[int], ratings: Sequence[float | None], *,
            patience: float = PATIENCE) -> float:
    """``utility_k``: the patience-weighted mean of :func:`generation_scores`, in
    ``[0, max rating]``; weights ``patience ** i`` for answer ``i`` (0-based).

    >>> utility([0, 1], [10, 10], patience=0.5)
    10.0
    >>> round(utility([0, 0], [10, 3], patience=0.5), 4)
    6.6667
    """
    if isinstance(patience, bool) or not isinstance(patience, (int, float)) or not 0 < patience <= 1:
        raise ValueError(f"patience must be a number in (0, 1], got {patience!r}.")
    scores = generation_scores(partition, ratings)
    weights = [patience ** i for i in range(len(scores))]
    return math.fsum(w * s for w, s in zip(weights, scores, strict=True)) / math.fsum(weights)


def reward_to_rating(reward: float) -> int:
    """The paper's rating 1-10 of a raw reward: one more than the number of thresholds
    strictly below it (``bisect_left``), so a reward equal to a threshold stays below it.

    >>> reward_to_rating(-9.0), reward_to_rating(-7.71875), reward_to_rating(-7.7), reward_to_rating(0.0)
    (1, 1, 2, 10)
    """
    return bisect.bisect_left(REWARD_THRESHOLDS, _rating(reward, "reward")) + 1
