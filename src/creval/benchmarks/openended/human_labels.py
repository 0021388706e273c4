"""MacGyver's human-labelled solutions (``benchmark_results.json``) as binary ground truth.

The MacGyver authors annotated machine and crowd solutions to their problems. The file is
a JSON object: problem ID (string) -> list of ``{"model", "solution", "annotation"}``.
Annotations map to correct / incorrect as follows:

* correct: ``correct_efficient``, ``correct_inefficient``, ``correct_unsolvable``;
* incorrect: ``wrong_entire_wrong_solution``, ``wrong_partial_correct``,
  ``wrong_fail_solvability_status``.

Any other annotation is an error (so a new label is never silently mapped). An item
without an annotation (one in the released file: problem 924, a Prolific solution) is not
a label: it is listed in ``HumanLabelSet.unannotated`` instead.

A problem may have several solutions from the same source, so a label is identified by
``key`` = ``"<problem_id>:<index>"`` (index = position in that problem's list).

Note: the annotators' ``correct_unsolvable`` also occurs on problems the spreadsheet marks
solvable; labels are taken as given. Pass ``problems`` (for example
``load_macgyver_table(path, solvable_only=False)``) to attach each problem's text and its
spreadsheet solvability, so such items can be filtered.

>>> data = {"7": [{"model": "m", "solution": "s", "annotation": "correct_efficient"},
...               {"model": "m", "solution": "t", "annotation": "wrong_partial_correct"}]}
>>> [(x.key, x.correct) for x in parse_human_labels(data, "x").labels]
[('7:0', True), ('7:1', False)]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.benchmarks.openended.data import Problem
from creval.errors import CrevalError
from creval.metrics.agreement import Kappa, cohen_kappa

__all__ = [
    "CORRECT",
    "INCORRECT",
    "HumanLabel",
    "HumanLabelSet",
    "JudgeAgreement",
    "load_human_labels",
    "parse_human_labels",
    "score_against_labels",
]

CORRECT = frozenset({"correct_efficient", "correct_inefficient", "correct_unsolvable"})
INCORRECT = frozenset(
    {"wrong_entire_wrong_solution", "wrong_partial_correct", "wrong_fail_solvability_status"}
)


@dataclass(frozen=True)
class HumanLabel:
    """One annotated solution: ``correct`` is the binary verdict of ``annotation``."""

    problem_id: str
    index: int
    source: str
    solution: str
    annotation: str
    correct: bool
    problem: str | None = None
    problem_solvable: bool | None = None

    @property
    def key(self) -> str:
        return f"{self.problem_id}:{self.index}"


@dataclass(frozen=True)
class HumanLabelSet:
    """The labels in file order, and the items that had no annotation (``(id, index, source)``)."""

    labels: list[HumanLabel]
    unannotated: list[tuple[str, int, str]] = field(default_factory=list)

    def by_source(self) -> dict[str, list[HumanLabel]]:
        """Labels grouped by solution source (``model`` field), in first-seen order."""
        groups: dict[str, list[HumanLabel]] = {}
        for label in self.labels:
            groups.setdefault(label.source, []).append(label)
        return groups

    def counts(self) -> Counter[str]:
        """How many labels carry each annotation."""
        return Counter(label.annotation for label in self.labels)


def _item_error(source: str, pid: str, index: int, message: str) -> CrevalError:
    return CrevalError(f"{source}: problem {pid}, item {index}: {message}")


def parse_human_labels(
    data: Any, source: str, *, problems: Mapping[str, Problem] | None = None
) -> HumanLabelSet:
    """Labels from the decoded JSON ``data``; errors name ``source``, the problem and item."""
    if not isinstance(data, Mapping):
        raise CrevalError(f"{source} must hold a JSON object: problem ID -> list of solutions.")
    labels: list[HumanLabel] = []
    unannotated: list[tuple[str, int, str]] = []
    for pid, items in data.items():
        pid = str(pid)
        if not isinstance(items, list):
            raise CrevalError(f"{source}: problem {pid} must map to a list of solutions.")
        problem = problems.get(pid) if problems is not None else None
        if problems is not None and problem is None:
            raise CrevalError(f"{source}: problem {pid} is not among the problems given.")
        for index, item in enumerate(items):
            if not isinstance(item, Mapping):
                raise _item_error(source, pid, index, "each solution must be a JSON object.")
            missing = [k for k in ("model", "solution") if not isinstance(item.get(k), str)]
            if missing:
                raise _item_error(
                    source, pid, index, f"missing text field(s) {', '.join(missing)}."
                )
            annotation = item.get("annotation")
            if annotation is None or (isinstance(annotation, str) and not annotation.strip()):
                unannotated.append((pid, index, item["model"]))
                continue
            if annotation not in CORRECT and annotation not in INCORRECT:
                known = ", ".join(sorted(CORRECT | INCORRECT))
                raise _item_error(
                    source, pid, index, f"unknown annotation {annotation!r}; known: {known}."
                )
            labels.append(HumanLabel(
                problem_id=pid, index=index, source=item["model"], solution=item["solution"],
                annotation=annotation, correct=annotation in CORRECT,
                problem=problem.fields["problem"] if problem else None,
                problem_solvable=problem.meta.get("solvable") if problem else None,
            ))  # fmt: skip
    return HumanLabelSet(labels=labels, unannotated=unannotated)


def load_human_labels(
    path: str | Path, *, problems: Sequence[Problem] | Mapping[str, Problem] | None = None
) -> HumanLabelSet:
    """Labels from ``benchmark_results.json`` at ``path`` (see the module docstring).

    ``problems``: MacGyver problems (a list or id -> problem) whose text and solvability
    are attached to each label; every labelled problem must be among them.
    """
    file = Path(path)
    if not file.is_file():
        raise CrevalError(
            f"{file} does not exist. It is MacGyver's data/Benchmark_results/benchmark_results.json."
        )
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CrevalError(f"{file} is not valid JSON ({exc.msg}, line {exc.lineno}).") from None
    by_id = {p.id: p for p in problems} if isinstance(problems, Sequence) else problems
    return parse_human_labels(data, str(file), problems=by_id)


@dataclass(frozen=True)
class JudgeAgreement:
    """A judge's binary verdicts against the human labels they share keys with."""

    n: int
    accuracy: float
    kappa: Kappa
    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int
    missing: int


