"""Aggregate 1-5 rubric scores the way the JCQ scorer does (seed 004, Tables 3-5).

The upstream scorer (``src/show_results.py`` in nlp-waseda/JCQ-judge) averages in two steps:
for each answer index (the 1st, 2nd, ... of the answers sampled per question) it takes the
mean over questions, then it reports the mean and the standard deviation of those per-index
means. Its standard deviation is pandas' ``Series.std()``: the *sample* deviation
(``ddof=1``); with a single answer index it is undefined (``None`` here, NaN upstream).
The overall ``mean`` is the mean of the criterion means, which equals upstream's "Mean"
column (the same two steps over each judgement's mean of the four criteria). Per task, the
same two steps run within the task's rows (upstream's "Model and Task" table).

:func:`load_jcq_judgements` reads the repository's judgement files (``answer_id``,
``judgement``) and parses each verdict with the strict or the upstream parser.

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

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from creval.errors import CrevalError

__all__ = [
    "JCQ_TASKS", "RUBRIC_CRITERIA", "JudgementRows", "aggregate_rubric", "load_jcq_judgements",
]  # fmt: skip

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


class JudgementRows(list[dict[str, Any]]):
    """Parsed judgement rows (a list, ready for :func:`aggregate_rubric`) plus what failed.

    ``unparsed`` maps each answer id whose verdict did not parse to the reason;
    ``n_judgements`` counts every judgement read.
    """

    def __init__(
        self,
        rows: Iterable[dict[str, Any]] = (),
        *,
        unparsed: Mapping[int, str] | None = None,
        n_judgements: int = 0,
    ) -> None:
        super().__init__(rows)
        self.unparsed: dict[int, str] = dict(unparsed or {})
        self.n_judgements = n_judgements

    @property
    def unparsed_answer_ids(self) -> list[int]:
        """The answer ids whose verdict did not parse, ascending."""
        return sorted(self.unparsed)


def _read_judgement_lines(path: Path) -> list[tuple[int, int, str]]:
    """(line number, answer_id, judgement) for each non-blank line; CrevalError if malformed."""
    if not path.is_file():
        raise CrevalError(f"{path} is not a file: expected a JCQ judgement file "
                          "(JSON lines with 'answer_id' and 'judgement').")  # fmt: skip
    out: list[tuple[int, int, str]] = []
    ids: dict[int, int] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{path}, line {lineno}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CrevalError(f"{where}: not valid JSON ({exc.msg}).") from exc
            if not isinstance(record, dict):
                raise CrevalError(f"{where}: expected a JSON object, got {type(record).__name__}.")
            answer_id, judgement = record.get("answer_id"), record.get("judgement")
            if isinstance(answer_id, bool) or not isinstance(answer_id, int) or answer_id < 1:
                raise CrevalError(f"{where}: 'answer_id' must be a positive integer, "
                                  f"got {answer_id!r}.")  # fmt: skip
            if not isinstance(judgement, str):
                raise CrevalError(f"{where}: 'judgement' must be a string, got {judgement!r}.")
            if answer_id in ids:
                raise CrevalError(f"{where}: answer_id {answer_id} already on line "
                                  f"{ids[answer_id]}.")  # fmt: skip
            ids[answer_id] = lineno
            out.append((lineno, answer_id, judgement))
    return out


def load_jcq_judgements(
    path: str | Path,
    *,
    parser: Literal["strict", "upstream"] = "strict",
    answers_per_question: int = 5,
    questions_per_task: int = 100,
    tasks: Sequence[str] = JCQ_TASKS,
    answer_index: Literal["position", "upstream"] = "position",
) -> JudgementRows:
    """Read an upstream JCQ judgement file into rows for :func:`aggregate_rubric`.

    ``question_id = (answer_id - 1) // answers_per_question + 1``; the task follows from the
    question id (ids 1-100 the first of ``tasks``, 101-200 the second, ...). ``parser``:
    ``"strict"`` (:func:`creval.judges.parse_rubric` with the Japanese labels) or
    ``"upstream"`` (the repository's regex). ``answer_index``: ``"position"`` is
    ``(answer_id - 1) % answers_per_question``; ``"upstream"`` is the judgement's position
    among its question's *parsed* judgements (what ``show_results.py`` groups by, via
    ``cumcount`` after dropping failures), which differs only after a failed parse.

    Rows are returned in answer-id order with ``answer_id``, ``question_id``,
    ``answer_index``, ``task`` and the four scores; failures are in ``.unparsed``. A missing
    file or a malformed line raises :class:`creval.errors.CrevalError` with the line number.
    """
    from creval.judges.rubric import TTCT_CRITERIA_JA, parse_rubric, upstream_jcq_parse

    if parser not in ("strict", "upstream"):
        raise ValueError(f"parser must be 'strict' or 'upstream', got {parser!r}.")
    if answer_index not in ("position", "upstream"):
        raise ValueError(f"answer_index must be 'position' or 'upstream', got {answer_index!r}.")
    for label, value in (("answers_per_question", answers_per_question),
                         ("questions_per_task", questions_per_task)):  # fmt: skip
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{label} must be a positive integer, got {value!r}.")
    if isinstance(tasks, str) or not tasks:
        raise ValueError(f"tasks must be a non-empty sequence of task names, got {tasks!r}.")

    path = Path(path)
    lines = sorted(_read_judgement_lines(path), key=lambda item: item[1])
    rows: list[dict[str, Any]] = []
    unparsed: dict[int, str] = {}
    parsed_so_far: dict[int, int] = {}
    for lineno, answer_id, text in lines:
        question_id = (answer_id - 1) // answers_per_question + 1
        task_number = (question_id - 1) // questions_per_task
        if task_number >= len(tasks):
            raise CrevalError(
                f"{path}, line {lineno}: answer_id {answer_id} gives question {question_id}, "
                f"beyond {len(tasks)} tasks x {questions_per_task} questions."
            )
        if parser == "upstream":
            scores = upstream_jcq_parse(text)
            error = None if scores is not None else "no match for the upstream JCQ pattern"
        else:
            result = parse_rubric(text, TTCT_CRITERIA_JA)
            scores, error = result.scores, result.error
        if scores is None:
            unparsed[answer_id] = error or "not parsed"
            continue
        if answer_index == "position":
            index = (answer_id - 1) % answers_per_question
        else:
            index = parsed_so_far.get(question_id, 0)
        parsed_so_far[question_id] = parsed_so_far.get(question_id, 0) + 1
        rows.append({"answer_id": answer_id, "question_id": question_id, "answer_index": index,
                     "task": tasks[task_number], **scores})  # fmt: skip
    return JudgementRows(rows, unparsed=unparsed, n_judgements=len(lines))
