"""Where a model's mean score falls among people's scores: a percentile with its interval.

The **percentile** of a value ``m`` among ``n`` people's scores is, in percent (0..100),

* ``strict``: the share of people scoring below ``m``;
* ``weak``: the share scoring at most ``m``;
* ``mean`` (default): the average of the two, i.e. below plus half of the ties;

the ``kind`` of :func:`scipy.stats.percentileofscore` of the same names. For continuous
scores without ties the three agree ("the model scores above p% of people").

The **interval** is a percentile bootstrap (Efron and Tibshirani 1993, ch. 13) over both
sources of uncertainty: each resample draws the model's trials with replacement (giving a
resampled mean ``m*``) and, independently, ``n`` people with replacement, and computes the
percentile of ``m*`` among them. The people are not redrawn one by one: the number of
resampled people below ``m*`` is exactly Binomial(n, share below ``m*``) and the number tied
with it, of the rest, Binomial(rest, ties / (people not below)), so a resample costs two
binomial draws and a binary search instead of ``n`` draws (same distribution).

With ``groups`` (one label per trial: DAT's trial index when a run has repeats), a resample
draws whole groups with replacement, each with all its values (a cluster bootstrap: Davison
and Hinkley 1997, section 3.8), since repeats of one trial are not independent trials. With a
single trial (or a single group) the model's side has nothing to resample and the interval
covers the sampling of the people only (``HumanPercentile.covers`` says which).

>>> people = [60.0, 70.0, 75.0, 80.0, 90.0]
>>> round(percentile_of_score(people, 78.0), 1)
60.0
>>> r = human_percentile([77.0, 79.0], people, seed=0)
>>> r.percentile, r.mean, r.n_model, r.n_people
(60.0, 78.0, 2, 5)
>>> r.low <= r.percentile <= r.high
True
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["HumanPercentile", "human_percentile", "percentile_of_score"]

Kind = Literal["mean", "strict", "weak"]


@dataclass(frozen=True)
class HumanPercentile:
    """A model's mean, its percentile among people (0..100) and the bootstrap interval."""

    mean: float
    percentile: float
    low: float
    high: float
    n_model: int
    n_people: int
    confidence: float
    resamples: int
    #: What the interval covers: "trials and people", "groups of trials and people" (with
    #: ``groups``) or "people only" (one trial or one group: nothing of the model's to resample).
    covers: str = "trials and people"
    #: Groups the model's trials were resampled in (None: each trial alone).
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


def human_percentile(
    model: Sequence[float],
    people: Sequence[float],
    *,
    kind: Kind = "mean",
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
    groups: Sequence[Hashable] | None = None,
) -> HumanPercentile:
    """The percentile of the mean of ``model`` (one score per trial) among ``people`` (one
    score per person), with a ``confidence`` percentile bootstrap interval over both;
    ``groups`` (one label per value of ``model``) resamples the model's values by group.

    >>> r = human_percentile([77.0, 79.0, 78.0, 80.0], [60.0, 70.0, 75.0, 80.0, 90.0],
    ...                      groups=[0, 0, 1, 1])
    >>> r.covers, r.n_groups, r.n_model
    ('groups of trials and people', 2, 4)
    >>> human_percentile([78.0], [60.0, 70.0, 75.0, 80.0, 90.0]).covers
    'people only'
    """
    trials = _finite(model, "model")
    members = _members(groups, len(trials))
    data = np.sort(_finite(people, "people"))
    _kind(kind)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")
    n = len(data)
    mean = float(trials.mean())
    point = percentile_of_score(data.tolist(), mean, kind=kind)
    rng = np.random.default_rng(seed)
    means = _resampled_means(trials, members, resamples, rng)
    below = np.searchsorted(data, means, side="left")
    tied = np.searchsorted(data, means, side="right") - below
    drawn_below = rng.binomial(n, below / n)
    rest = n - drawn_below
    not_below = n - below
    share = np.divide(tied, not_below, out=np.zeros(resamples), where=not_below > 0)
    drawn_ties = rng.binomial(rest, share)
    values = _from_counts(drawn_below, drawn_ties, n, kind)
    low, high = np.quantile(values, [(1 - confidence) / 2, (1 + confidence) / 2])
    return HumanPercentile(mean=mean, percentile=point, low=float(low), high=float(high),
                           n_model=len(trials), n_people=n, confidence=confidence,
                           resamples=resamples, covers=_covers(len(trials), members),
                           n_groups=None if members is None else len(members))


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


def _resampled_means(trials: np.ndarray, members: list[list[int]] | None, resamples: int,
                     rng: np.random.Generator) -> np.ndarray:
    """The mean of each resample of the model's values: values, or whole groups, drawn with
    replacement."""
    if members is None:
        return trials[rng.integers(0, len(trials), size=(resamples, len(trials)))].mean(axis=1)
    sums = np.array([trials[m].sum() for m in members])
    sizes = np.array([len(m) for m in members], dtype=float)
    picks = rng.integers(0, len(members), size=(resamples, len(members)))
    return np.asarray(sums[picks].sum(axis=1) / sizes[picks].sum(axis=1))


def _covers(n: int, members: list[list[int]] | None) -> str:
    if n == 1 or (members is not None and len(members) == 1):
        return "people only"
    return "trials and people" if members is None else "groups of trials and people"
