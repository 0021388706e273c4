"""Agreement between a metric or judge and human annotators (seed 001, Table 1, C.7, D).

* :func:`majority_vote` and :func:`majority_accuracy`: accuracy of predictions against
  the majority label of several annotators per item.
* :func:`cohen_kappa`: chance-corrected agreement of two raters over any hashable labels.
* :func:`rank_agreement`: Spearman's rho and Kendall's tau-b between two rankings or
  scores (:func:`creval.metrics.stats.spearman` and :func:`~creval.metrics.stats.kendall`).

Tie handling (documented once, used everywhere): an item whose annotators give two or more
labels the same highest number of votes has *no* majority. :func:`majority_vote` returns
None for it; :func:`majority_accuracy` leaves it out of the accuracy by default and
reports how many items it left out (``ties="exclude"``), or counts a prediction equal to
any tied label as correct (``ties="any"``), or raises (``ties="error"``).

>>> majority_vote([["a", "a", "b"], ["a", "b"]])
['a', None]
>>> round(cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"]).kappa, 6)
0.5
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from creval.metrics.stats import Correlation, kendall, spearman

__all__ = [
    "Kappa",
    "MajorityAccuracy",
    "RankAgreement",
    "cohen_kappa",
    "majority_accuracy",
    "majority_vote",
    "rank_agreement",
]

TiePolicy = Literal["exclude", "any", "error"]


def _sequence(values: object, name: str) -> Sequence[object]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence, got {type(values).__name__}.")
    return values


def _hashable(value: object, where: str) -> Hashable:
    if value is None or not isinstance(value, Hashable):
        raise ValueError(f"{where} must be a hashable label (not None), got {value!r}.")
    return value


def _top_labels(votes: Sequence[object], where: str) -> list[Hashable]:
    """The labels with the most votes, in order of first vote."""
    _sequence(votes, where)
    if not votes:
        raise ValueError(f"{where} has no annotations; every item needs at least one.")
    counts = Counter(_hashable(v, f"{where}[{j}]") for j, v in enumerate(votes))
    best = max(counts.values())
    return [label for label in counts if counts[label] == best]


def majority_vote(annotations: Sequence[Sequence[Hashable]]) -> list[Hashable | None]:
    """The label most annotators gave each item, or None when the top count is tied.

    ``annotations[i]`` holds the labels the annotators gave item ``i`` (any number >= 1;
    items may have different numbers of annotators).

    >>> majority_vote([[1, 1, 0], [0, 0, 1], [1, 0], ["x"]])
    [1, 0, None, 'x']
    """
    _sequence(annotations, "annotations")
    out: list[Hashable | None] = []
    for i, votes in enumerate(annotations):
        top = _top_labels(votes, f"annotations[{i}]")
        out.append(top[0] if len(top) == 1 else None)
    return out


@dataclass(frozen=True)
class MajorityAccuracy:
    """Accuracy over ``n_scored`` items; ``n_ties`` items had no majority.

    ``accuracy`` is None when no item could be scored.
    """

    accuracy: float | None
    n_correct: int
    n_scored: int
    n_ties: int
    majority: list[Hashable | None]


def majority_accuracy(
    predictions: Sequence[Hashable],
    annotations: Sequence[Sequence[Hashable]],
    *,
    ties: TiePolicy = "exclude",
) -> MajorityAccuracy:
    """Fraction of items where the prediction equals the annotators' majority label.

    ``ties``: ``"exclude"`` (default) leaves items without a majority out of the accuracy
    and counts them in ``n_ties``; ``"any"`` scores them, counting the prediction correct
    when it is one of the tied labels; ``"error"`` raises ``ValueError``.

    Hand calculation: majorities are y, n, (tie y/n), y; predictions y, y, n, y are right
    on items 1 and 4 and wrong on item 2, so 2/3 with the tie excluded and 3/4 with
    ``ties="any"``.

    >>> votes = [["y", "y", "n"], ["n", "n", "y"], ["y", "n"], ["y", "y", "y"]]
    >>> r = majority_accuracy(["y", "y", "n", "y"], votes)
    >>> round(r.accuracy, 6), r.n_scored, r.n_ties
    (0.666667, 3, 1)
    >>> majority_accuracy(["y", "y", "n", "y"], votes, ties="any").accuracy
    0.75
    """
    if ties not in ("exclude", "any", "error"):
        raise ValueError(f"ties must be 'exclude', 'any' or 'error', got {ties!r}.")
    _sequence(predictions, "predictions")
    _sequence(annotations, "annotations")
    if len(predictions) != len(annotations):
        raise ValueError(
            f"predictions and annotations must have the same length, got {len(predictions)} "
            f"and {len(annotations)}."
        )
    correct = scored = tied = 0
    majority: list[Hashable | None] = []
    for i, (pred, votes) in enumerate(zip(predictions, annotations, strict=True)):
        _hashable(pred, f"predictions[{i}]")
        top = _top_labels(votes, f"annotations[{i}]")
        majority.append(top[0] if len(top) == 1 else None)
        if len(top) > 1:
            tied += 1
            if ties == "error":
                raise ValueError(
                    f"annotations[{i}] has no majority (tied labels {top!r}); pass "
                    "ties='exclude' or ties='any' to score such items."
                )
            if ties == "exclude":
                continue
        scored += 1
        correct += pred in top
    accuracy = correct / scored if scored else None
    return MajorityAccuracy(accuracy, correct, scored, tied, majority)


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa with the observed (``p_o``) and chance (``p_e``) agreement.

    ``kappa`` is None when ``p_e`` is 1 (both raters used one and the same label for every
    item): agreement beyond chance is then undefined, and ``note`` says so.
    """

    kappa: float | None
    p_o: float
    p_e: float
    n: int
    note: str | None = None


