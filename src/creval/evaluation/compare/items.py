"""The items behind a run's value: the valid ones, not the units that finished.

A value is computed from the items its scorer could use, as its benchmark declares them
(:meth:`~creval.benchmarks.base.Benchmark.items_behind`: judged questions with at least one
parsed judgement for the rubric benchmarks, valid trials for DAT, scored (problem, state)
pairs for NeoCoder), solutions with log-probabilities for semantic entropy, else the units
that finished. :func:`items_of` counts them, beside the units that finished and the units
planned, so that a report can say all three and the comparison with a paper's count uses
the valid ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from creval.records import Scores
from creval.records.declarations import Items
from creval.report.references import registered_benchmark


def items_behind(benchmark: str, measure: str, scores: Scores) -> int:
    """How many items the value of ``measure`` was computed from, from ``scores`` alone:
    DAT's valid trials (an invalid trial is not in the mean), the solutions semantic entropy
    had log-probabilities for, NeoCoder's scored (problem, state) pairs, JCQ's and TTCT's
    questions with at least one parsed judgement, else the units that finished.

    >>> s = Scores(headline={"dat_mean": 0.5, "valid_trials": 97, "invalid_trials": 3})
    >>> items_behind("dat", "dat_mean", s)
    97
    >>> items_behind("macgyver", "semantic_entropy",
    ...              Scores(per_item={"semantic_entropy": [0.2, None, 0.4]}))
    2
    """
    return items_of(benchmark, measure, scores).valid


def items_of(benchmark: str, measure: str, scores: Scores) -> Items:
    """The items behind the value of ``measure``: valid, finished and planned (see
    :func:`items_behind`)."""
    units = scores.units
    bench = registered_benchmark(benchmark)
    own = None if bench is None else bench.items_behind(measure, scores)
    if own is not None:  # what the benchmark says its valid items are
        return own
    if measure == "semantic_entropy" and measure in scores.per_item:
        values = scores.per_item[measure]
        valid = sum(v is not None for v in values)
        return Items(valid, units.finished, units.total, "solutions with log-probabilities")
    return Items(units.finished, units.finished, units.total, "units that finished")


def items_doc(items: Items) -> Mapping[str, Any]:
    """The items as a profile or JSON output shows them."""
    return {"valid": items.valid, "finished": items.finished, "planned": items.planned,
            "what": items.what, "detail": items.detail}


__all__ = ["Items", "items_behind", "items_doc", "items_of"]
