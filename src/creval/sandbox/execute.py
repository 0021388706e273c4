"""Run untrusted Python programs in separate, limited, isolated processes.

The creval process never executes model code: each execution is set up by the trusted
``_launcher.py``, which sets up the namespaces and limits and execs the program. It runs in
a child forked by the long-lived spawner (``creval.sandbox.spawner``) or, when that is
unavailable, in a fresh interpreter per execution. This side feeds stdin, reads bounded
output, enforces a backstop deadline and classifies the result.
"""

from __future__ import annotations

import math
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from creval.errors import CrevalError
from creval.sandbox import spawner
from creval.sandbox.spawner import SpawnedLaunch
from creval.sandbox.types import Execution, Isolation, Limits, Verdict

LAUNCHER = Path(__file__).with_name("_launcher.py")
BACKSTOP_SECONDS = 5.0  # extra wall time before this side kills a launcher that never reported
MEMORY_ERROR = re.compile(r"\bMemoryError\b|Cannot allocate memory|[Oo]ut of memory")


@dataclass(frozen=True)
class Interpreter:
    """The Python that runs programs and the directories it needs inside the namespace."""

    executable: str
    prefixes: tuple[str, ...]

    @classmethod
    def find(cls, python: str | None) -> Interpreter:
        if python is None:
            prefixes = {sys.base_prefix, sys.base_exec_prefix}
            return cls._checked(os.path.realpath(sys.executable), prefixes)
        found = shutil.which(python)
        if found is None:
            raise CrevalError(f"Python interpreter {python!r} not found: give a path or a name on PATH.")
        real = os.path.realpath(found)
        return cls._checked(real, {str(Path(real).parent.parent)})

    @classmethod
    def _checked(cls, executable: str, prefixes: set[str]) -> Interpreter:
        real = sorted({os.path.realpath(p) for p in prefixes})
        binds = tuple(p for p in real if p != "/usr" and not p.startswith("/usr/"))
        if any(":" in p for p in binds):
            raise CrevalError(f"The interpreter prefix {binds} contains ':'; use another Python.")
        return cls(executable, binds)


def _execute(program: str, stdin: str, limits: Limits, level: Isolation,
             interpreter: Interpreter) -> Execution:
    jobdir = ""  # namespace mode needs no host directory: its root and scratch are tmpfs
    if level == "process":
        jobdir = tempfile.mkdtemp(prefix="creval-sandbox-")
        os.chmod(jobdir, 0o711)  # the program's uid reaches scratch/ and main.py
        main = Path(jobdir, "main.py")
        main.write_text(program, encoding="utf-8")
        main.chmod(0o644)
        os.mkdir(Path(jobdir, "scratch"))
    try:
        started = time.monotonic()
        out, err, status, output_hit, via = _launch(program, jobdir, stdin, limits, level,
                                                    interpreter)
        elapsed = time.monotonic() - started
    finally:
        if jobdir:
            shutil.rmtree(jobdir, ignore_errors=True)
    result = _classify(out, err, status, output_hit, limits, level, elapsed)
    result.launched_by = via
    return result


def _launcher_settings(jobdir: str, limits: Limits, level: Isolation,
                       interpreter: Interpreter) -> dict[str, str]:
    """The launcher's ``key=value`` settings, except ``program_fd`` (set by whoever starts it)."""
    settings = {
        "mode": level,
        "jobdir": jobdir,
        "python": interpreter.executable,
        "binds": ":".join(interpreter.prefixes),
        "cpu": math.ceil(limits.cpu_seconds),
        "wall": limits.wall_seconds,
        "as_bytes": limits.memory_mb << 20,
        "fsize": limits.file_size_mb << 20,
        "scratch_bytes": limits.scratch_mb << 20,
        "nproc": limits.processes,
        "network": int(limits.network),
    }
    return {key: str(value) for key, value in settings.items()}


def _memfd(name: str, text: str) -> int:
    """An in-memory file holding ``text``, positioned at its start."""
    fd = os.memfd_create(name)
    data = text.encode("utf-8")
    written = 0
    while written < len(data):
        written += os.write(fd, data[written:])
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


class PopenLaunch:
    """A launcher in its own fresh interpreter (the path when the spawner is unavailable)."""

    via = "launcher"

    def __init__(self, settings: dict[str, str], stdin_fd: int, program_fd: int) -> None:
        self.status, status_w = os.pipe()
        args = [f"{key}={value}" for key, value in {**settings, "program_fd": program_fd}.items()]
        head = [os.path.realpath(sys.executable), "-I", "-S", "-B", str(LAUNCHER), str(status_w)]
        try:
            self.process = subprocess.Popen(
                head + args, stdin=stdin_fd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(status_w, program_fd), env={"PATH": "/usr/bin:/bin"}, cwd="/",
            )
        except BaseException:
            os.close(self.status)
            raise
        finally:
            os.close(status_w)
        assert self.process.stdout is not None and self.process.stderr is not None
        self.stdout, self.stderr = self.process.stdout.fileno(), self.process.stderr.fileno()

    def send_signal(self, number: int) -> None:
        self.process.send_signal(number)

    def finish(self, complete: bool) -> None:
        """Wait for the launcher (killing it first unless it reported completely); close fds."""
        os.close(self.status)
        if not complete and self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()  # type: ignore[union-attr]
        self.process.stderr.close()  # type: ignore[union-attr]


