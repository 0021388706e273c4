"""Running ``creval`` as a user does: a separate process, its output and exit code."""

from __future__ import annotations

import os
import subprocess
import sys

CREVAL = [sys.executable, "-m", "creval.cli"]


def creval(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})
