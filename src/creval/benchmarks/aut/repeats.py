"""AUT with ``--repeats R``: each object is asked R times for its list of uses (repeat r with
seeds of its own); each list is scored on its own (a row of the table, with its ``repeat``),
an object's value of each measure is the mean over its lists, and ``noise`` splits each
measure's variance into objects and lists (the judge, at temperature 0 and asked once per
use, is not repeated)."""

from __future__ import annotations

import statistics
from typing import Any

from creval.benchmarks.repeats import Observation, with_noise
from creval.records import Scores

#: The measures per list: the table's column of each.
COLUMNS = {"originality_mean": "originality", "fluency_mean": "fluency",
           "flexibility_mean": "flexibility", "elaboration_mean": "elaboration"}


def per_object(table: list[dict[str, Any]],
               per_list: dict[str, list[float | None]]) -> dict[str, list[float | None]]:
    """Each measure's value per object (in the order of its first list): the mean over the
    object's lists that have one (None when none has).

    >>> per_object([{"object": "brick"}, {"object": "knife"}, {"object": "brick"}],
    ...            {"fluency_mean": [2.0, 5.0, 4.0], "originality_mean": [None, 1.0, 3.0]})
    {'fluency_mean': [3.0, 5.0], 'originality_mean': [3.0, 1.0]}
    """
    objects = list(dict.fromkeys(str(row["object"]) for row in table))
    out: dict[str, list[float | None]] = {}
    for measure, values in per_list.items():
        out[measure] = []
        for obj in objects:
            kept = [float(v) for row, v in zip(table, values, strict=True)
                    if str(row["object"]) == obj and v is not None]
            out[measure].append(statistics.fmean(kept) if kept else None)
    return out


def list_noise(scores: Scores, table: list[dict[str, Any]], repeats: int) -> Scores:
    """``scores`` with the variance split of each measure over objects and lists."""
    observations: dict[str, list[Observation]] = {}
    for measure, column in COLUMNS.items():
        observations[measure] = [(str(row["object"]), int(row.get("repeat", 0)),
                                  float(row[column])) for row in table
                                 if row.get(column) is not None]
    note = (f"AUT repeats: each object was asked {repeats} times for its list of uses; each "
            "list is a row of the table, scored on its own, and an object's value is the mean "
            "over its lists (the headline: the mean over objects).")
    return with_noise(scores, observations, repeats=repeats, extra=[note])
