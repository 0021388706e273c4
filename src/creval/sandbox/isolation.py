"""Which isolation this machine supports: probed once per interpreter, then cached."""

from __future__ import annotations

import os
import shutil
import threading
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.sandbox.types import Isolation, Limits, Verdict

if TYPE_CHECKING:
    from creval.sandbox.runner import Interpreter

LEVELS: tuple[Isolation, ...] = ("namespace", "process")  # strongest first

_PROBE_LIMITS = Limits(cpu_seconds=5, wall_seconds=10, memory_mb=256, processes=8)
_lock = threading.Lock()
_cache: dict[tuple[str, Isolation], str] = {}  # (interpreter, level) -> "" if it works, else why


def probe(level: Isolation, python: str | None = None) -> str:
    """Run a tiny program at ``level``; return ``""`` if it worked, else the reason it did not."""
    from creval.sandbox.runner import Interpreter, _execute

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
    from creval.sandbox.runner import Interpreter
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
