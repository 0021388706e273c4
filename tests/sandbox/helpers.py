"""Helpers for the sandbox tests: small limits, the levels that work here, health checks."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from creval.sandbox import Execution, Limits, Verdict, run
from creval.sandbox.isolation import probe

# Small limits keep the attacks fast: each is bounded by these, not by the defaults.
SMALL = Limits(cpu_seconds=2, wall_seconds=3, memory_mb=256, file_size_mb=4, scratch_mb=16,
               processes=16, output_bytes=20_000)
UID_BASE = 3_000_000_000  # programs run as uids at or above this one (see _launcher.py)


def process_python() -> str | None:
    """An interpreter the unprivileged sandbox uid can read (process isolation needs one)."""
    for python in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(python) and not probe("process", python):
            return python
    return None


def sandbox_pids(uid: int | None = None) -> list[int]:
    """Processes (zombies too) of a sandbox uid (``uid`` only, if given)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        real_uid = int(fields["Uid"].split()[0])
        if real_uid == uid if uid is not None else real_uid >= UID_BASE:
            found.append(int(entry.name))
    return found


def assert_healthy(kwargs: dict[str, str], uid: int | None = None) -> None:
    """After an attack: nothing of the program survives and a new run works."""
    if uid is not None:
        deadline = time.monotonic() + 0.5  # the kernel finishes killing asynchronously at most
        while sandbox_pids(uid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sandbox_pids(uid) == [], f"processes of sandbox uid {uid} survived"
    again = run("print(6 * 7)", limits=SMALL, **kwargs)  # type: ignore[arg-type]
    assert again.verdict is Verdict.OK and again.stdout == "42\n", again


def first_line_uid(result: Execution) -> int:
    """The uid a program printed on its first line (programs print ``os.getuid()`` first)."""
    return int(result.stdout.splitlines()[0])


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (zombies too); ``[]`` once it is gone."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def descendants(pid: int) -> list[int]:
    found, todo = [], children(pid)
    while todo:
        found.append(todo.pop())
        todo += children(found[-1])
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def runs_program(pid: int) -> bool:
    """Whether ``pid`` is a program's interpreter (started with the sandbox's boot code)."""
    try:
        return b"builtins.exit=builtins.quit" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
