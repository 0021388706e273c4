"""Where a model's mean score falls among people's scores: a percentile with its interval.

The **percentile** of a value ``m`` among ``n`` people's scores is, in percent (0..100),

* ``strict``: the share of people scoring below ``m``;
* ``weak``: the share scoring at most ``m``;
* ``mean`` (default): the average of the two, i.e. below plus half of the ties;

the ``kind`` of :func:`scipy.stats.percentileofscore` of the same names. For continuous
scores without ties the three agree ("the model scores above p% of people").

The **interval** carries both sources of uncertainty, the model's trials and the sample of
people, and is only given from :data:`creval.metrics.intervals.MIN_ITEMS` trials up (below,
``low`` and ``high`` are None and ``reason`` says why). The percentile rises with the mean,
so an interval ``[L, H]`` of the model's mean maps to one of its percentile ``[F(L), F(H)]``
where ``F`` is the people's share below; ``F`` itself is estimated from ``n`` people, so each
end takes the one-sided Clopper-Pearson bound of that share. Confidence is split
(Bonferroni): the mean interval (:func:`creval.metrics.intervals.mean_interval`) at
``1 - alpha / 2`` and each people's bound at ``1 - alpha / 4``, so the whole holds at least
``1 - alpha``. The percentile bootstrap used before covered 50% at 2 trials and 80-90% at
5-10 trials (``tests/metrics/test_interval_coverage.py``).

With ``groups`` (one label per trial: DAT's trial index when a run has repeats), the
interval of the mean is taken over the groups' means, since repeats of one trial are not
independent trials (the cluster as the unit: Davison and Hinkley 1997, section 3.8); a run
needs as many groups as :data:`~creval.metrics.intervals.MIN_ITEMS` for an interval.

>>> people = [60.0, 70.0, 75.0, 80.0, 90.0]
>>> round(percentile_of_score(people, 78.0), 1)
60.0
>>> r = human_percentile([77.0, 79.0], people)
>>> r.percentile, r.mean, r.n_model, r.n_people, r.low, r.reason
(60.0, 78.0, 2, 5, None, 'n=2: too few trials for an interval (needs 10)')
>>> r = human_percentile([77.0, 79.0] * 5, list(range(50, 100)))
>>> round(r.low, 1), r.percentile, round(r.high, 1)
(39.3, 57.0, 73.5)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from creval.metrics.intervals import MIN_ITEMS, mean_intervals, too_few

__all__ = ["HumanPercentile", "human_percentile", "percentile_bounds", "percentile_of_score"]

Kind = Literal["mean", "strict", "weak"]


@dataclass(frozen=True)
class HumanPercentile:
    """A model's mean, its percentile among people (0..100) and its interval (None, with
    the ``reason``, when the trials are too few or all equal)."""

    mean: float
    percentile: float
    low: float | None
    high: float | None
    n_model: int
    n_people: int
    confidence: float
    reason: str | None = None
    #: What the interval covers: "trials and people", or "groups of trials and people" (with
    #: ``groups``: a trial's repeats counted as one trial).
    covers: str = "trials and people"
    #: Groups the model's trials were taken in (None: each trial alone).
    n_groups: int | None = None


def _finite(values: Sequence[float], name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)) or len(values) == 0:
        raise ValueError(f"{name} must be a non-empty sequence of numbers.")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not math.isfinite(v):
            raise ValueError(f"{name}[{i}] must be a finite number, got {v!r}.")
    return np.asarray(values, dtype=float)


def _kind(kind: str) -> None:
    if kind not in ("mean", "strict", "weak"):
        raise ValueError(f"kind must be 'mean', 'strict' or 'weak', got {kind!r}.")


def _from_counts(below: np.ndarray | int, ties: np.ndarray | int, n: int, kind: str) -> np.ndarray:
    weight = {"strict": 0.0, "weak": 1.0, "mean": 0.5}[kind]
    return 100.0 * (np.asarray(below, dtype=float) + weight * np.asarray(ties, dtype=float)) / n


def percentile_of_score(people: Sequence[float], score: float, *, kind: Kind = "mean") -> float:
    """The percentile (0..100) of ``score`` among ``people``; ``kind`` as the module says.

    >>> percentile_of_score([1.0, 2.0, 2.0, 3.0], 2.0, kind="strict")
    25.0
    >>> percentile_of_score([1.0, 2.0, 2.0, 3.0], 2.0, kind="weak")
    75.0
    >>> percentile_of_score([1.0, 2.0, 2.0, 3.0], 2.0)
    50.0
    """
    data = np.sort(_finite(people, "people"))
    if isinstance(score, bool) or not isinstance(score, (int, float, np.floating)) or not math.isfinite(score):
        raise ValueError(f"score must be a finite number, got {score!r}.")
    _kind(kind)
    below = int(np.searchsorted(data, score, side="left"))
    ties = int(np.searchsorted(data, score, side="right")) - below
    return float(_from_counts(below, ties, len(data), kind))


def percentile_bounds(model: np.ndarray, people: np.ndarray, *, kind: Kind = "mean",
                      confidence: float = 0.95,
                      min_items: int = MIN_ITEMS) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised interval of :func:`human_percentile`: row ``i`` of ``model`` (trials) and
    of ``people`` (sorted or not) gives ``(low[i], high[i])``, NaN where the trials cannot
    support an interval. The coverage simulation calls it on thousands of rows at once.

    >>> low, high = percentile_bounds(np.array([[77.0, 79.0] * 5]), np.arange(50.0, 100.0)[None])
    >>> round(float(low[0]), 1), round(float(high[0]), 1)
    (39.3, 73.5)
    """
    from scipy.stats import beta

    alpha = 1.0 - confidence
    _, lows, highs = mean_intervals(model, confidence=1 - alpha / 2, min_items=min_items)
    n = people.shape[1]
    weight = {"strict": 0.0, "weak": 1.0, "mean": 0.5}[kind]

    def count(at: np.ndarray) -> np.ndarray:
        below = (people < at[:, None]).sum(axis=1)
        return below + weight * (people == at[:, None]).sum(axis=1)

    with np.errstate(invalid="ignore"):
        k_low, k_high = np.floor(count(lows)), np.ceil(count(highs))
        tail = alpha / 4  # one-sided Clopper-Pearson bounds of the share below
        low = np.where(k_low > 0, beta.ppf(tail, np.maximum(k_low, 1), n - k_low + 1), 0.0)
        high = np.where(k_high < n, beta.ppf(1 - tail, k_high + 1, np.maximum(n - k_high, 1)), 1.0)
    missing = np.isnan(lows)
    return np.where(missing, np.nan, 100.0 * low), np.where(missing, np.nan, 100.0 * high)


