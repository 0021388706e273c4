"""Reading upstream JCQ judgement files (``answer_id``, ``judgement`` per JSON line) into
rows for :func:`creval.metrics.rubric_agg.aggregate_rubric`: file I/O and the judges'
parsers live here, so the metric stays a pure function."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from creval.errors import CrevalError
from creval.judges.rubric import TTCT_CRITERIA_JA, parse_rubric, upstream_jcq_parse
from creval.metrics.rubric_agg import JCQ_TASKS


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
