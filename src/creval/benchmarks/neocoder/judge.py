"""Judge a program on input/output tests: every test runs in the sandbox, in parallel.

The default judge (``--judge-compat`` unset). Each test is one run of the whole program
with the test's stdin; its stdout must match the expected output as a whole: every
line, compared token by token (any run of whitespace separates tokens, so trailing
spaces and blank lines do not matter; a missing or extra line does), optionally with a
float tolerance and, for problems that accept answers "in any case", ignoring case.

>>> tests = [Test(stdin="1\\n2 3\\n", expected="5"), Test(stdin="1\\n4 4\\n", expected="8")]
>>> result = judge_program("t = int(input())\\nprint(sum(map(int, input().split())))", tests)
>>> result.passed, [t.verdict.value for t in result.tests]
(True, ['pass', 'pass'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.sandbox import Execution, Limits


class TestVerdict(str, Enum):
    """How one test ended."""

    __test__ = False

    PASS = "pass"
    WRONG_ANSWER = "wrong_answer"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SANDBOX_ERROR = "sandbox_error"


@dataclass(frozen=True)
class Test:
    """One test: the program's stdin and the whole expected stdout."""

    __test__ = False  # not a pytest class

    stdin: str
    expected: str
    ignore_case: bool = False


@dataclass(frozen=True)
class FloatTolerance:
    """Numbers match when ``|a - b| <= max(abs, rel * |b|)`` (b the expected number)."""

    abs: float = 1e-6
    rel: float = 1e-6

    def __post_init__(self) -> None:
        if not (self.abs >= 0 and self.rel >= 0):
            raise CrevalError(f"Float tolerances must be >= 0, got abs={self.abs}, rel={self.rel}.")


@dataclass
class TestResult:
    """The outcome of one test; ``stderr`` is the tail of the program's stderr."""

    __test__ = False

    verdict: TestVerdict
    stdout: str = ""
    stderr: str = ""
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    detail: str = ""


