"""NeoCoder data in the upstream format: load, validate, split into states, write back.

A NeoCoder directory holds four JSON files (the names of the JHU-CLSP/NeoCoder
repository): ``NeoCoder.json`` (problems with their Denial Prompting rounds),
``human_solutions.json``, ``human_solution_techniques.json`` and
``test_cases_annotated.json``. Only ``NeoCoder.json`` is required.

States: round r of a problem asks the statement with the constraints gathered so far;
a round whose constraint list equals the previous round's (Denial Prompting found no
new technique) is the same question again and is skipped, as the repository's metric
does. State t is then the problem under t distinct constraints.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from creval.benchmarks.neocoder.judge import Test, cases_to_tests
from creval.errors import CrevalError

PROBLEMS_FILE = "NeoCoder.json"
HUMAN_SOLUTIONS_FILE = "human_solutions.json"
TECHNIQUES_FILE = "human_solution_techniques.json"
TESTS_FILE = "test_cases_annotated.json"
ORIGINAL_PROBLEM = "this is the og problem"  # round 0's placeholder constraint upstream


class Problem(BaseModel):
    """One problem with its Denial Prompting rounds (round 0 is the original problem)."""

    model_config = ConfigDict(extra="allow")

    problem_id: str
    problem_statements: list[str]
    constraints_list: list[list[str]]
    codes: list[str | None] | None = None

    @model_validator(mode="after")
    def _rounds_agree(self) -> Problem:
        rounds = len(self.problem_statements)
        if rounds == 0:
            raise ValueError("problem_statements is empty; round 0 is the original problem")
        if len(self.constraints_list) != rounds:
            raise ValueError(f"{rounds} problem_statements but {len(self.constraints_list)} "
                             "constraints_list entries; there must be one per round")
        if self.codes is not None and len(self.codes) != rounds:
            raise ValueError(f"{rounds} rounds but {len(self.codes)} codes")
        return self


class TestCases(BaseModel):
    """The annotated example tests of one problem (see :func:`cases_to_tests`)."""

    __test__ = False
    model_config = ConfigDict(extra="allow")

    problem_id: str
    input: list[list[list[str] | str]]  # a few upstream lines are plain strings
    output: list[str | list[str]]  # as many as inputs (checked when the tests are built)


@dataclass(frozen=True)
class State:
    """One question to ask: problem ``problem_id`` at round ``round`` under ``t`` constraints."""

    problem_id: str
    round: int
    t: int
    statement: str
    constraints: tuple[str, ...]


@dataclass
class NeoCoderDataset:
    problems: list[Problem]
    human_solutions: dict[str, list[str]] | None = None
    human_techniques: dict[str, list[list[str]]] | None = None
    tests: dict[str, TestCases] | None = None
    source: str = ""
    _by_id: dict[str, Problem] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {p.problem_id: p for p in self.problems}

    def problem(self, problem_id: str) -> Problem:
        try:
            return self._by_id[problem_id]
        except KeyError:
            raise CrevalError(f"Problem {problem_id!r} is not in {self.source or 'the dataset'}.") from None

    def tests_for(self, problem_id: str) -> list[Test]:
        """The judge's tests for a problem (count line and case rule read from its statement)."""
        if self.tests is None:
            raise CrevalError(f"No {TESTS_FILE} was loaded; put it beside {PROBLEMS_FILE}.")
        cases = self.tests.get(problem_id)
        if cases is None:
            raise CrevalError(f"{TESTS_FILE} has no test cases for problem {problem_id!r}.")
        statement = self.problem(problem_id).problem_statements[0]
        return cases_to_tests(cases.input, cases.output, count_line=is_multi_test(statement),
                                ignore_case=accepts_any_case(statement))


def is_multi_test(statement: str) -> bool:
    """Whether the input starts with the number of test cases (Codeforces multi-test), read
    from the first line of the statement's Input section; True when there is none.

    >>> is_multi_test("A. X\\nInput\\nThe first line contains t — the number of test cases.\\n")
    True
    >>> is_multi_test("A. X\\nInput\\nThe only line contains two integers n and m.\\n")
    False
    """
    found = re.search(r"\nInput\n([^\n]*)", statement)
    return found is None or re.search(r"test\s*cases?", found.group(1), re.I) is not None


def accepts_any_case(statement: str) -> bool:
    """Whether the statement lets answers such as YES be printed in any letter case.

    >>> accepts_any_case("You can output the answer in any case (upper or lower).")
    True
    """
    return re.search(r"in any (?:letter )?case|in any register|case[- ]insensitive", statement,
                     re.I) is not None


