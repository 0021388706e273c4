"""Aggregate 1-5 rubric scores the way the JCQ scorer does (seed 004, Tables 3-5).

The upstream scorer (``src/show_results.py`` in nlp-waseda/JCQ-judge) averages in two steps:
for each answer index (the 1st, 2nd, ... of the answers sampled per question) it takes the
mean over questions, then it reports the mean and the standard deviation of those per-index
means. Its standard deviation is pandas' ``Series.std()``: the *sample* deviation
(``ddof=1``); with a single answer index it is undefined (``None`` here, NaN upstream).
The overall ``mean`` is the mean of the criterion means, which equals upstream's "Mean"
column (the same two steps over each judgement's mean of the four criteria). Per task, the
same two steps run within the task's rows (upstream's "Model and Task" table).

:func:`creval.benchmarks.ttct.judgements.load_jcq_judgements` reads the repository's
judgement files (``answer_id``, ``judgement``) into these rows.

>>> rows = [
...     {"question_id": 1, "answer_index": 0, "task": "a", "fluency": 4, "originality": 2},
...     {"question_id": 1, "answer_index": 1, "task": "a", "fluency": 2, "originality": 2},
...     {"question_id": 2, "answer_index": 0, "task": "b", "fluency": 5, "originality": 3},
... ]
>>> agg = aggregate_rubric(rows, criteria=("fluency", "originality"))
>>> agg["criteria"]["fluency"]  # index 0: (4+5)/2 = 4.5, index 1: 2; mean 3.25
{'mean': 3.25, 'std': 1.7677669529663689, 'per_index': [4.5, 2.0]}
>>> agg["mean"], agg["tasks"]["a"]
(2.75, {'fluency': 3.0, 'originality': 2.0, 'mean': 2.5})
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["JCQ_TASKS", "RUBRIC_CRITERIA", "aggregate_rubric"]

RUBRIC_CRITERIA: tuple[str, ...] = ("fluency", "flexibility", "originality", "elaboration")
"""The four TTCT criteria, in the order of the papers' tables."""

JCQ_TASKS: tuple[str, ...] = (
    "unusual uses", "consequences", "just suppose", "situation", "common problem",
    "improvement", "imaginative stories",
)  # fmt: skip
"""JCQ's seven tasks in question-id order: ids 1-100 are the first task, 101-200 the next..."""


def _summary(per_index: list[float]) -> dict[str, Any]:
    values = [float(v) for v in per_index]
    std = float(np.std(values, ddof=1)) if len(values) > 1 else None
    return {"mean": float(np.mean(values)), "std": std, "per_index": values}


def _check_criteria(criteria: Sequence[str]) -> tuple[str, ...]:
    if isinstance(criteria, str) or not criteria:
        raise ValueError(f"criteria must be a non-empty sequence of names, got {criteria!r}.")
    names = tuple(criteria)
    if not all(isinstance(c, str) and c for c in names):
        raise ValueError(f"criteria must be non-empty strings, got {names!r}.")
    reserved = {"mean"} & set(names)
    if reserved or len(set(names)) != len(names):
        raise ValueError(f"criteria must be unique and not called 'mean', got {names!r}.")
    return names


def _check_row(
    i: int, row: Any, names: tuple[str, ...], score_range: tuple[int, int] | None
) -> tuple[Any, int, str, list[float]]:
    if not isinstance(row, Mapping):
        raise ValueError(f"row {i}: expected a mapping, got {type(row).__name__}.")
    for key in ("question_id", "answer_index", "task", *names):
        if key not in row:
            raise ValueError(f"row {i}: missing {key!r} (rows need question_id, answer_index, "
                             f"task and {', '.join(names)}).")  # fmt: skip
    qid, index, task = row["question_id"], row["answer_index"], row["task"]
    if isinstance(qid, bool) or not isinstance(qid, (int, str)):
        raise ValueError(f"row {i}: question_id must be an int or a string, got {qid!r}.")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"row {i}: answer_index must be an integer >= 0, got {index!r}.")
    if not isinstance(task, str):
        raise ValueError(f"row {i}: task must be a string, got {task!r}.")
    scores = []
    for name in names:
        value = row[name]
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value):
            raise ValueError(f"row {i} (question {qid}): {name} must be a finite number, "
                             f"got {value!r}.")  # fmt: skip
        if score_range is not None and not score_range[0] <= value <= score_range[1]:
            raise ValueError(f"row {i} (question {qid}): {name} = {value} is outside "
                             f"{score_range[0]}..{score_range[1]}.")  # fmt: skip
        scores.append(float(value))
    return qid, index, task, scores


