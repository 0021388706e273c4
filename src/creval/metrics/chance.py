"""A score against chance and against norms: random lists drawn from a vocabulary, a mean
placed among the random lists' scores, and people's norms by group.

**The random-word control.** A DAT score is a mean pairwise distance between word vectors;
words drawn at random from the scorer's own vocabulary are already far apart (Bellemare-Pepin
et al. 2024: random GloVe lists average 89.96, above the mean of 100,000 people, 81.04).
:func:`draw_random_lists` draws ``lists`` lists of ``words`` distinct words (seeded, without
replacement within a list, with replacement across lists); scoring them with the same scorer
and rules gives the chance distribution, and :func:`chance_placement` places a model's mean
among it:

* ``percentile``: the share of random lists below the model's mean, ties counted half
  (:func:`creval.metrics.percentile.human_percentile` with the random lists as the people: its
  interval carries the model's trials and the finite number of random lists);
* ``difference``: model mean minus random mean with its unpaired interval
  (:func:`creval.metrics.unpaired.unpaired_difference`: nothing pairs a trial with a random
  list).

**Norms by group.** :func:`group_norms` gives, for each label (an age band, a sex, a country),
the number of people, their mean and sample sd (``ddof=1``), and :func:`place_in_groups`
the percentile of a value among each group's scores.

>>> lists = draw_random_lists(["cat", "dog", "sun", "ink", "oak"], lists=2, words=3, seed=0)
>>> [len(set(x)) for x in lists]
[3, 3]
>>> p = chance_placement([80.0, 82.0], [70.0, 75.0, 81.0, 85.0, 90.0])
>>> p.percentile, p.mean_random, round(p.difference, 6)
(50.0, 80.2, 0.8)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from creval.metrics.percentile import human_percentile, percentile_of_score
from creval.metrics.unpaired import unpaired_difference

__all__ = ["ChancePlacement", "GroupNorm", "chance_placement", "draw_random_lists", "group_norms",
           "place_in_groups"]


def _count(value: int, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return value


def draw_random_lists(vocabulary: Sequence[str], *, lists: int, words: int,
                      seed: int = 0) -> list[tuple[str, ...]]:
    """``lists`` lists of ``words`` distinct entries of ``vocabulary``, drawn uniformly.

    Within a list the words are drawn without replacement; lists are independent. The same
    ``vocabulary`` (in the same order), ``seed`` and counts give the same lists
    (``numpy.random.default_rng(seed)``). Duplicated entries of ``vocabulary`` are kept once.

    Examples
    --------
    Three words from three: every list is a permutation of the vocabulary.

    >>> sorted(draw_random_lists(["a", "b", "c"], lists=1, words=3, seed=1)[0])
    ['a', 'b', 'c']
    >>> draw_random_lists(["a", "b"], lists=1, words=3)
    Traceback (most recent call last):
    ...
    ValueError: words (3) exceeds the 2 distinct words of the vocabulary.
    """
    if isinstance(vocabulary, (str, bytes)):
        raise ValueError("vocabulary must be a sequence of words, not one string.")
    pool = list(dict.fromkeys(vocabulary))
    for i, w in enumerate(pool):
        if not isinstance(w, str) or not w:
            raise ValueError(f"vocabulary[{i}] must be a non-empty string, got {w!r}.")
    _count(lists, "lists")
    _count(words, "words")
    if words > len(pool):
        raise ValueError(f"words ({words}) exceeds the {len(pool)} distinct words of the vocabulary.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}.")
    rng = np.random.default_rng(seed)
    return [tuple(pool[int(i)] for i in rng.choice(len(pool), size=words, replace=False))
            for _ in range(lists)]


@dataclass(frozen=True)
class ChancePlacement:
    """A model's mean among random lists' scores (see the module docstring).

    ``low``/``high`` bound the percentile, ``difference_low``/``difference_high`` the
    difference; each is None with its reason when the values cannot support an interval."""

    mean_model: float
    mean_random: float
    sd_random: float | None
    n_model: int
    n_random: int
    percentile: float
    low: float | None
    high: float | None
    difference: float
    difference_low: float | None
    difference_high: float | None
    confidence: float
    reason: str | None = None
    difference_reason: str | None = None


def chance_placement(model: Sequence[float], random: Sequence[float], *,
                     confidence: float = 0.95,
                     groups: Sequence[Hashable] | None = None) -> ChancePlacement:
    """The mean of ``model`` (one score per trial) among ``random`` (one score per random
    list): percentile with interval, and the model-minus-random difference with interval.

    ``groups`` (one label per model value) takes a group's values as one trial for the
    percentile's interval (a trial and its repeats).

    Examples
    --------
    Mean 81 among five random lists: 81.0 ties one list, so 2.5 of 5 are below (50%).

    >>> p = chance_placement([80.0, 82.0], [70.0, 75.0, 81.0, 85.0, 90.0])
    >>> p.mean_model, p.percentile, p.low, p.reason
    (81.0, 50.0, None, 'n=2: too few trials for an interval (needs 10)')
    >>> round(p.sd_random, 4), p.difference_low, p.difference_reason
    (7.9183, None, 'n=2: too few items for an interval (needs 30)')
    """
    placed = human_percentile(model, random, confidence=confidence, groups=groups)
    diff = unpaired_difference(list(model), list(random), confidence=confidence)
    values = np.asarray(random, dtype=float)
    sd = float(values.std(ddof=1)) if values.size >= 2 else None
    return ChancePlacement(
        mean_model=placed.mean, mean_random=float(values.mean()), sd_random=sd,
        n_model=placed.n_model, n_random=placed.n_people, percentile=placed.percentile,
        low=placed.low, high=placed.high, difference=diff.difference,
        difference_low=diff.low, difference_high=diff.high, confidence=confidence,
        reason=placed.reason, difference_reason=diff.reason,
    )


@dataclass(frozen=True)
class GroupNorm:
    """One group's norm: its label, size, mean and sample sd (None below 2 people)."""

    group: str
    n: int
    mean: float
    sd: float | None


