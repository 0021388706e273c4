"""Ordinary programs: input and output, errors, the environment, parallel runs, the API's checks."""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

from creval.errors import CrevalError
from creval.sandbox import Job, Limits, Verdict, describe_isolation, run, run_many

from .helpers import SMALL


def test_stdin_is_echoed(level: dict[str, str]) -> None:
    text = "héllo wörld ✓\nsecond line\n"
    result = run("import sys\nsys.stdout.write(sys.stdin.read().upper())", stdin=text,
                 limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK and result.exit_code == 0 and result.signal is None
    assert result.stdout == text.upper() and result.stderr == ""
    assert result.isolation == level["isolation"]
    assert 0 < result.wall_seconds < SMALL.wall_seconds and result.max_rss_mb > 1


def test_runtime_error_keeps_the_traceback(level: dict[str, str]) -> None:
    result = run("print('before')\n1 / 0\n", limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.RUNTIME_ERROR and result.exit_code == 1
    assert result.stdout == "before\n"
    assert "ZeroDivisionError" in result.stderr and "line 2" in result.stderr


@pytest.mark.parametrize(("program", "code", "verdict"), [
    ("exit(3)", 3, Verdict.RUNTIME_ERROR),
    ("quit()", 0, Verdict.OK),
    ("import sys\nsys.exit(0)", 0, Verdict.OK),
    ("if __name__ == '__main__':\n    raise SystemExit(5)", 5, Verdict.RUNTIME_ERROR),
])
def test_exit_codes(namespace: dict[str, str], program: str, code: int, verdict: Verdict) -> None:
    result = run(program, limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert (result.exit_code, result.verdict) == (code, verdict), result


def test_death_by_signal_is_recorded(level: dict[str, str]) -> None:
    result = run("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.verdict is Verdict.RUNTIME_ERROR and result.signal == 15
    assert result.exit_code is None and "SIGTERM" in result.detail


def test_environment_is_scrubbed_and_scratch_empty(level: dict[str, str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREVAL_SECRET_TOKEN", "do-not-leak")
    program = "import json, os\nprint(json.dumps({'env': dict(os.environ), 'cwd': os.listdir('.')}))"
    result = run(program, limits=SMALL, **level)  # type: ignore[arg-type]
    seen = json.loads(result.stdout)
    assert "CREVAL_SECRET_TOKEN" not in seen["env"] and "do-not-leak" not in result.stdout
    assert set(seen["env"]) <= {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"}
    assert seen["cwd"] == []


def test_run_many_keeps_order_and_runs_in_parallel() -> None:
    # later jobs finish first; results must still come back in job order
    jobs = [Job(f"import time\ntime.sleep({0.1 * (6 - i)})\nprint({i})", limits=SMALL) for i in range(6)]
    started = time.monotonic()
    results = run_many(jobs, workers=6)
    elapsed = time.monotonic() - started
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(6)]
    assert all(r.verdict is Verdict.OK for r in results)
    serial = sum(0.1 * (6 - i) for i in range(6))  # 2.1 s of sleeping in all
    assert elapsed < serial, f"{elapsed:.2f} s: the jobs did not overlap"


def test_run_many_mixes_verdicts() -> None:
    jobs = [Job("print(input())", stdin="a"), Job("1/0"), Job("while True: pass",
            limits=Limits(cpu_seconds=1, wall_seconds=2)), Job("print('b')")]
    verdicts = [r.verdict for r in run_many(jobs, workers=2)]
    assert verdicts == [Verdict.OK, Verdict.RUNTIME_ERROR, Verdict.TIMEOUT, Verdict.OK]


def test_auto_uses_the_strongest_level_and_says_so() -> None:
    info = describe_isolation()
    assert info["auto"] in ("namespace", "process")
    assert info["levels"][info["auto"]] == "ok"
    assert run("print(1)").isolation == info["auto"]
    json.dumps(info)  # manifests store it


def test_execution_to_dict_is_json(level: dict[str, str]) -> None:
    result = run("print('x' * 5)", limits=SMALL, **level)  # type: ignore[arg-type]
    data = json.loads(json.dumps(result.to_dict()))
    assert data["verdict"] == "ok" and data["stdout"] == "xxxxx\n"
    assert data["isolation"] == level["isolation"]


@pytest.mark.parametrize("bad", [{"memory_mb": 0}, {"wall_seconds": -1}, {"cpu_seconds": float("nan")}])
def test_limits_are_validated(bad: dict[str, float]) -> None:
    with pytest.raises(CrevalError, match="must be positive"):
        Limits(**bad)  # type: ignore[arg-type]


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(CrevalError, match="isolation"):
        run("print(1)", isolation="chroot")  # type: ignore[arg-type]
    with pytest.raises(CrevalError, match="not found"):
        run("print(1)", python="/no/such/python3")
    with pytest.raises(CrevalError, match="workers"):
        run_many([Job("print(1)")], workers=0)


def test_another_interpreter_can_be_chosen(namespace: dict[str, str]) -> None:
    other = "/usr/bin/python3"
    if not os.path.exists(other) or os.path.realpath(other) == os.path.realpath(sys.executable):
        pytest.skip(f"{other} is absent or is the interpreter running the tests")
    result = run("import sys\nprint(sys.executable)", python=other, limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK and result.stdout.strip() == os.path.realpath(other)
