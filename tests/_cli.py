"""Running ``creval`` as a user does and reading what it printed and its exit code.

:func:`creval` runs the command in this process with Typer's test runner (no interpreter
start per call); :func:`creval_process` runs it as a separate process, for tests that need
one (a fresh ``sys.path`` for plug-ins, signals, a process to kill).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

CREVAL = [sys.executable, "-m", "creval.cli"]


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def creval(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> Done:
    """``creval ARGS`` in this process; ``env`` is added to the environment for the call."""
    from typer.testing import CliRunner

    from creval.cli import app

    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    return Done(result.exit_code, result.stdout, result.stderr)


def creval_process(*args: str, env: dict[str, str] | None = None,
                   timeout: int = 600) -> subprocess.CompletedProcess[str]:
    """``creval ARGS`` as a separate process."""
    return subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