def _two_step(
    groups: dict[int, list[list[float]]], names: tuple[str, ...]
) -> tuple[list[int], dict[str, dict[str, Any]], dict[str, Any]]:
    """Per index: mean over rows; then summaries across indices, per criterion and overall."""
    indices = sorted(groups)
    per_index = np.array([np.mean(np.array(groups[k]), axis=0) for k in indices])
    criteria = {name: _summary(list(per_index[:, j])) for j, name in enumerate(names)}
    overall = _summary(list(per_index.mean(axis=1)))
    return indices, criteria, overall


def aggregate_rubric(
    rows: Iterable[Mapping[str, Any]],
    *,
    criteria: Sequence[str] = RUBRIC_CRITERIA,
    score_range: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Upstream JCQ aggregation of parsed rubric scores, overall and per task.

    Each row is one parsed judgement: ``question_id``, ``answer_index`` (0-based: which of
    the answers sampled for the question), ``task`` and one number per criterion. Rows whose
    verdict did not parse are simply left out. ``score_range=(1, 5)`` rejects any score
    outside it (default: no check).

    Returns a dict with

    * ``criteria``: name -> ``{"mean", "std", "per_index"}``; ``per_index`` lists the mean
      over questions for each answer index in ``answer_indices`` order, ``mean`` and ``std``
      (sample, ``ddof=1``; None with one index) are taken across those;
    * ``mean``: the mean of the criterion means; ``overall``: the same summary of the
      per-index means of each judgement's criterion mean (upstream's "Mean" column);
    * ``tasks``: task -> ``{criterion: mean, ..., "mean": mean}`` (two steps within the task,
      tasks in order of first appearance); ``task_details``: task -> ``{"criteria",
      "overall", "answer_indices", "counts"}``;
    * ``answer_indices``; ``counts``: ``{"rows", "questions", "answer_indices"}``.

    Hand calculation: index 0 fluencies 4 and 5 give 4.5, index 1 gives 2, so fluency is
    (4.5 + 2) / 2 = 3.25 with sample std |4.5 - 2| / sqrt(2) = 1.7678:

    >>> rows = [{"question_id": q, "answer_index": i, "task": "t", "fluency": f}
    ...         for q, i, f in [(1, 0, 4), (2, 0, 5), (1, 1, 2)]]
    >>> agg = aggregate_rubric(rows, criteria=("fluency",))
    >>> agg["criteria"]["fluency"]["mean"], round(agg["criteria"]["fluency"]["std"], 4)
    (3.25, 1.7678)
    >>> agg["counts"]
    {'rows': 3, 'questions': 2, 'answer_indices': 2}
    """
    names = _check_criteria(criteria)
    if score_range is not None and (len(score_range) != 2 or not score_range[0] <= score_range[1]):
        raise ValueError(f"score_range must be (low, high) with low <= high, got {score_range!r}.")
    if isinstance(rows, Mapping):
        raise ValueError("rows must be a sequence of mappings, not a single mapping.")

    everything: dict[int, list[list[float]]] = {}
    by_task: dict[str, dict[int, list[list[float]]]] = {}
    task_questions: dict[str, set[Any]] = {}
    question_task: dict[Any, str] = {}
    seen: set[tuple[Any, int]] = set()
    n = 0
    for i, row in enumerate(rows):
        qid, index, task, scores = _check_row(i, row, names, score_range)
        if (qid, index) in seen:
            raise ValueError(f"row {i}: question {qid!r} has answer index {index} twice.")
        seen.add((qid, index))
        if question_task.setdefault(qid, task) != task:
            raise ValueError(f"row {i}: question {qid!r} is in task {question_task[qid]!r} "
                             f"and in task {task!r}.")  # fmt: skip
        everything.setdefault(index, []).append(scores)
        by_task.setdefault(task, {}).setdefault(index, []).append(scores)
        task_questions.setdefault(task, set()).add(qid)
        n += 1
    if n == 0:
        raise ValueError("No rows to aggregate (did every judgement fail to parse?).")

    indices, crit, overall = _two_step(everything, names)
    tasks: dict[str, dict[str, float]] = {}
    details: dict[str, dict[str, Any]] = {}
    for task, groups in by_task.items():
        t_indices, t_crit, t_overall = _two_step(groups, names)
        tasks[task] = {name: t_crit[name]["mean"] for name in names}
        tasks[task]["mean"] = float(np.mean([t_crit[name]["mean"] for name in names]))
        details[task] = {
            "criteria": t_crit, "overall": t_overall, "answer_indices": t_indices,
            "counts": {"rows": sum(len(g) for g in groups.values()),
                       "questions": len(task_questions[task]), "answer_indices": len(t_indices)},
        }  # fmt: skip
    return {
        "criteria": crit,
        "mean": float(np.mean([crit[name]["mean"] for name in names])),
        "overall": overall,
        "tasks": tasks,
        "task_details": details,
        "answer_indices": indices,
        "counts": {"rows": n, "questions": len(question_task), "answer_indices": len(indices)},
    }
