"""Accuracy of a thresholded score against binary gold labels, over a grid of thresholds.

Used for the entailment-model comparison of seed 001 (appendix C.3, Table 6): a model's
entailment probability (or the embedding fallback's cosine similarity) is turned into a
verdict by ``score >= threshold``, and the sweep shows which threshold agrees best with the
human labels.

>>> pts = threshold_sweep([0.9, 0.6, 0.4, 0.1], [True, False, True, False], [0.5])
>>> pts[0].accuracy, pts[0].true_positive, pts[0].false_positive
(0.5, 1, 1)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from creval.metrics.agreement import cohen_kappa

__all__ = ["ThresholdPoint", "threshold_sweep"]


@dataclass(frozen=True)
class ThresholdPoint:
    """Agreement of ``score >= threshold`` with the gold labels."""

    threshold: float
    accuracy: float
    kappa: float | None
    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int


def threshold_sweep(
    scores: Sequence[float], gold: Sequence[bool], thresholds: Sequence[float]
) -> list[ThresholdPoint]:
    """One :class:`ThresholdPoint` per threshold, in the order given.

    Hand check: scores 0.9, 0.6, 0.4, 0.1 with gold yes, no, yes, no. At 0.5 the verdicts
    are yes, yes, no, no: right on items 1 and 4, accuracy 1/2; at 0.3 yes, yes, yes, no:
    right on 1, 3, 4, accuracy 3/4 and kappa (3/4 - 1/2) / (1 - 1/2) = 1/2.

    >>> [(p.threshold, p.accuracy, p.kappa) for p in threshold_sweep(
    ...     [0.9, 0.6, 0.4, 0.1], [True, False, True, False], [0.5, 0.3])]
    [(0.5, 0.5, 0.0), (0.3, 0.75, 0.5)]
    """
    if len(scores) != len(gold):
        raise ValueError(f"scores and gold must have the same length, got {len(scores)} and {len(gold)}.")
    if not scores:
        raise ValueError("A threshold sweep needs at least one scored item.")
    for i, s in enumerate(scores):
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
            raise ValueError(f"scores[{i}] must be a finite number, got {s!r}.")
    for i, g in enumerate(gold):
        if not isinstance(g, bool):
            raise ValueError(f"gold[{i}] must be True or False, got {g!r}.")
    out = []
    for t in thresholds:
        judged = [s >= t for s in scores]
        pairs = list(zip(gold, judged, strict=True))
        out.append(ThresholdPoint(
            threshold=float(t), accuracy=sum(g == j for g, j in pairs) / len(pairs),
            kappa=cohen_kappa(list(gold), judged, labels=[True, False]).kappa,
            true_positive=sum(g and j for g, j in pairs), false_positive=sum(j and not g for g, j in pairs),
            true_negative=sum(not g and not j for g, j in pairs),
            false_negative=sum(g and not j for g, j in pairs),
        ))  # fmt: skip
    return out
