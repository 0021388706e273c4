"""The offline NeoCoder starter set: upstream layout, correct tests, constraint-abiding codes."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.static_techniques import detect_static
from creval.benchmarks.neocoder.techniques import VOCABULARY
from creval.metrics.neogauge import ORIGINAL_PROBLEM, neogauge_state, state_of_rounds
from creval.sandbox import Job, Limits, run_many

HEADER = "Programming constraints: DO NOT use the following techniques"
FILES = ("NeoCoder.json", "human_solutions.json", "human_solution_techniques.json",
         "test_cases_annotated.json")  # fmt: skip


@cache
def starter(name: str) -> Any:
    text = (resources.files("creval") / "data" / "neocoder" / name).read_text(encoding="utf-8")
    return json.loads(text)


def problems() -> list[dict[str, Any]]:
    return starter("NeoCoder.json")  # type: ignore[no-any-return]


def cases_by_id() -> dict[str, dict[str, Any]]:
    return {t["problem_id"]: t for t in starter("test_cases_annotated.json")}


def judge_stdin(cases: list[list[list[str]]]) -> str:
    """The upstream judge's stdin: the number of cases, then every line's tokens joined by one space."""
    lines = [str(len(cases))] + [" ".join(tokens) for case in cases for tokens in case]
    return "\n".join(lines) + "\n"


def expected_lines(outputs: list[str | list[str]]) -> list[str]:
    lines: list[str] = []
    for out in outputs:
        lines.extend(out if isinstance(out, list) else out.split("\n"))
    return lines


# --- layout -----------------------------------------------------------------------------


def test_the_four_files_describe_the_same_problems() -> None:
    ids = [p["problem_id"] for p in problems()]
    assert 5 <= len(ids) <= 8 and len(set(ids)) == len(ids)
    assert set(starter("human_solutions.json")) == set(ids)
    assert set(starter("human_solution_techniques.json")) == set(ids)
    assert set(ids) <= set(cases_by_id())


def test_fields_match_the_upstream_files() -> None:
    upstream = ("neocoder", "NeoCoder")
    theirs = json.loads(shared_data_path(*upstream, "NeoCoder.json").read_text())[0]
    assert set(problems()[0]) == set(theirs)
    theirs_tests = json.loads(shared_data_path(*upstream, "test_cases_annotated.json").read_text())
    common = set.intersection(*(set(t) for t in theirs_tests))
    for test in starter("test_cases_annotated.json"):
        assert set(test) == common  # no "error" flag in ours


@pytest.mark.parametrize("index", range(6))
def test_rounds_follow_the_denial_prompting_layout(index: int) -> None:
    problem = problems()[index]
    statements, constraints, codes = (
        problem["problem_statements"],
        problem["constraints_list"],
        problem["codes"],
    )
    assert len(statements) == len(constraints) == len(codes) >= 2
    assert constraints[0] == [ORIGINAL_PROBLEM] and HEADER not in statements[0]
    original = statements[0].split("\n")
    for r in range(1, len(statements)):
        before = [] if r == 1 else constraints[r - 1]
        now = constraints[r]
        assert now[: len(before)] == before and len(now) - len(before) <= 1  # grows by <= 1
        assert set(now) <= set(VOCABULARY) and len(set(now)) == len(now)
        lines = statements[r].split("\n")
        assert lines[0] == original[0] and lines[1] == HEADER
        block = lines[2 : 2 + r]
        assert all(line.startswith("- ") for line in block)
        listed = [line[2:] for line in block]  # newest first, "" for a round without news
        assert [c for c in reversed(listed) if c] == now
        assert lines[2 + r :] == original[1:]
    states = state_of_rounds(constraints)
    assert states[0] == 0
    assert all(
        s is None or s == len(set(c) - {ORIGINAL_PROBLEM})
        for s, c in zip(states, constraints, strict=True)
    )


def test_human_technique_lists_are_aligned_with_the_solutions() -> None:
    solutions, labels = starter("human_solutions.json"), starter("human_solution_techniques.json")
    for pid, codes in solutions.items():
        assert len(labels[pid]) == len(codes) >= 2
        for names in labels[pid]:
            assert set(names) <= set(VOCABULARY) and names


# --- every expected output is right ---------------------------------------------------------


def test_every_reference_code_and_human_solution_passes_the_tests() -> None:
    tests = cases_by_id()
    jobs, labels, wanted = [], [], []
    for problem in problems():
        pid = problem["problem_id"]
        case = tests[pid]
        assert len(case["input"]) == len(case["output"]) >= 3
        stdin = judge_stdin(case["input"])
        programs = [
            (f"{pid} round {r}", code + "\n\nsolve()\n") for r, code in enumerate(problem["codes"])
        ]
        programs += [
            (f"{pid} human {j}", code)
            for j, code in enumerate(starter("human_solutions.json")[pid])
        ]
        for label, program in programs:
            jobs.append(Job(program, stdin=stdin, limits=Limits(wall_seconds=20, cpu_seconds=10)))
            labels.append(label)
            wanted.append(expected_lines(case["output"]))
    results = run_many(jobs, workers=2)
    failures = [
        f"{label}: {result.verdict.value} {result.stdout!r} {result.stderr[-300:]}"
        for label, result, lines in zip(labels, results, wanted, strict=True)
        if not result.ok or result.stdout.split() != " ".join(lines).split()
    ]
    assert not failures, "\n".join(failures)


def test_statement_examples_are_the_test_cases() -> None:
    tests = cases_by_id()
    for problem in problems():
        case = tests[problem["problem_id"]]
        sample = judge_stdin(case["input"]).strip()
        answer = "\n".join(expected_lines(case["output"]))
        assert (
            f"Example\nInput\n{sample}\nOutput\n{answer}\nNote\n"
            in problem["problem_statements"][0]
        )


# --- techniques ------------------------------------------------------------------------------


def test_reference_codes_follow_their_constraints() -> None:
    for problem in problems():
        for r, (code, constraints) in enumerate(
            zip(problem["codes"], problem["constraints_list"], strict=True)
        ):
            found = detect_static(code)
            assert not found.unparseable, f"{problem['problem_id']} round {r}: {found.error}"
            broken = set(found.techniques) & set(constraints)
            assert not broken, f"{problem['problem_id']} round {r} uses {broken}"


def test_each_new_constraint_was_used_by_the_previous_rounds_code() -> None:
    """Denial Prompting denies a technique the previous solution used."""
    for problem in problems():
        lists, codes = problem["constraints_list"], problem["codes"]
        for r in range(1, len(lists)):
            new = set(lists[r]) - set(lists[r - 1])
            previous = detect_static(codes[r - 1])
            for name in new & previous.detectable:
                assert name in previous.techniques, f"{problem['problem_id']} round {r}: {name}"


def test_human_labels_agree_with_static_detection_where_it_can_see() -> None:
    solutions, labels = starter("human_solutions.json"), starter("human_solution_techniques.json")
    for pid, codes in solutions.items():
        for j, (code, names) in enumerate(zip(codes, labels[pid], strict=True)):
            found = detect_static(code)
            assert not found.unparseable
            assert set(names) & found.detectable == set(found.techniques), f"{pid} human {j}"


def test_reference_codes_are_fully_convergent_at_every_state() -> None:
    """End to end with the metric: correct (checked above) and constraint-free codes."""
    labels = starter("human_solution_techniques.json")
    for problem in problems():
        union = set().union(*map(set, labels[problem["problem_id"]]))
        states = state_of_rounds(problem["constraints_list"])
        rows = [(code, c) for code, c, s in
                zip(problem["codes"], problem["constraints_list"], states, strict=True) if s is not None]  # fmt: skip
        techniques = [set(detect_static(code).techniques) for code, _ in rows]
        summary = neogauge_state([True] * len(rows), techniques, [c for _, c in rows],
                                 [union] * len(rows))  # fmt: skip
        assert summary["convergent"] == 1.0
        assert 0.0 < summary["divergent"] <= 1.0  # later rounds leave the human techniques