@dataclass
class JudgeResult:
    """All tests of one program. ``program`` is None when no code was found."""

    program: str | None
    tests: list[TestResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.program is not None and bool(self.tests) and all(
            t.verdict is TestVerdict.PASS for t in self.tests)

    @property
    def verdict(self) -> str:
        """``pass``, ``no_program``, or the first failing test's verdict."""
        if self.program is None:
            return "no_program"
        failing = next((t for t in self.tests if t.verdict is not TestVerdict.PASS), None)
        return failing.verdict.value if failing else TestVerdict.PASS.value


def _tokens_match(got: str, want: str, float_tol: FloatTolerance | None, ignore_case: bool) -> bool:
    if got == want or (ignore_case and got.lower() == want.lower()):
        return True
    if float_tol is None:
        return False
    try:
        a, b = float(got), float(want)
    except ValueError:
        return False
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    return abs(a - b) <= max(float_tol.abs, float_tol.rel * abs(b))


def outputs_match(
    actual: str,
    expected: str,
    *,
    float_tol: FloatTolerance | None = None,
    ignore_case: bool = False,
) -> bool:
    """Whether ``actual`` stdout matches ``expected``: the same non-empty lines, each with
    the same whitespace-separated tokens; numbers within ``float_tol`` when given.

    >>> outputs_match("3 4  \\n5\\n\\n", "3 4\\n5")
    True
    >>> outputs_match("3 4\\n5", "3 4 5")  # a line break is part of the answer
    False
    >>> outputs_match("0.3333333", "0.333333333", float_tol=FloatTolerance(abs=1e-6))
    True
    >>> outputs_match("yes", "YES"), outputs_match("yes", "YES", ignore_case=True)
    (False, True)
    """
    got_lines = [line.split() for line in actual.splitlines() if line.strip()]
    want_lines = [line.split() for line in expected.splitlines() if line.strip()]
    if len(got_lines) != len(want_lines):
        return False
    for got, want in zip(got_lines, want_lines, strict=True):
        if len(got) != len(want):
            return False
        if not all(_tokens_match(g, w, float_tol, ignore_case) for g, w in zip(got, want, strict=True)):
            return False
    return True


def cases_to_tests(
    inputs: Sequence[Sequence[Sequence[str] | str]],
    outputs: Sequence[str | Sequence[str]],
    *,
    count_line: bool = True,
    ignore_case: bool = False,
) -> list[Test]:
    """One :class:`Test` per case of NeoCoder's annotated format.

    A case's input is a list of lines, each a list of tokens (joined with one space) or,
    in a few upstream entries, a plain string (the line itself; the repository's judge
    would put spaces between its characters).
    With ``count_line`` (multi-test problems, as on Codeforces) stdin starts with ``1``,
    the number of test cases. An expected entry is a string (lines joined with ``\\n``)
    or a list of lines.

    >>> [t.stdin for t in cases_to_tests([[["3", "7"], ["1", "2"]]], ["4"])]
    ['1\\n3 7\\n1 2\\n']
    >>> cases_to_tests([[["5"]]], [["YES", "1 2"]], count_line=False)[0].expected
    'YES\\n1 2'
    """
    if len(inputs) != len(outputs):
        raise CrevalError(f"Test cases have {len(inputs)} inputs but {len(outputs)} outputs; "
                          "each input needs exactly one expected output.")
    tests = []
    for case, expected in zip(inputs, outputs, strict=True):
        rows = [row if isinstance(row, str) else " ".join(row) for row in case]
        lines = (["1"] if count_line else []) + rows
        want = expected if isinstance(expected, str) else "\n".join(expected)
        tests.append(Test("\n".join(lines) + "\n", want, ignore_case))
    return tests


def default_limits() -> Limits:
    """Per test: 6 s CPU (the upstream limit), 12 s wall, 512 MB."""
    from creval.sandbox import Limits

    return Limits(cpu_seconds=6, wall_seconds=12, memory_mb=512)


def run_programs(jobs: Sequence[tuple[str, str, Limits]], *, workers: int | None = None
                 ) -> list[Execution]:
    """Run ``(program, stdin, limits)`` jobs in the sandbox, in parallel, in order.

    The one place this package touches :mod:`creval.sandbox`. Under the local executor the
    jobs run here, ``workers`` at a time; under Ray (``--executor ray``) they go in chunks to
    the workers, a few chunks per worker, each chunk one Ray task holding one CPU that runs
    its jobs one after the other (``workers`` is then the executor's).
    """
    from creval.runner.executors import current_executor, split

    executor = current_executor()
    if executor.name == "local" or not jobs:
        return _run_chunk((list(jobs), workers))
    # a few chunks per worker so that a slow chunk does not hold the others back
    chunks = split(list(jobs), 4 * int(getattr(executor, "workers", 1)))
    done = executor.map(_run_chunk, [(chunk, 1) for chunk in chunks], label="sandbox")
    return [execution for chunk in done for execution in chunk]


def _run_chunk(chunk: tuple[list[tuple[str, str, Limits]], int | None]) -> list[Execution]:
    """One chunk of :func:`run_programs` jobs in the sandbox of this process's machine."""
    from creval.sandbox import Job, run_many

    jobs, workers = chunk
    return run_many([Job(program, stdin, limits) for program, stdin, limits in jobs],
                    workers=workers)


_VERDICTS = {v.value: v for v in TestVerdict}


def _test_result(execution: Execution, test: Test, float_tol: FloatTolerance | None
                 ) -> TestResult:
    kind = execution.verdict.value
    if kind == "ok":
        good = outputs_match(execution.stdout, test.expected, float_tol=float_tol,
                             ignore_case=test.ignore_case)
        verdict = TestVerdict.PASS if good else TestVerdict.WRONG_ANSWER
    else:
        verdict = _VERDICTS.get(kind, TestVerdict.SANDBOX_ERROR)
    return TestResult(verdict, execution.stdout, execution.stderr[-2000:],
                      execution.wall_seconds, execution.cpu_seconds, execution.detail)


def judge_many(
    items: Sequence[tuple[str | None, Sequence[Test]]],
    *,
    limits: Limits | None = None,
    float_tol: FloatTolerance | None = None,
    workers: int | None = None,
) -> list[JudgeResult]:
    """Judge many ``(program, tests)`` pairs; every test of every program runs in parallel.

    A None program (no code in the answer) gives a result with no tests, not passed.
    """
    limits = limits or default_limits()
    jobs = [(program, test.stdin, limits) for program, tests in items if program is not None
            for test in tests]
    executions = iter(run_programs(jobs, workers=workers))
    results = []
    for program, tests in items:
        if program is None:
            results.append(JudgeResult(None))
            continue
        results.append(JudgeResult(program, [_test_result(next(executions), t, float_tol)
                                             for t in tests]))
    return results


def judge_program(
    program: str | None,
    tests: Sequence[Test],
    *,
    limits: Limits | None = None,
    float_tol: FloatTolerance | None = None,
    workers: int | None = None,
) -> JudgeResult:
    """Judge one program on ``tests`` (see the module docstring)."""
    return judge_many([(program, tests)], limits=limits, float_tol=float_tol, workers=workers)[0]
