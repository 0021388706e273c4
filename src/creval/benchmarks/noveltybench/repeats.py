"""NoveltyBench with ``--repeats R``: what a repeat of a prompt is, and how the repeats of one
prompt are kept together.

``--k`` answers per prompt are one *set*: the paper's unit of measurement, partitioned into
classes and rated together. A repeat is another set of k answers to the same prompt, asked
with sample indices of its own (other seeds, cache keys and replayed answers) and partitioned
and rated on its own: answers of different sets are never compared, so each set's
``distinct`` and ``utility`` are what the paper measures on one set. A prompt's value is the
mean over its sets; the table holds one row per prompt (its sets under ``sets``), so
``compare --published`` pairs each prompt's mean with the published value of that prompt,
measured on one set of k, and the sweep draws one point per prompt. ``noise`` splits each
measure's variance into prompts and sets (the judge, at temperature 0 and asked once per
pair, is not repeated, so it has no share of its own).
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any

from creval.benchmarks.repeats import Observation, with_noise
from creval.records import Scores

if TYPE_CHECKING:
    from creval.benchmarks.noveltybench import NoveltyOptions

#: Columns of a set's row that are kept per set, under the prompt's ``sets``.
SET_COLUMNS = ("repeat", "key", "k", "distinct", "utility", "mean_rating", "partition",
               "founder_ratings", "rewards")


def _mean(values: list[Any]) -> float | None:
    kept = [float(v) for v in values if v is not None]
    return statistics.fmean(kept) if kept else None


def by_prompt(sets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per prompt (in the order of its first set) from the rows of its sets:
    ``distinct``, ``distinct_paper``, ``utility`` and ``mean_rating`` averaged over the sets
    that have them, the sets themselves under ``sets`` (ordered by repeat).

    >>> rows = by_prompt([{"id": "a", "distinct": 2, "utility": 4.0, "mean_rating": 5.0},
    ...                   {"id": "a", "repeat": 1, "distinct": 3, "utility": None,
    ...                    "mean_rating": 6.0}])
    >>> [(r["id"], r["distinct"], r["distinct_paper"], r["utility"], r["mean_rating"],
    ...   r["repeats"]) for r in rows]
    [('a', 2.5, 1.5, 4.0, 5.5, 2)]
    """
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in sets:
        groups.setdefault(str(row["id"]), []).append(row)
    out = []
    for mine in groups.values():
        mine = sorted(mine, key=lambda r: int(r.get("repeat", 0)))
        first = mine[0]
        distinct = statistics.fmean(float(r["distinct"]) for r in mine)
        out.append({
            "id": first["id"], "key": first.get("key"),
            "subset": first.get("subset", ""), "category": first.get("category", ""),
            "k": first.get("k"), "distinct": distinct, "distinct_paper": distinct - 1,
            "utility": _mean([r.get("utility") for r in mine]),
            "mean_rating": _mean([r.get("mean_rating") for r in mine]),
            "repeats": len(mine),
            "sets": [{c: r[c] for c in SET_COLUMNS if c in r} | {"repeat": int(r.get("repeat", 0))}
                     for r in mine],
        })
    return out


def set_noise(scores: Scores, sets: list[dict[str, Any]], options: NoveltyOptions) -> Scores:
    """``scores`` with the variance split of distinct and utility over prompts and sets, when
    the run has repeats (else unchanged)."""
    observations: dict[str, list[Observation]] = {"distinct_mean": [], "utility_mean": []}
    for row in sets:
        item, repeat = str(row["id"]), int(row.get("repeat", 0))
        observations["distinct_mean"].append((item, repeat, float(row["distinct"])))
        if row.get("utility") is not None:
            observations["utility_mean"].append((item, repeat, float(row["utility"])))
    if options.quality == "none":
        del observations["utility_mean"]
    note = (f"NoveltyBench repeats: each prompt was asked {options.repeats} sets of k="
            f"{options.k} answers, each set partitioned and rated on its own (answers of "
            "different sets are never compared); a prompt's distinct and utility are the means "
            "over its sets, and the published comparison pairs that mean with the published "
            "value of one set.")
    return with_noise(scores, observations, repeats=options.repeats, extra=[note])