def _launch(program: str, jobdir: str, stdin: str, limits: Limits, level: Isolation,
            interpreter: Interpreter) -> tuple[bytes, bytes, dict[str, str], bool, str]:
    """Start a launcher (through the spawner if it serves), collect its output and report."""
    settings = _launcher_settings(jobdir, limits, level, interpreter)
    started: SpawnedLaunch | PopenLaunch | None = None
    for attempt in ("spawner", "launcher"):  # fresh input fds for each attempt
        if attempt == "spawner" and not spawner.enabled():
            continue
        stdin_fd, program_fd = _memfd("stdin", stdin), _memfd("program", program)
        try:
            if attempt == "spawner":
                started = spawner.launch(settings, stdin_fd, program_fd)
            else:
                started = PopenLaunch(settings, stdin_fd, program_fd)
        finally:
            os.close(stdin_fd)
            os.close(program_fd)
        if started is not None:
            break
    assert started is not None
    complete = False
    try:
        out, err, status, output_hit = _collect(started, limits)
        complete = _complete(bytearray(status))
    finally:
        started.finish(complete)
    return out, err, _parse_status(status), output_hit, started.via


def _collect(started: SpawnedLaunch | PopenLaunch,
             limits: Limits) -> tuple[bytes, bytes, bytes, bool]:
    """Read stdout, stderr and the report until the outputs close and the report is complete.

    A complete report (its last line is ``end``) comes once the program and everything it
    started are done, so this need not wait for the launcher to tear the namespaces down.
    """
    buffers = {started.stdout: bytearray(), started.stderr: bytearray(), started.status: bytearray()}
    cap = limits.output_bytes
    output_hit = False
    deadline = time.monotonic() + limits.wall_seconds + BACKSTOP_SECONDS
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:  # the launcher is stuck: kill it (its child dies with it)
                started.send_signal(signal.SIGKILL)
                break
            for key, _ in selector.select(remaining):
                chunk = os.read(key.fd, 65536)
                buffer = buffers[key.fd]
                if len(buffer) <= cap or key.fd == started.status:
                    buffer += chunk
                if not chunk or (key.fd == started.status and _complete(buffer)):
                    selector.unregister(key.fd)
                if key.fd != started.status and len(buffer) > cap and not output_hit:
                    output_hit = True
                    started.send_signal(signal.SIGTERM)  # the launcher kills the program
    out, err = buffers[started.stdout], buffers[started.stderr]
    return bytes(out), bytes(err), bytes(buffers[started.status]), output_hit


def _complete(report: bytearray) -> bool:
    return report.startswith(b"end\n") or b"\nend\n" in report


def _parse_status(text: bytes) -> dict[str, str]:
    lines = text.decode("utf-8", errors="replace").splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def _classify(out: bytes, err: bytes, status: dict[str, str], output_hit: bool, limits: Limits,
              level: Isolation, elapsed: float) -> Execution:
    cap = limits.output_bytes
    exit_code = int(status["exit"]) if "exit" in status else None
    killer = int(status["signal"]) if "signal" in status else None
    cpu = float(status.get("cpu", 0.0))
    stderr = err[:cap].decode("utf-8", errors="replace")
    verdict, detail = _verdict(status, output_hit, cpu, exit_code, killer, stderr, limits)
    if level == "process" and "Permission denied" in status.get("setup_error", ""):
        detail += (" (process isolation runs the program as an unprivileged uid: the interpreter "
                   "and its prefix must be readable by other users, e.g. python='/usr/bin/python3')")
    return Execution(
        verdict=verdict,
        stdout=out[:cap].decode("utf-8", errors="replace"),
        stderr=stderr,
        exit_code=exit_code,
        signal=killer,
        wall_seconds=float(status.get("wall", elapsed)),
        cpu_seconds=cpu,
        max_rss_mb=int(status.get("rss_kb", 0)) / 1024,
        isolation=level,
        stdout_truncated=len(out) > cap,
        stderr_truncated=len(err) > cap,
        detail=detail,
    )


def _verdict(status: dict[str, str], output_hit: bool, cpu: float, exit_code: int | None,
             killer: int | None, stderr: str, limits: Limits) -> tuple[Verdict, str]:
    if "setup_error" in status or "reason" not in status:
        return Verdict.SANDBOX_ERROR, status.get("setup_error", "the launcher did not report")
    if output_hit:
        return Verdict.OUTPUT_LIMIT, f"output exceeded {limits.output_bytes} bytes"
    if status["reason"] == "timeout":
        return Verdict.TIMEOUT, f"wall clock exceeded {limits.wall_seconds} s"
    if status["reason"] == "killed":
        return Verdict.SANDBOX_ERROR, "killed on request"
    if killer == signal.SIGXCPU or cpu > limits.cpu_seconds:
        return Verdict.TIMEOUT, f"CPU time exceeded {limits.cpu_seconds} s"
    if exit_code == 0:
        return Verdict.OK, ""
    if MEMORY_ERROR.search(stderr[-4000:]):
        return Verdict.MEMORY_LIMIT, f"memory exceeded {limits.memory_mb} MiB"
    if killer is not None:
        return Verdict.RUNTIME_ERROR, f"killed by signal {killer} ({_signal_name(killer)})"
    return Verdict.RUNTIME_ERROR, f"exit code {exit_code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown"
