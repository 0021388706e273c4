"""The items behind a run's value: the valid ones, not the units that finished.

A value is computed from the items its scorer could use: judged questions with at least
one parsed judgement (JCQ, TTCT: an unparsed judgement is left out of the means), valid
trials (DAT), scored (problem, state) pairs (NeoCoder), solutions with log-probabilities
(semantic entropy). :func:`items_of` counts them, beside the units that finished and the
units planned, so that a report can say all three and the comparison with a paper's count
uses the valid ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from creval.records import Scores

RUBRIC = ("jcq", "ttct")


@dataclass(frozen=True)
class Items:
    """Items behind one value: ``valid`` ones (those the value was computed from), units
    ``finished`` and ``planned``; ``what`` names the valid ones; ``detail`` adds a count of
    their own (``350 of 3500 judgements parsed``)."""

    valid: int
    finished: int
    planned: int
    what: str = "items"
    detail: str = ""

    def line(self) -> str:
        """The report line.

        >>> Items(350, 700, 700, "questions with a parsed judgement").line()
        'items behind the value: 350 valid (questions with a parsed judgement) of 700 finished, 700 planned'
        """
        more = f"; {self.detail}" if self.detail else ""
        return (f"items behind the value: {self.valid} valid ({self.what}) of {self.finished} "
                f"finished, {self.planned} planned{more}")


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
    head = scores.headline
    if benchmark == "dat" and isinstance(head.get("valid_trials"), int | float):
        valid = int(head["valid_trials"])
        invalid = int(head.get("invalid_trials") or 0)
        return Items(valid, valid + invalid, max(units.total, valid + invalid), "valid trials")
    if measure == "semantic_entropy" and measure in scores.per_item:
        values = scores.per_item[measure]
        valid = sum(v is not None for v in values)
        return Items(valid, units.finished, units.total, "solutions with log-probabilities")
    if benchmark == "neocoder" and any("problem" in row for row in scores.table):
        valid = sum("problem" in row for row in scores.table)
        return Items(valid, units.finished, units.total, "scored (problem, state) pairs")
    if benchmark in RUBRIC and isinstance(head.get("parsed"), int | float):
        parsed, failed = int(head["parsed"]), int(head.get("parse_failures") or 0)
        return Items(_judged_units(scores.per_item.get("mean") or [], units.finished),
                     units.finished, units.total, "questions with a parsed judgement",
                     f"{parsed} of {parsed + failed} judgements parsed")
    return Items(units.finished, units.finished, units.total, "units that finished")


def _judged_units(per_answer: list[float | None], finished: int) -> int:
    """Units (questions) with at least one parsed judgement: ``per_answer`` holds each
    finished unit's answers in turn, None where the judgement did not parse.

    >>> _judged_units([None, 2.0, None, None, 3.0, 1.0], 3)
    2
    """
    if not finished or not per_answer or len(per_answer) % finished:
        return 0
    per = len(per_answer) // finished
    return sum(any(v is not None for v in per_answer[i:i + per])
               for i in range(0, len(per_answer), per))


def items_doc(items: Items) -> Mapping[str, Any]:
    """The items as a profile or JSON output shows them."""
    return {"valid": items.valid, "finished": items.finished, "planned": items.planned,
            "what": items.what, "detail": items.detail}


__all__ = ["Items", "items_behind", "items_doc", "items_of"]