def states(problems: NeoCoderDataset | Sequence[Problem]) -> list[State]:
    """Every question to ask, problem by problem; repeated constraint lists are skipped.

    >>> p = Problem(problem_id="1A", problem_statements=["s0", "s1", "s1b"],
    ...             constraints_list=[[ORIGINAL_PROBLEM], ["for loop"], ["for loop"]])
    >>> [(s.round, s.t, s.constraints) for s in states([p])]
    [(0, 0, ()), (1, 1, ('for loop',))]
    """
    items = problems.problems if isinstance(problems, NeoCoderDataset) else problems
    out = []
    for problem in items:
        previous: list[str] | None = None
        for round_, (statement, constraints) in enumerate(
                zip(problem.problem_statements, problem.constraints_list, strict=True)):
            if constraints == previous:
                continue
            previous = constraints
            kept = tuple(c for c in constraints if c and c != ORIGINAL_PROBLEM)
            out.append(State(problem.problem_id, round_, len(set(kept)), statement, kept))
    return out


def scored_with(dataset: NeoCoderDataset, problem_id: str) -> dict[str, Any]:
    """What of a problem reaches the scoring besides the asked statement: its example tests
    (with the input and letter-case rules read from the original statement) and the
    techniques of its human solutions (NeoGauge's divergent part); part of each state's
    ``item_digest``, so a changed test or technique list is a changed item.

    >>> p = Problem(problem_id="1A", problem_statements=["s"], constraints_list=[[]])
    >>> scored_with(NeoCoderDataset([p], human_techniques={"1A": [["dp"]]}), "1A")
    {'tests': None, 'human_techniques': [['dp']]}
    """
    cases = (dataset.tests or {}).get(problem_id)
    original = dataset.problem(problem_id).problem_statements[0]
    tests = None if cases is None else {
        "input": cases.input, "output": cases.output, "multi_test": is_multi_test(original),
        "any_case": accepts_any_case(original)}
    return {"tests": tests, "human_techniques": (dataset.human_techniques or {}).get(problem_id)}


# --- loading --------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CrevalError(f"{path} does not exist.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CrevalError(f"{path} is not valid JSON ({exc}).") from None


def _looks_like(data: Any) -> str:
    """What an upstream NeoCoder file ``data`` resembles, in words."""
    if isinstance(data, list):
        first = data[0] if data else {}
        if isinstance(first, dict) and "input" in first and "output" in first:
            return f"{TESTS_FILE} (a list of test-case objects)"
        if isinstance(first, dict) and "problem_statements" in first:
            return f"{PROBLEMS_FILE} (a list of problems)"
        return "a JSON list"
    if isinstance(data, dict):
        value: Any = next((v for v in data.values() if v), [])
        entry = value[0] if isinstance(value, list) and value else None
        if isinstance(entry, str):
            return f"{HUMAN_SOLUTIONS_FILE} (problem id -> list of source-code strings)"
        if isinstance(entry, list):
            return f"{TECHNIQUES_FILE} (problem id -> list of technique lists)"
        return "a JSON object"
    return f"a JSON {type(data).__name__}"


def _mapping_of_lists(path: Path, data: Any, *, want: str, entry_type: type, right_file: str
                      ) -> dict[str, Any]:
    hint = (f"{path} should hold {want}, but it looks like {_looks_like(data)}. "
            f"Pass the {right_file} file here.")
    if not isinstance(data, dict):
        raise CrevalError(hint)
    for key, value in data.items():
        if not isinstance(value, list) or not all(isinstance(e, entry_type) for e in value):
            raise CrevalError(f"{hint} (entry {key!r} is not a list of "
                              f"{'lists' if entry_type is list else 'strings'})")
        if entry_type is list and not all(isinstance(t, str) for e in value for t in e):
            raise CrevalError(f"{path}: entry {key!r} holds a technique that is not a string.")
    return data


def load_problems(path: str | Path) -> list[Problem]:
    """``NeoCoder.json``: a list of problems with ``problem_statements``,
    ``constraints_list`` and, optionally, ``codes``."""
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data) or not data:
        raise CrevalError(f"{path} should be {PROBLEMS_FILE} (a non-empty list of problems), "
                          f"but it looks like {_looks_like(data)}.")
    problems, seen = [], set()
    for index, item in enumerate(data):
        try:
            problem = Problem.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "problem"
            raise CrevalError(f"{path}: problem #{index} ({item.get('problem_id', '?')}): "
                              f"{where}: {err['msg']}.") from None
        if problem.problem_id in seen:
            raise CrevalError(f"{path}: problem id {problem.problem_id!r} appears twice.")
        seen.add(problem.problem_id)
        problems.append(problem)
    return problems


def load_human_solutions(path: str | Path) -> dict[str, list[str]]:
    """``human_solutions.json``: problem id -> list of source-code strings."""
    path = Path(path)
    return _mapping_of_lists(path, _read_json(path), want="problem id -> list of source-code "
                             "strings", entry_type=str, right_file=HUMAN_SOLUTIONS_FILE)


