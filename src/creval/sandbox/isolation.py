"""Which isolation this machine supports (probed once per interpreter, then cached), and
the public ``run`` / ``run_many`` that resolve ``isolation="auto"`` with it. Execution
itself is :mod:`creval.sandbox.execute`, which imports nothing from here."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from creval.errors import CrevalError
from creval.sandbox.execute import Interpreter, _execute
from creval.sandbox.types import Execution, Isolation, IsolationRequest, Job, Limits, Verdict

LEVELS: tuple[Isolation, ...] = ("namespace", "process")  # strongest first

_PROBE_LIMITS = Limits(cpu_seconds=5, wall_seconds=10, memory_mb=256, processes=8)
_lock = threading.Lock()
_cache: dict[tuple[str, Isolation], str] = {}  # (interpreter, level) -> "" if it works, else why


def probe(level: Isolation, python: str | None = None) -> str:
    """Run a tiny program at ``level``; return ``""`` if it worked, else the reason it did not."""
    interpreter = Interpreter.find(python)
    key = (interpreter.executable, level)
    with _lock:
        if key not in _cache:
            result = _execute("print('ok')", "", _PROBE_LIMITS, level, interpreter)
            good = result.verdict is Verdict.OK and result.stdout == "ok\n"
            _cache[key] = "" if good else (result.detail or result.stderr.strip()[-300:] or "failed")
        return _cache[key]


def strongest_isolation(interpreter: Interpreter) -> Isolation:
    """``namespace`` if it works here, else ``process``; a clear error if neither does."""
    reasons = {}
    for level in LEVELS:
        reason = probe(level, interpreter.executable)
        if not reason:
            return level
        reasons[level] = reason
    raise CrevalError(
        "The sandbox cannot run programs on this machine: "
        + "; ".join(f"{k}: {v}" for k, v in reasons.items())
        + ". With process isolation as root, the interpreter must be readable by other users "
        "(e.g. python='/usr/bin/python3')."
    )


def describe_isolation(python: str | None = None) -> dict[str, Any]:
    """What this machine supports, for run manifests.

    ``spawner`` says whether executions are set up by the long-lived spawner (``running``)
    or each by its own launcher (``disabled``, or why the spawner failed).

    >>> sorted(describe_isolation())  # doctest: +NORMALIZE_WHITESPACE
    ['auto', 'bubblewrap', 'interpreter', 'levels', 'root', 'spawner', 'unprivileged_uid']
    """
    from creval.sandbox.spawner import spawner_status

    interpreter = Interpreter.find(python)
    levels = {level: probe(level, interpreter.executable) or "ok" for level in LEVELS}
    auto = next((level for level, why in levels.items() if why == "ok"), None)
    return {
        "auto": auto,
        "levels": levels,
        "interpreter": interpreter.executable,
        "root": os.geteuid() == 0,
        "unprivileged_uid": os.geteuid() == 0,  # programs run as a fresh uid (fork limits apply)
        "bubblewrap": shutil.which("bwrap"),
        "spawner": spawner_status(),
    }


def run(
    program: str,
    *,
    stdin: str = "",
    limits: Limits | None = None,
    isolation: IsolationRequest = "auto",
    python: str | None = None,
) -> Execution:
    """Run the Python source ``program`` in a sandbox and return what happened.

    ``isolation`` is ``"namespace"`` (own mount, network and pid namespaces, minimal
    read-only file system), ``"process"`` (limits and an unprivileged uid only) or
    ``"auto"`` (the strongest this machine supports, probed once). ``python`` is the
    interpreter for the program (default: the one running creval, started with ``-I -S``;
    ``exit``/``quit`` are provided). Process isolation is weaker: the program sees the host's
    world-readable files and network, can write to world-writable directories, and its
    scratch directory (on the host's temporary directory) has no total size cap.

    >>> result = run("print(input()[::-1])", stdin="abc\\n")
    >>> result.verdict.value, result.stdout
    ('ok', 'cba\\n')
    """
    limits = limits or Limits()
    interpreter = Interpreter.find(python)
    level = resolve_isolation(isolation, interpreter)
    return _execute(program, stdin, limits, level, interpreter)


def run_many(
    jobs: Sequence[Job],
    *,
    workers: int | None = None,
    isolation: IsolationRequest = "auto",
    python: str | None = None,
) -> list[Execution]:
    """Run ``jobs`` in parallel (default: one at a time per CPU); results keep the job order.

    >>> [e.stdout for e in run_many([Job("print(1)"), Job("print(input())", stdin="2")])]
    ['1\\n', '2\\n']
    """
    if workers is not None and workers < 1:
        raise CrevalError(f"workers must be at least 1, got {workers}.")
    interpreter = Interpreter.find(python)
    level = resolve_isolation(isolation, interpreter)
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        return list(pool.map(
            lambda job: _execute(job.program, job.stdin, job.limits, level, interpreter), jobs
        ))


def resolve_isolation(isolation: IsolationRequest, interpreter: Interpreter) -> Isolation:
    if isolation == "auto":
        return strongest_isolation(interpreter)
    if isolation not in ("namespace", "process"):
        raise CrevalError(f"isolation must be auto, namespace or process, not {isolation!r}.")
    return isolation
