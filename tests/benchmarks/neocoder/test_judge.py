"""The default NeoCoder judge: extraction under the solve() convention and sandboxed tests."""

from __future__ import annotations

import os

import pytest

from creval.benchmarks.neocoder.extract import (
    call_solve,
    choose_block,
    extract_program,
    upstream_parse_code,
)
from creval.benchmarks.neocoder.judge import (
    FloatTolerance,
    Test,
    TestVerdict,
    cases_to_tests,
    judge_many,
    judge_program,
    outputs_match,
)
from creval.errors import CrevalError
from creval.sandbox import Limits

ADD = "def solve():\n    for _ in range(int(input())):\n        print(sum(map(int, input().split())))\n"
TESTS = cases_to_tests([[["2", "3"]], [["10", "-4"]]], ["5", "6"])


def fenced(code: str, tag: str = "python") -> str:
    return f"Here is my solution.\n```{tag}\n{code}```\nIt reads stdin."


# --- extraction -----------------------------------------------------------------------


def test_extraction_prefers_the_block_defining_solve_and_calls_it_once() -> None:
    answer = fenced("import sys\n") + "\nAnd the code:\n" + fenced(ADD) + "\n" + fenced("x = 1\n")
    program = extract_program(answer)
    assert program is not None and program.startswith("def solve():")
    assert program.count("solve()") == 2  # the definition and one call
    assert "Here is my solution" not in program


def test_helpers_after_solve_are_kept_and_scaffolding_is_dropped() -> None:
    code = (ADD.replace("sum(map(int, input().split()))", "add(input())")
            + "\nimport io, sys\nsys.stdin = io.StringIO('1\\n1 1\\n')\nsolve()\n"
            + "\ndef add(line):\n    return sum(map(int, line.split()))\n"
            + "\nif __name__ == '__main__':\n    solve()\n")
    program = call_solve(code)
    assert "def add(line)" in program and "import io, sys" in program
    assert "StringIO" not in program and "__main__" not in program
    assert judge_program(program, TESTS).passed


def test_a_program_without_solve_runs_as_a_script() -> None:
    script = "for _ in range(int(input())):\n    print(sum(map(int, input().split())))\n"
    assert extract_program(fenced(script)) == script
    assert judge_program(extract_program(fenced(script)), TESTS).passed


def test_answers_without_code_give_no_program() -> None:
    assert extract_program("I am not sure how to solve this without loops.") is None
    assert extract_program(fenced("ls -la\n", tag="bash")) is None
    assert choose_block(ADD) == ADD  # an unfenced answer that is all code is the code


def test_a_truncated_answer_keeps_its_unterminated_fence() -> None:
    program = extract_program("```python\n" + ADD + "    # the answer was cut her")
    assert program is not None and judge_program(program, TESTS).passed


def test_upstream_extractor_cuts_solve_at_its_first_empty_line() -> None:
    code = "import sys\ndef solve():\n    n = int(sys.stdin.readline())\n\n    print(n)\n"
    parsed = upstream_parse_code(code)
    assert parsed == "import sys\ndef solve():\n    n = int(input())\n"
    assert "print(n)" in (upstream_parse_code(code, cut_at_blank_line=False) or "")
    assert upstream_parse_code("from math import gcd\n# no import keyword\ndef f(): pass") is not None
    assert upstream_parse_code("# from the statement\ndef solve(): pass") is None
    assert upstream_parse_code("print(1)") is None


# --- comparison -----------------------------------------------------------------------


@pytest.mark.parametrize(("actual", "expected", "kw", "same"), [
    ("1 2\n3\n", "1 2\n3", {}, True),
    ("1  2 \r\n\n3", "1 2\n3", {}, True),
    ("1 2 3", "1 2\n3", {}, False),
    ("1 2", "1 2\n3", {}, False),
    ("1 2\n3\n4", "1 2\n3", {}, False),
    ("Yes", "YES", {"ignore_case": True}, True),
    ("1.0000001", "1", {"float_tol": FloatTolerance(abs=1e-6)}, True),
    ("1.1", "1", {"float_tol": FloatTolerance(abs=1e-6, rel=0.01)}, False),
    ("nan", "nan", {"float_tol": FloatTolerance()}, True),
    ("inf", "1e400", {"float_tol": FloatTolerance()}, False),
])
def test_outputs_match(actual: str, expected: str, kw: dict[str, object], same: bool) -> None:
    assert outputs_match(actual, expected, **kw) is same  # type: ignore[arg-type]


def test_cases_need_one_output_each() -> None:
    with pytest.raises(CrevalError, match="2 inputs but 1 outputs"):
        cases_to_tests([[["1"]], [["2"]]], ["1"])


# --- execution ------------------------------------------------------------------------


def test_each_test_gets_its_own_verdict() -> None:
    program = call_solve(ADD.replace("map(int,", "map(lambda v: abs(int(v)),"))
    result = judge_program(program, TESTS)
    assert [t.verdict for t in result.tests] == [TestVerdict.PASS, TestVerdict.WRONG_ANSWER]
    assert not result.passed and result.verdict == "wrong_answer"
    assert result.tests[1].stdout == "14\n"


def test_a_crash_after_a_correct_answer_is_a_runtime_error() -> None:
    result = judge_program(call_solve(ADD + "    raise ValueError('boom')\n"), TESTS)
    assert result.verdict == "runtime_error" and "boom" in result.tests[0].stderr


@pytest.mark.parametrize(("program", "limits", "verdict"), [
    ("while True:\n    pass\n", Limits(cpu_seconds=1, wall_seconds=5), TestVerdict.TIMEOUT),
    ("x = bytearray(400 * 2**20)\nprint(len(x))\n", Limits(memory_mb=128), TestVerdict.MEMORY_LIMIT),
    ("while True:\n    print('y' * 1000)\n", Limits(output_bytes=10_000), TestVerdict.OUTPUT_LIMIT),
])
def test_resource_limits_give_their_verdicts(program: str, limits: Limits,
                                             verdict: TestVerdict) -> None:
    result = judge_program(program, TESTS[:1], limits=limits)
    assert [t.verdict for t in result.tests] == [verdict]


def test_judge_many_keeps_order_and_handles_missing_programs() -> None:
    good, bad = call_solve(ADD), call_solve("def solve():\n    print(0)\n")
    results = judge_many([(bad, TESTS), (None, TESTS), (good, TESTS), (good, TESTS[:1])])
    assert [r.verdict for r in results] == ["wrong_answer", "no_program", "pass", "pass"]
    assert [len(r.tests) for r in results] == [2, 0, 2, 1]


def test_programs_run_in_another_process() -> None:
    program = f"import os\nprint(os.getpid() > 1, os.getppid() != {os.getpid()})\n"
    result = judge_program(program, [Test("", "True True")])
    assert result.passed
