"""How closely one partition of a prompt's answers agrees with another (a published one).

NoveltyBench (Zhang et al. 2025) counts a model's distinct answers to a prompt as the number
of equivalence classes its partitioner finds among the k answers. When another partitioner
re-partitions the same answers, two numbers say how far it is from the paper's:

* the **adjusted Rand index** (ARI; Hubert and Arabie 1985) between the two partitions of one
  prompt: the Rand index (the share of the ``n(n-1)/2`` pairs of answers on which both
  partitions agree, together or apart) corrected for chance, so 1 is the same partition, 0
  is the agreement expected between random partitions with the same class sizes, and it can
  be negative. Computed from the pair confusion counts (``tp`` pairs together in both,
  ``fp`` together only in ``ours``, ``fn`` only in the reference, ``tn`` apart in both):
  ``ARI = 2 (tp tn - fn fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn))``, and 1 when
  ``fn = fp = 0`` (scikit-learn's ``adjusted_rand_score`` convention). Caveat: when either
  partition is all singletons (every answer distinct) or one class, the expected index
  equals the index, so any disagreement scores exactly 0: a partitioner that merges one pair
  of ten answers the paper kept apart gets ARI 0 on that prompt.
* the **distinct-count error**: number of classes in ``ours`` minus number in the reference
  (positive: ours finds more distinct answers), the error a user sees in ``distinct_k``.

:func:`partition_agreement` takes many prompts and returns the per-prompt values, the mean ARI
and mean distinct error each with the t interval of :func:`~creval.metrics.intervals.mean_interval`
over prompts (none below ``min_items`` prompts, or when every value is equal), and the share
of prompts whose class count is exactly right.

>>> adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 2])
0.5714285714285714
>>> distinct_error([0, 0, 1, 1], [0, 0, 1, 2])
-1
>>> s = partition_agreement([[0, 0, 1], [0, 1, 2]], [[0, 0, 1], [0, 1, 1]])
>>> [round(p.ari, 3) for p in s.prompts], [p.distinct_error for p in s.prompts]
([1.0, 0.0], [0, 1])
>>> s.ari.mean, s.distinct_error.mean, s.exact_distinct, s.n
(0.5, 0.5, 0.5, 2)
>>> s.ari.reason
'n=2: too few items for an interval (needs 10)'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from creval.metrics.intervals import MIN_ITEMS, MeanInterval, mean_interval

__all__ = [
    "AgreementSummary",
    "PromptAgreement",
    "adjusted_rand_index",
    "distinct_error",
    "pair_confusion",
    "partition_agreement",
]


def _labels(labels: Sequence[Hashable], name: str) -> list[Hashable]:
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise ValueError(f"{name} must be a sequence of class labels, got {type(labels).__name__}.")
    out = list(labels)
    for i, label in enumerate(out):
        if not isinstance(label, Hashable) or isinstance(label, float) and label != label:
            raise ValueError(f"{name}[{i}] must be a class label (hashable, not NaN), got {label!r}.")
    return out


def _pair(ours: Sequence[Hashable], reference: Sequence[Hashable]) -> tuple[list[Hashable], list[Hashable]]:
    a, b = _labels(ours, "ours"), _labels(reference, "reference")
    if len(a) != len(b):
        raise ValueError(
            f"The two partitions must label the same answers: ours has {len(a)} labels, "
            f"reference {len(b)}."
        )
    if not a:
        raise ValueError("The partitions are empty: there are no answers to compare.")
    return a, b


def _pairs_within(counts: Counter[Hashable]) -> int:
    return sum(c * (c - 1) // 2 for c in counts.values())


def pair_confusion(ours: Sequence[Hashable], reference: Sequence[Hashable]) -> tuple[int, int, int, int]:
    """``(tp, fp, fn, tn)``: unordered pairs of answers together in both partitions, together
    only in ``ours``, together only in ``reference``, apart in both.

    >>> pair_confusion(["a", "a", "b"], [1, 1, 1])
    (1, 0, 2, 0)
    """
    a, b = _pair(ours, reference)
    n = len(a)
    tp = _pairs_within(Counter(zip(a, b, strict=True)))
    together_ours, together_ref = _pairs_within(Counter(a)), _pairs_within(Counter(b))
    fp, fn = together_ours - tp, together_ref - tp
    return tp, fp, fn, n * (n - 1) // 2 - tp - fp - fn


def adjusted_rand_index(ours: Sequence[Hashable], reference: Sequence[Hashable]) -> float:
    """The adjusted Rand index between two partitions of the same answers (class labels per
    answer; the label values themselves do not matter, only which answers share one).

    Symmetric; 1 for the same partition (also for a single answer), about 0 for chance.

    >>> adjusted_rand_index([0, 1, 2, 3], [5, 6, 7, 8]), adjusted_rand_index([0, 0, 0], [1, 1, 1])
    (1.0, 1.0)
    >>> adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    >>> adjusted_rand_index([0, 1], [0])
    Traceback (most recent call last):
    ...
    ValueError: The two partitions must label the same answers: ours has 2 labels, reference 1.
    """
    tp, fp, fn, tn = pair_confusion(ours, reference)
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def distinct_error(ours: Sequence[Hashable], reference: Sequence[Hashable]) -> int:
    """Classes in ``ours`` minus classes in ``reference`` (how many more distinct answers ours
    counts).

    >>> distinct_error(["x", "y", "z"], [0, 0, 1])
    1
    """
    a, b = _pair(ours, reference)
    return len(set(a)) - len(set(b))


@dataclass(frozen=True)
class PromptAgreement:
    """One prompt: ARI, class counts of both partitions and their difference."""

    ari: float
    classes_ours: int
    classes_reference: int

    @property
    def distinct_error(self) -> int:
        return self.classes_ours - self.classes_reference


@dataclass(frozen=True)
class AgreementSummary:
    """Per-prompt agreement and its means over prompts (with intervals) and the exact rate."""

    prompts: tuple[PromptAgreement, ...]
    ari: MeanInterval
    distinct_error: MeanInterval
    #: Share of prompts whose number of classes is exactly the reference's.
    exact_distinct: float

    @property
    def n(self) -> int:
        return len(self.prompts)


def partition_agreement(
    ours: Sequence[Sequence[Hashable]],
    reference: Sequence[Sequence[Hashable]],
    *,
    confidence: float = 0.95,
    min_items: int = MIN_ITEMS,
) -> AgreementSummary:
    """Agreement of ``ours[i]`` with ``reference[i]`` for every prompt ``i``, and the means
    over prompts with their intervals (see the module docstring).

    >>> partition_agreement([[0, 1]], [])
    Traceback (most recent call last):
    ...
    ValueError: ours has 1 prompts and reference 0: give one partition of each per prompt.
    """
    if isinstance(ours, (str, bytes)) or isinstance(reference, (str, bytes)):
        raise ValueError("ours and reference must be sequences of partitions, one per prompt.")
    if len(ours) != len(reference):
        raise ValueError(
            f"ours has {len(ours)} prompts and reference {len(reference)}: give one partition "
            "of each per prompt."
        )
    if not ours:
        raise ValueError("There are no prompts to compare.")
    rows: list[PromptAgreement] = []
    for i, (a, b) in enumerate(zip(ours, reference, strict=True)):
        try:
            ari = adjusted_rand_index(a, b)
        except ValueError as exc:
            raise ValueError(f"Prompt {i}: {exc}") from exc
        rows.append(PromptAgreement(ari, len(set(a)), len(set(b))))
    aris = [r.ari for r in rows]
    errors = [float(r.distinct_error) for r in rows]
    return AgreementSummary(
        prompts=tuple(rows),
        ari=mean_interval(aris, confidence=confidence, min_items=min_items),
        distinct_error=mean_interval(errors, confidence=confidence, min_items=min_items),
        exact_distinct=sum(r.distinct_error == 0 for r in rows) / len(rows),
    )