def cohen_kappa(
    rater_a: Sequence[Hashable],
    rater_b: Sequence[Hashable],
    *,
    labels: Sequence[Hashable] | None = None,
) -> Kappa:
    """Cohen's kappa ``(p_o - p_e) / (1 - p_e)`` for two raters over any hashable labels.

    ``p_o`` is the fraction of items both raters labelled the same; ``p_e`` is the sum over
    labels of the product of the two raters' label frequencies. ``labels``, when given,
    lists every allowed label; a label outside it is an error (catches typos such as
    ``"Yes"`` vs ``"yes"``). Labels are compared with ``==``, so ``1`` and ``True`` match.

    Hand calculation: a = y y n n, b = y n n n. p_o = 3/4. a says y 2/4, n 2/4; b says y 1/4,
    n 3/4; p_e = 2/4 * 1/4 + 2/4 * 3/4 = 1/2. kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.

    >>> k = cohen_kappa(["y", "y", "n", "n"], ["y", "n", "n", "n"])
    >>> k.kappa, k.p_o, k.p_e
    (0.5, 0.75, 0.5)
    >>> cohen_kappa(["a", "a"], ["a", "a"]).note
    'both raters gave every item the same single label: kappa is undefined'
    """
    a = _sequence(rater_a, "rater_a")
    b = _sequence(rater_b, "rater_b")
    if len(a) != len(b):
        raise ValueError(
            f"rater_a and rater_b must have the same length, got {len(a)} and {len(b)}."
        )
    if not a:
        raise ValueError("Cohen's kappa needs at least one item.")
    for name, values in (("rater_a", a), ("rater_b", b)):
        for i, v in enumerate(values):
            _hashable(v, f"{name}[{i}]")
    if labels is not None:
        allowed = set(_sequence(labels, "labels"))
        for name, values in (("rater_a", a), ("rater_b", b)):
            unknown = [v for v in values if v not in allowed]
            if unknown:
                raise ValueError(
                    f"{name} uses label(s) {sorted(set(map(repr, unknown)))} not in labels."
                )
    n = len(a)
    p_o = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    p_e = sum(count_a[label] * count_b.get(label, 0) for label in count_a) / (n * n)
    if p_e >= 1.0:
        note = "both raters gave every item the same single label: kappa is undefined"
        return Kappa(kappa=None, p_o=p_o, p_e=p_e, n=n, note=note)
    return Kappa(kappa=(p_o - p_e) / (1.0 - p_e), p_o=p_o, p_e=p_e, n=n)


@dataclass(frozen=True)
class RankAgreement:
    """Spearman's rho and Kendall's tau-b between two rankings, each with its p-value."""

    spearman: Correlation
    kendall: Correlation


def rank_agreement(x: Sequence[float], y: Sequence[float]) -> RankAgreement:
    """Spearman's rho and Kendall's tau-b of two rankings or scores of the same items.

    Ranks or raw scores both work (both coefficients depend only on the order). Appendix
    C.7 of seed 001 reports both for the novelty judge against the human ranking.

    Hand calculation: ranks 1, 2, 3, 4 against 1, 3, 2, 4 differ by one swap:
    rho = 1 - 6 * 2 / (4 * 15) = 0.8 and tau = (5 - 1) / 6 = 2/3.

    >>> r = rank_agreement([1, 2, 3, 4], [1, 3, 2, 4])
    >>> round(r.spearman.r, 6), round(r.kendall.r, 6)
    (0.8, 0.666667)
    """
    return RankAgreement(spearman=spearman(x, y), kendall=kendall(x, y))
