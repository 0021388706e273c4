"""A run placed among released per-answer values (a benchmark's
:meth:`~creval.benchmarks.base.Benchmark.released_references`, English DAT's released lists),
unpaired: the answers are exchangeable draws of one prompt, so nothing pairs answer 3 of the
run with answer 3 of a model. Per released group it gives the difference of means
(**published minus this run**, as the paired comparisons), its 95% interval (Welch with
Hall's correction, from 30 answers a side) and the permutation p-value
(:mod:`creval.metrics.unpaired`), Holm-corrected across the groups of the protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ALPHA = 0.05


def placements(ours: Sequence[float], groups: Sequence[Sequence[float]], *,
               seed: int = 0) -> list[dict[str, Any]]:
    """Per group: ``mean(group) - mean(ours)`` with its unpaired interval (Welch with Hall's
    correction, from 30 trials a side), the permutation p and Holm's p across the groups, and the verdict of this run's standing.

    >>> ours = [70.0, 71.0, 72.0, 70.5, 71.5, 70.5]
    >>> rows = placements(ours, [[80.0, 81.0, 79.0, 82.0, 80.5, 79.5], [70.0, 72.0, 71.0]])
    >>> [(r["difference"], r["verdict"]) for r in rows]
    [(9.416667, 'behind'), (0.083333, 'not distinguishable')]
    """
    from creval.metrics.paired import holm
    from creval.metrics.unpaired import permutation_p, unpaired_difference

    rows: list[dict[str, Any]] = []
    for values in groups:
        d = unpaired_difference(list(values), list(ours))
        p = permutation_p(list(values), list(ours), seed=seed)
        rows.append({"test": "unpaired", "difference": round(d.difference, 6),
                     "low": None if d.low is None else round(d.low, 6),
                     "high": None if d.high is None else round(d.high, 6),
                     "interval_note": d.reason, "p": p,
                     "n_published": d.n_a, "n_this": d.n_b,
                     "published": round(sum(values) / len(values), 6),
                     "this": round(sum(ours) / len(ours), 6)})
    for row, adjusted in zip(rows, holm([r["p"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
        row["verdict"] = verdict(row["difference"], adjusted)
    return rows


def verdict(difference: float, p_holm: float) -> str:
    """This run's standing against the published side (higher is better; the difference
    is published minus this run).

    >>> verdict(2.0, 0.01), verdict(-2.0, 0.01), verdict(2.0, 0.3)
    ('behind', 'ahead', 'not distinguishable')
    """
    if p_holm >= ALPHA or difference == 0:
        return "not distinguishable"
    return "behind" if difference > 0 else "ahead"


