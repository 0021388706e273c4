"""``--judge-compat neocoder``: the repository judge's verdicts, bugs included."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.compat import (
    UPSTREAM_EXCLUDED,
    CompatResult,
    judge_compat_many,
    upstream_program,
)
from creval.benchmarks.neocoder.data import load_neocoder, states
from creval.benchmarks.neocoder.judge import cases_to_tests, judge_program
from creval.sandbox import Limits

INPUTS = [[["2", "3"]], [["10", "4"]]]
OUTPUTS = ["5", "14"]


def compat(code: str, inputs: Any = INPUTS, outputs: Any = OUTPUTS,
           limits: Limits | None = None) -> CompatResult:
    program = upstream_program(code, fenced=False)
    return judge_compat_many([(program, inputs, outputs)], limits=limits)[0]


def default_passes(code: str, inputs: Any = INPUTS, outputs: Any = OUTPUTS) -> bool:
    from creval.benchmarks.neocoder.extract import extract_program

    return judge_program(extract_program(code), cases_to_tests(inputs, outputs)).passed


ADD = ("def solve():\n    for _ in range(int(input())):\n"
       "        print(sum(map(int, input().split())))\n")


def test_a_correct_solution_is_correct_in_both_judges() -> None:
    assert compat(ADD).correct and compat(ADD).status == "ran"
    assert default_passes(ADD)


def test_missing_and_extra_output_lines_go_unnoticed_in_compat_only() -> None:
    first_only = "def solve():\n    int(input())\n    print(sum(map(int, input().split())))\n"
    assert compat(first_only).correct  # answers the first case only
    chatty = ADD + "    print('done')\n"
    assert compat(chatty).correct
    assert not default_passes(chatty)


def test_list_typed_answers_are_never_correct_in_compat() -> None:
    code = "def solve():\n    for _ in range(int(input())):\n        a, b = input().split()\n        print(b)\n        print(a)\n"
    inputs, outputs = [[["x", "y"]]], [["y", "x"]]
    assert not compat(code, inputs, outputs).correct
    assert default_passes(code, inputs, outputs)


def test_helpers_after_a_blank_line_are_lost_in_compat() -> None:
    code = ADD.replace("print(sum(", "print(add(") + "\n\ndef add(v):\n    return sum(v)\n"
    result = compat(code)
    assert not result.correct and result.status == "ran"
    assert default_passes(code)


def test_the_second_try_feeds_each_case_without_the_count() -> None:
    # The count line makes the first try raise; the second try runs case by case.
    code = ("def solve():\n    x = input().split()\n    assert len(x) == 2\n"
            "    print(int(x[0]) + int(x[1]))\n")
    result = compat(code)
    assert result.correct and result.outputs == ["5", "14"]
    prompt = "def solve():\n    print(sum(map(int, input('numbers: ').split())))\n"
    assert compat(prompt).outputs == [None, None]  # input() takes no prompt in compat


def test_the_judge_namespace_and_the_stdin_rewrite() -> None:
    code = ("import sys\ndef solve():\n    data = sys.stdin.read().split()\n"
            "    print(Counter(data).most_common(1)[0][0])\n")
    result = compat(code, [[["7"]]], ["1"])  # read() became input(): one line, the count
    assert result.correct and result.outputs == ["1"]


@pytest.mark.parametrize(("code", "status"), [
    ("from math import gcd\nprint(gcd(2, 4))\n", "not_parsable"),
    ("import sys\nraise SystemExit(3)\ndef solve():\n    print(1)\n", "not_executable"),
    ("import sys\ndef solve():\n    print(1)\n\nraise SystemExit(3)\n", "ran"),
    ("import sys\ndef solve():\n    print(1)\nsolve(\n", "not_executable"),
    ("import sympy\ndef solve():\n    print(1)\n", "not_executable"),
])
def test_statuses(code: str, status: str) -> None:
    assert compat(code).status == status


def test_a_code_that_runs_too_long_times_out() -> None:
    result = compat("def solve():\n    while True:\n        pass\n",
                    limits=Limits(cpu_seconds=1, wall_seconds=5))
    assert (result.correct, result.status) == (False, "timeout")


@pytest.mark.slow
def test_shipped_gpt4_codes_get_the_repository_judges_labels() -> None:
    """All 1,194 codes: every label equals the one the repository's judge gave (2-4 min)."""
    data = shared_data_path("neocoder")
    reference = json.loads((data / "reference_outputs" /
                            "gpt4_codes_correctness_repo_judge.json").read_text())
    dataset = load_neocoder(data)
    assert dataset.tests is not None
    keys, items = [], []
    for problem in dataset.problems:
        cases = dataset.tests[problem.problem_id]
        for round_, code in enumerate(problem.codes or []):
            keys.append((problem.problem_id, round_))
            items.append((upstream_program(code, fenced=False), cases.input, cases.output))
    results = dict(zip(keys, judge_compat_many(items), strict=True))
    labels = {(p["problem_id"], r): (ok, status) for p in reference["per_problem"]
              for r, (ok, status) in enumerate(
                  zip(p["correct_repo_judge"], p["status_repo_judge"], strict=True))}
    assert {k: r.correct for k, r in results.items()} == {k: v[0] for k, v in labels.items()}
    # Statuses agree too, except that numpy is not importable in the sandbox (the
    # repository's environment had it): those codes are "not_executable" instead of "ran".
    status_diffs = {k: (r.status, labels[k][1]) for k, r in results.items()
                    if r.status != labels[k][1]}
    numpy_codes = {k for k, r in results.items() if "numpy" in (r.program or "")}
    assert set(status_diffs) <= numpy_codes
    assert all(ours == "not_executable" for ours, _ in status_diffs.values())
    for summary in reference["per_state_summary"]:
        correct = [results[(s.problem_id, s.round)].correct for s in states(dataset)
                   if s.t == summary["state"] and s.problem_id not in UPSTREAM_EXCLUDED]
        assert (sum(correct), len(correct)) == (summary["correct_repo_judge"],
                                                summary["num_problems"])
    assert Counter(r.status for r in results.values())["timeout"] == 5