def load_human_techniques(path: str | Path) -> dict[str, list[list[str]]]:
    """``human_solution_techniques.json``: problem id -> one technique list per solution.

    Passing ``human_solutions.json`` here is an error (the upstream code silently
    accepts it and then compares characters of source code, so every model technique
    looks new and divergent creativity comes out near 1.0).
    """
    path = Path(path)
    return _mapping_of_lists(path, _read_json(path), want="problem id -> list of technique "
                             "lists (one per human solution)", entry_type=list,
                             right_file=TECHNIQUES_FILE)


def load_test_cases(path: str | Path, *, problem_ids: set[str] | None = None
                    ) -> dict[str, TestCases]:
    """``test_cases_annotated.json``: a list of ``{problem_id, input, output, ...}``.

    With ``problem_ids``, entries of other problems are skipped unchecked (the upstream
    file covers 499 crawled problems, some of them malformed, for 199 benchmark ones).
    """
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise CrevalError(f"{path} should be {TESTS_FILE} (a list of test-case objects), "
                          f"but it looks like {_looks_like(data)}.")
    tests: dict[str, TestCases] = {}
    for index, item in enumerate(data):
        if problem_ids is not None and item.get("problem_id") not in problem_ids:
            continue
        try:
            cases = TestCases.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "test cases"
            raise CrevalError(f"{path}: entry #{index} ({item.get('problem_id', '?')}): "
                              f"{where}: {err['msg']}. Inputs are lists of lines of tokens; "
                              "outputs are strings or lists of lines.") from None
        if cases.problem_id in tests:
            raise CrevalError(f"{path}: problem id {cases.problem_id!r} appears twice.")
        tests[cases.problem_id] = cases
    return tests


def _data_dir(path: Path) -> Path:
    if (path / PROBLEMS_FILE).is_file():
        return path
    if (path / "NeoCoder" / PROBLEMS_FILE).is_file():
        return path / "NeoCoder"
    raise CrevalError(f"No {PROBLEMS_FILE} in {path} or {path / 'NeoCoder'}. Point to the "
                      "NeoCoder data directory, or run: creval data fetch neocoder")


def load_neocoder(
    path: str | Path,
    *,
    human_solutions: str | Path | None = None,
    techniques: str | Path | None = None,
    tests: str | Path | None = None,
) -> NeoCoderDataset:
    """Load a NeoCoder directory (or its parent holding ``NeoCoder/``); the three optional
    files are read from the same directory unless given."""
    base = Path(path)
    if base.is_file():
        folder, problems_path = base.parent, base
    else:
        folder = _data_dir(base)
        problems_path = folder / PROBLEMS_FILE

    def pick(given: str | Path | None, name: str) -> Path | None:
        if given is not None:
            return Path(given)
        return folder / name if (folder / name).is_file() else None

    solutions_path = pick(human_solutions, HUMAN_SOLUTIONS_FILE)
    techniques_path = pick(techniques, TECHNIQUES_FILE)
    tests_path = pick(tests, TESTS_FILE)
    problems = load_problems(problems_path)
    ids = {p.problem_id for p in problems}
    return NeoCoderDataset(
        problems=problems,
        human_solutions=load_human_solutions(solutions_path) if solutions_path else None,
        human_techniques=load_human_techniques(techniques_path) if techniques_path else None,
        tests=load_test_cases(tests_path, problem_ids=ids) if tests_path else None,
        source=str(problems_path),
    )


# --- writing --------------------------------------------------------------------------


def write_neocoder(dataset: NeoCoderDataset, dest: str | Path) -> Path:
    """Write ``dataset`` to directory ``dest`` in the upstream format (4-space JSON, as
    the repository writes it) and return the path of ``NeoCoder.json``."""
    folder = Path(dest)
    folder.mkdir(parents=True, exist_ok=True)

    def dump(name: str, data: Any) -> Path:
        target = folder / name
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=4), encoding="utf-8")
        tmp.replace(target)
        return target

    problems = [p.model_dump(exclude_none=True) for p in dataset.problems]
    for problem, original in zip(problems, dataset.problems, strict=True):
        if original.codes is not None:
            problem["codes"] = original.codes  # keep None entries of partial runs
    path = dump(PROBLEMS_FILE, problems)
    if dataset.human_solutions is not None:
        dump(HUMAN_SOLUTIONS_FILE, dataset.human_solutions)
    if dataset.human_techniques is not None:
        dump(TECHNIQUES_FILE, dataset.human_techniques)
    if dataset.tests is not None:
        dump(TESTS_FILE, [t.model_dump() for t in dataset.tests.values()])
    return path
