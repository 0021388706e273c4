"""The long-lived spawner: used by default, serves threads, dies with creval, falls back when broken."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from creval.sandbox import Job, Limits, Verdict, run, run_many, spawner
from creval.sandbox.spawner import spawner_pid, spawner_status

from .helpers import SMALL, alive, children, descendants, runs_program


@pytest.fixture(autouse=True)
def fresh_spawner(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with the spawner enabled but not running, and leaves none behind."""
    monkeypatch.delenv(spawner.DISABLE_ENV, raising=False)
    spawner.shutdown()
    yield
    spawner.shutdown()


def wait_until(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.02)
    return bool(condition())  # type: ignore[operator]


def test_runs_share_one_spawner(level: dict[str, str]) -> None:
    spawner.shutdown()  # the level fixture's probe may have started one
    assert spawner_pid() is None and spawner_status() == "not started"
    first = run("print(input())", stdin="a", limits=SMALL, **level)  # type: ignore[arg-type]
    pid = spawner_pid()
    second = run("print(input())", stdin="b", limits=SMALL, **level)  # type: ignore[arg-type]
    assert (first.stdout, second.stdout) == ("a\n", "b\n")
    assert first.launched_by == second.launched_by == "spawner"
    assert pid is not None and spawner_pid() == pid and spawner_status() == "running"


def test_concurrent_runs_are_served_and_reaped(level: dict[str, str]) -> None:
    jobs = [Job(f"import time\ntime.sleep(0.{i % 3})\nprint(input())", stdin=str(i), limits=SMALL)
            for i in range(12)]
    results = run_many(jobs, workers=6, **level)  # type: ignore[arg-type]
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(12)]
    assert {r.launched_by for r in results} == {"spawner"}
    pid = spawner_pid()
    assert pid is not None
    assert wait_until(lambda: children(pid) == [], 3), f"unreaped children: {children(pid)}"


def test_program_cannot_signal_the_spawner(level: dict[str, str]) -> None:
    if level["isolation"] == "process" and os.geteuid() != 0:
        pytest.skip("process isolation without root runs programs as creval's own uid")
    run("print(1)", limits=SMALL, **level)  # type: ignore[arg-type]
    pid = spawner_pid()
    attack = (
        "import os, signal\npid = int(input())\n"
        "try:\n    os.kill(pid, signal.SIGKILL)\n    print('sent')\n"
        "except OSError as exc:\n    print(type(exc).__name__)\n"
    )
    result = run(attack, stdin=f"{pid}\n", limits=SMALL, **level)  # type: ignore[arg-type]
    assert result.stdout in ("ProcessLookupError\n", "PermissionError\n"), result
    assert spawner_pid() == pid and alive(pid)  # type: ignore[arg-type]
    assert run("print(2)", limits=SMALL, **level).launched_by == "spawner"  # type: ignore[arg-type]


def test_creval_dying_kills_the_spawner_and_the_sandbox(level: dict[str, str]) -> None:
    script = textwrap.dedent(f"""
        import threading, time
        from creval.sandbox import Limits, run
        from creval.sandbox.spawner import spawner_pid
        limits = Limits(cpu_seconds=60, wall_seconds=60)
        program = "import time\\ntime.sleep(60)"
        threading.Thread(target=run, args=(program,), kwargs=dict(limits=limits, **{level!r}),
                         daemon=True).start()
        while spawner_pid() is None:
            time.sleep(0.01)
        print(spawner_pid(), flush=True)
        time.sleep(120)
    """)
    env = {k: v for k, v in os.environ.items() if k != spawner.DISABLE_ENV}
    creval = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              env=env)
    try:
        assert creval.stdout is not None
        assert select.select([creval.stdout], [], [], 60)[0], "the helper never started a run"
        pid = int(creval.stdout.readline())
        assert wait_until(lambda: any(runs_program(p) for p in descendants(pid)), 10)
        doomed = [pid, *descendants(pid)]  # the spawner, the launcher, (init,) the program
    finally:
        creval.kill()
        creval.wait()
    assert wait_until(lambda: not any(alive(p) for p in doomed), 5), \
        f"survived creval: {[p for p in doomed if alive(p)]}"


def test_a_dead_spawner_is_replaced(namespace: dict[str, str]) -> None:
    run("print(1)", limits=SMALL, **namespace)  # type: ignore[arg-type]
    old = spawner_pid()
    assert old is not None
    os.kill(old, signal.SIGKILL)
    results = [run("print(2)", limits=SMALL, **namespace) for _ in range(2)]  # type: ignore[arg-type]
    assert all(r.verdict is Verdict.OK and r.stdout == "2\n" for r in results), results
    assert results[-1].launched_by == "spawner" and spawner_pid() not in (None, old)


def test_unstartable_spawner_falls_back_to_the_launcher(namespace: dict[str, str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "_spawner.py"
    broken.write_text("raise SystemExit(3)\n")
    monkeypatch.setattr(spawner, "SPAWNER", broken)
    spawner.shutdown()  # the namespace fixture's probe may have started one
    result = run("print(input())", stdin="x", limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert result.verdict is Verdict.OK and result.stdout == "x\n", result
    assert result.launched_by == "launcher" and spawner_pid() is None
    assert "did not start" in spawner_status()


@pytest.mark.parametrize(("program", "verdict"), [
    ("print(input())", Verdict.OK),
    ("while True:\n    pass\n", Verdict.TIMEOUT),
    ("import sys\nwhile True:\n    sys.stdout.write('x' * 1000)\n", Verdict.OUTPUT_LIMIT),
])
def test_disabled_spawner_uses_the_launcher(level: dict[str, str], monkeypatch: pytest.MonkeyPatch,
                                            program: str, verdict: Verdict) -> None:
    monkeypatch.setenv(spawner.DISABLE_ENV, "0")
    limits = Limits(cpu_seconds=1, wall_seconds=2, processes=8, output_bytes=20_000)
    result = run(program, stdin="y\n", limits=limits, **level)  # type: ignore[arg-type]
    assert result.verdict is verdict and result.launched_by == "launcher", result
    assert spawner_pid() is None and spawner_status() == "disabled"


def test_a_forked_creval_gets_its_own_spawner(namespace: dict[str, str]) -> None:
    run("print(1)", limits=SMALL, **namespace)  # type: ignore[arg-type]
    parent = spawner_pid()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover  (the child reports through the pipe)
        try:
            result = run("print(5)", limits=SMALL, **namespace)  # type: ignore[arg-type]
            os.write(write_end, f"{result.stdout.strip()} {result.launched_by} {spawner_pid()}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as report:
        value, via, child_spawner = report.read().split()
    os.waitpid(pid, 0)
    assert (value, via) == ("5", "spawner") and int(child_spawner) != parent
    again = run("print(6)", limits=SMALL, **namespace)  # type: ignore[arg-type]
    assert again.stdout == "6\n" and again.launched_by == "spawner" and spawner_pid() == parent
