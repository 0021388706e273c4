"""Judge-vs-human agreement on rubric scores (seed 004, Table 8): Pearson per task x criterion.

Human ratings come as CSV with a header: ``question_id``, ``answer_index`` (0-based, the
answer's position among the question's answers) and one column per criterion
(``fluency``, ``flexibility``, ``originality``, ``elaboration``; blank cells are skipped).
Several raters may rate the same answer: their ratings are averaged first.
"""

from __future__ import annotations

import csv
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from creval.errors import CrevalError

CRITERIA = ("fluency", "flexibility", "originality", "elaboration")


def read_human_ratings(path: Path) -> dict[tuple[int, int], dict[str, float]]:
    """Mean human rating per (question_id, answer_index) and criterion."""
    if not path.is_file():
        raise CrevalError(f"{path} does not exist. Pass a CSV of human ratings.")
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"question_id", "answer_index"} - set(reader.fieldnames or [])
        if missing:
            raise CrevalError(
                f"{path}: the header lacks {', '.join(sorted(missing))}; it needs question_id, "
                f"answer_index and criterion columns ({', '.join(CRITERIA)})."
            )
        collected: dict[tuple[int, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for number, row in enumerate(reader, start=2):
            try:
                key = (int(row["question_id"]), int(row["answer_index"]))
                for crit in CRITERIA:
                    cell = (row.get(crit) or "").strip()
                    if cell:
                        collected[key][crit].append(float(cell))
            except ValueError as exc:
                raise CrevalError(f"{path}:{number}: not a number ({exc}).") from None
    return {k: {c: statistics.fmean(v) for c, v in crits.items()} for k, crits in collected.items()}


def agreement(
    judge_rows: list[dict[str, Any]], human: dict[tuple[int, int], dict[str, float]]
) -> list[dict[str, Any]]:
    """Pearson r (and p) between judge and human scores per task x criterion, and overall."""
    from creval.metrics.stats import pearson

    pairs: dict[tuple[str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for row in judge_rows:
        rated = human.get((int(row["question_id"]), int(row["answer_index"])))
        if not rated:
            continue
        for crit in CRITERIA:
            if crit in rated and crit in row:
                for task in (str(row["task"]), "all tasks"):
                    xs, ys = pairs[(task, crit)]
                    xs.append(float(row[crit]))
                    ys.append(rated[crit])
    table = []
    for (task, crit), (xs, ys) in sorted(pairs.items()):
        result: dict[str, Any] = {"task": task, "criterion": crit, "n": len(xs),
                                  "pearson_r": None, "pearson_p": None}
        if len(xs) >= 3:
            corr = pearson(xs, ys)
            result.update(pearson_r=corr.r, pearson_p=corr.p)
        table.append(result)
    return table