def human_percentile(
    model: Sequence[float],
    people: Sequence[float],
    *,
    kind: Kind = "mean",
    confidence: float = 0.95,
    min_items: int = MIN_ITEMS,
    groups: Sequence[Hashable] | None = None,
) -> HumanPercentile:
    """The percentile of the mean of ``model`` (one score per trial) among ``people`` (one
    score per person), with its ``confidence`` interval over both (see the module docstring);
    ``groups`` (one label per value of ``model``) takes a group's values as one trial for the
    interval.

    >>> human_percentile([80.0] * 12, [70.0, 90.0]).reason
    'all 12 trials are equal: nothing varied, no interval'
    >>> r = human_percentile([77.0, 79.0, 78.0, 80.0], [60.0, 70.0, 75.0, 80.0, 90.0],
    ...                      groups=[0, 0, 1, 1])
    >>> r.covers, r.n_groups, r.n_model, r.reason
    ('groups of trials and people', 2, 4, 'n=2: too few trials for an interval (needs 10)')
    """
    trials = _finite(model, "model")
    members = _members(groups, len(trials))
    data = np.sort(_finite(people, "people"))
    _kind(kind)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 2:
        raise ValueError(f"min_items must be an integer >= 2, got {min_items!r}.")
    mean = float(trials.mean())
    point = percentile_of_score(data.tolist(), mean, kind=kind)
    members = _members(groups, len(trials))
    # the interval's unit: a trial, or a group of a trial's repeats (their mean)
    units = trials if members is None else np.array([trials[m].mean() for m in members])
    covers = "trials and people" if members is None else "groups of trials and people"
    n_groups = None if members is None else len(members)
    size = len(units)
    reason = (too_few(size, min_items, "trials") if size < min_items else
              f"all {size} trials are equal: nothing varied, no interval"
              if units.min() == units.max() else None)
    if reason is not None:
        return HumanPercentile(mean, point, None, None, len(trials), len(data), confidence, reason,
                               covers, n_groups)
    low, high = percentile_bounds(units[None, :], data[None, :], kind=kind,
                                  confidence=confidence, min_items=min_items)
    return HumanPercentile(mean=mean, percentile=point, low=float(low[0]), high=float(high[0]),
                           n_model=len(trials), n_people=len(data), confidence=confidence,
                           covers=covers, n_groups=n_groups)


def _members(groups: Sequence[Hashable] | None, n: int) -> list[list[int]] | None:
    """The indices of each group's values, in order of first appearance."""
    if groups is None:
        return None
    if isinstance(groups, (str, bytes)) or len(groups) != n:
        raise ValueError(f"groups must give one label per model value: {n} values, "
                         f"{len(groups)} labels.")
    out: dict[Hashable, list[int]] = {}
    for i, label in enumerate(groups):
        out.setdefault(label, []).append(i)
    return list(out.values())