def _labelled(scores: Sequence[float], labels: Sequence[Hashable]) -> dict[str, list[float]]:
    if isinstance(scores, (str, bytes)) or isinstance(labels, (str, bytes)):
        raise ValueError("scores and labels must be sequences, not strings.")
    if len(scores) != len(labels):
        raise ValueError(f"scores and labels differ in length: {len(scores)} and {len(labels)}.")
    out: dict[str, list[float]] = {}
    for i, (value, label) in enumerate(zip(scores, labels, strict=True)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
                or not math.isfinite(value):
            raise ValueError(f"scores[{i}] must be a finite number, got {value!r}.")
        if label is None or (isinstance(label, str) and not label.strip()):
            continue  # a person without this attribute is in no group
        out.setdefault(str(label), []).append(float(value))
    return out


def group_norms(scores: Sequence[float], labels: Sequence[Hashable], *,
                min_people: int = 1) -> list[GroupNorm]:
    """Size, mean and sample sd of the scores of each label, largest group first (ties by
    label); groups smaller than ``min_people`` and people without a label (None or blank)
    are left out.

    Examples
    --------
    >>> [(g.group, g.n, g.mean, g.sd) for g in group_norms([1.0, 3.0, 5.0, 4.0],
    ...                                                   ["a", "a", "b", None])]
    [('a', 2, 2.0, 1.4142135623730951), ('b', 1, 5.0, None)]
    >>> [g.group for g in group_norms([1.0, 3.0, 5.0], ["a", "a", "b"], min_people=2)]
    ['a']
    """
    _count(min_people, "min_people")
    norms = []
    for label, values in _labelled(scores, labels).items():
        if len(values) < min_people:
            continue
        data = np.asarray(values)
        norms.append(GroupNorm(label, len(values), float(data.mean()),
                               float(data.std(ddof=1)) if len(values) >= 2 else None))
    return sorted(norms, key=lambda g: (-g.n, g.group))


def place_in_groups(value: float, scores: Sequence[float], labels: Sequence[Hashable], *,
                    min_people: int = 1) -> dict[str, float]:
    """The percentile (0..100, ties counted half) of ``value`` among each group's scores,
    for the groups :func:`group_norms` keeps, in its order.

    Examples
    --------
    >>> place_in_groups(3.0, [1.0, 3.0, 5.0, 2.0], ["a", "a", "b", "b"])
    {'a': 75.0, 'b': 50.0}
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) \
            or not math.isfinite(value):
        raise ValueError(f"value must be a finite number, got {value!r}.")
    by_label = _labelled(scores, labels)
    return {g.group: percentile_of_score(by_label[g.group], float(value))
            for g in group_norms(scores, labels, min_people=min_people)}
