"""The sandbox's data types: limits in, executions out."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any, Literal

from creval.errors import CrevalError

Isolation = Literal["namespace", "process"]
IsolationRequest = Literal["auto", "namespace", "process"]


class Verdict(str, Enum):
    """How an execution ended. A death by signal is ``runtime_error`` (see ``Execution.signal``)."""

    OK = "ok"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"  # wall clock or CPU time ran out
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SANDBOX_ERROR = "sandbox_error"  # the sandbox failed; the program may never have run


@dataclass(frozen=True)
class Limits:
    """Resource limits of one execution.

    ``memory_mb`` caps the address space of each process (``RLIMIT_AS``), ``processes``
    the processes and threads of the program's uid, ``file_size_mb`` any one file written,
    ``scratch_mb`` the whole writable space (``/scratch`` and ``/tmp``, namespace mode),
    ``output_bytes`` each of stdout and stderr. CPU time is enforced in whole seconds by the
    kernel (rounded up) and exactly when the verdict is decided.

    >>> Limits(wall_seconds=2).wall_seconds
    2
    >>> Limits(memory_mb=0)
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: Limits.memory_mb must be positive, got 0.
    """

    cpu_seconds: float = 6.0
    wall_seconds: float = 10.0
    memory_mb: int = 512
    file_size_mb: int = 16
    scratch_mb: int = 64
    processes: int = 64
    output_bytes: int = 1_000_000
    network: bool = False

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "wall_seconds", "memory_mb", "file_size_mb", "scratch_mb",
                     "processes", "output_bytes"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise CrevalError(f"Limits.{name} must be positive, got {value!r}.")


@dataclass(frozen=True)
class Job:
    """One program to run with its input, for :func:`creval.sandbox.run_many`."""

    program: str
    stdin: str = ""
    limits: Limits = field(default_factory=Limits)


@dataclass
class Execution:
    """The outcome of one execution. Times are seconds, memory MiB (peak resident set)."""

    verdict: Verdict
    stdout: str
    stderr: str
    exit_code: int | None
    signal: int | None
    wall_seconds: float
    cpu_seconds: float
    max_rss_mb: float
    isolation: Isolation
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    detail: str = ""  # why the sandbox failed or what limit was hit, in words
    launched_by: str = ""  # "spawner" (forked by the long-lived spawner) or "launcher" (per run)

    @property
    def ok(self) -> bool:
        return self.verdict is Verdict.OK

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the verdict as its string value).

        >>> e = Execution(Verdict.OK, "1\\n", "", 0, None, 0.01, 0.01, 9.5, "process")
        >>> e.to_dict()["verdict"], e.to_dict()["stdout"]
        ('ok', '1\\n')
        """
        out = asdict(self)
        out["verdict"] = self.verdict.value
        return out