def score_against_labels(
    labels: Sequence[HumanLabel], verdicts: Mapping[str, bool]
) -> JudgeAgreement:
    """Accuracy and Cohen's kappa of ``verdicts`` (label key -> judged correct) vs humans.

    Labels without a verdict are counted in ``missing`` and left out; a verdict for a key
    that is not a label is an error (it points at a key mix-up).

    >>> ls = [HumanLabel("1", i, "m", "s", "a", c) for i, c in enumerate([True, True, False, False])]
    >>> r = score_against_labels(ls, {"1:0": True, "1:1": False, "1:2": False, "1:3": False})
    >>> r.accuracy, r.kappa.kappa, r.false_negative
    (0.75, 0.5, 1)
    """
    keys = {label.key for label in labels}
    unknown = sorted(set(verdicts) - keys)
    if unknown:
        raise CrevalError(f"Verdicts for keys that are not labels: {', '.join(unknown[:5])}.")
    pairs = [(label.correct, verdicts[label.key]) for label in labels if label.key in verdicts]
    if not pairs:
        raise CrevalError("No verdict matches a label key ('<problem_id>:<index>').")
    for key, value in verdicts.items():
        if not isinstance(value, bool):
            raise CrevalError(f"Verdict for {key} must be True or False, got {value!r}.")
    human = [h for h, _ in pairs]
    judged = [j for _, j in pairs]
    tally = Counter(pairs)
    return JudgeAgreement(
        n=len(pairs), accuracy=sum(h == j for h, j in pairs) / len(pairs),
        kappa=cohen_kappa(human, judged, labels=[True, False]),
        true_positive=tally[(True, True)], false_positive=tally[(False, True)],
        true_negative=tally[(False, False)], false_negative=tally[(True, False)],
        missing=len(labels) - len(pairs),
    )  # fmt: skip
