"""The creval side of the long-lived spawner (``_spawner.py``): start it lazily, send runs to it.

One spawner serves this creval process (all threads, all interpreters and both isolation
levels); it is started on first use and saves each execution the launcher's interpreter
start-up: the spawner forks a child that sets the sandbox up and execs the program's
interpreter. When it cannot be started or stops answering, :func:`launch` returns ``None``
and the caller starts a per-run launcher instead. ``CREVAL_SANDBOX_SPAWNER=0`` in the
environment turns the spawner off. A child process made by ``os.fork`` forgets its parent's
spawner (and starts its own when it needs one).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

SPAWNER = Path(__file__).with_name("_spawner.py")
DISABLE_ENV = "CREVAL_SANDBOX_SPAWNER"  # "0": every execution starts its own launcher
START_SECONDS = 10.0  # for the spawner to load and say it is ready
REPLY_SECONDS = 10.0  # for the spawner to fork and answer one request
MAX_STARTS = 3  # spawners started per creval process before giving up on the spawner
REAP_SECONDS = 10.0  # for a killed launcher to be gone


@dataclass
class SpawnedLaunch:
    """A launcher forked by the spawner: its output and status pipes and a pidfd to signal it."""

    stdout: int
    stderr: int
    status: int
    pidfd: int
    via: str = "spawner"

    def send_signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):  # it already exited
            signal.pidfd_send_signal(self.pidfd, number)

    def finish(self, complete: bool) -> None:
        """Close every fd; unless the launcher reported completely, kill it and wait until gone.

        After a complete report the launcher only tears the namespaces down and exits (the
        spawner reaps it), so nobody waits for that.
        """
        if not complete and not _readable(self.pidfd, 0):
            self.send_signal(signal.SIGKILL)
            _readable(self.pidfd, REAP_SECONDS)
        for fd in (self.stdout, self.stderr, self.status, self.pidfd):
            os.close(fd)


@dataclass
class _Spawner:
    process: subprocess.Popen[bytes]
    control: socket.socket
    send_lock: threading.Lock


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spawner: _Spawner | None = None
        self.starts = 0
        self.failure = ""  # why the last spawner failed, if one did


_state = _State()


def launch(settings: dict[str, str], stdin_fd: int, program_fd: int) -> SpawnedLaunch | None:
    """Have the spawner start a launcher with ``settings``; ``None`` if it cannot (fall back).

    ``stdin_fd`` and ``program_fd`` stay the caller's to close.
    """
    spawner = _current()
    if spawner is None:
        return None
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    status_r, status_w = os.pipe()
    header = "\0".join(f"{key}={value}" for key, value in settings.items()).encode()
    try:
        pidfd = _request(spawner, header, [stdin_fd, out_w, err_w, status_w, program_fd])
    finally:
        for fd in (out_w, err_w, status_w):
            os.close(fd)
    if pidfd is None:
        for fd in (out_r, err_r, status_r):
            os.close(fd)
        return None
    return SpawnedLaunch(out_r, err_r, status_r, pidfd)


def enabled() -> bool:
    return os.environ.get(DISABLE_ENV, "1") != "0"


def spawner_status() -> str:
    """``"running"``, ``"not started"``, ``"disabled"`` or why the spawner failed."""
    if not enabled():
        return "disabled"
    with _state.lock:
        if _state.spawner is not None and _state.spawner.process.poll() is None:
            return "running"
        return _state.failure or "not started"


def spawner_pid() -> int | None:
    """The spawner's pid while one runs for this process."""
    with _state.lock:
        spawner = _state.spawner
        return spawner.process.pid if spawner and spawner.process.poll() is None else None


def shutdown() -> None:
    """Stop the spawner (its running launchers die with it); the next run starts a new one."""
    with _state.lock:
        spawner, _state.spawner = _state.spawner, None
        _state.starts, _state.failure = 0, ""
    if spawner is not None:
        _stop(spawner)


def _current() -> _Spawner | None:
    if not enabled():
        return None
    with _state.lock:
        if _state.spawner is not None and _state.spawner.process.poll() is None:
            return _state.spawner
        if _state.starts >= MAX_STARTS:
            return None
        _state.starts += 1
        try:
            _state.spawner = _start()
        except OSError as exc:
            _state.spawner, _state.failure = None, f"the spawner did not start: {exc}"
        return _state.spawner


def _start() -> _Spawner:
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        process = subprocess.Popen(
            [os.path.realpath(sys.executable), "-I", "-S", "-B", str(SPAWNER), str(theirs.fileno())],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),), env={"PATH": "/usr/bin:/bin"}, cwd="/",
        )
    except OSError:
        mine.close()
        raise
    finally:
        theirs.close()
    spawner = _Spawner(process, mine, threading.Lock())
    try:
        mine.settimeout(START_SECONDS)
        answer = mine.recv(4096)
        if answer != b"ready":
            raise OSError(answer.decode(errors="replace") or "it exited at once")
        mine.settimeout(REPLY_SECONDS)
    except OSError:
        _stop(spawner)
        raise
    return spawner


def _request(spawner: _Spawner, header: bytes, fds: list[int]) -> int | None:
    """Send one request; the launcher's pidfd, or ``None`` after retiring a failed spawner."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with mine:
        try:
            with theirs, spawner.send_lock:
                socket.send_fds(spawner.control, [header], [theirs.fileno(), *fds])
            mine.settimeout(REPLY_SECONDS)
            answer, received, _, _ = socket.recv_fds(mine, 4096, 1)
        except OSError as exc:
            _retire(spawner, f"the spawner stopped answering: {exc}")
            return None
    if answer == b"ok" and len(received) == 1:
        return received[0]
    for fd in received:
        os.close(fd)
    if answer.startswith(b"error"):  # e.g. fork failed: the spawner itself still serves
        return None
    _retire(spawner, answer.decode(errors="replace") or "the spawner closed a request")
    return None


def _retire(spawner: _Spawner, why: str) -> None:
    """Stop a spawner that failed a request; the next run starts another (up to MAX_STARTS)."""
    with _state.lock:
        _state.failure = why
        if _state.spawner is spawner:
            _state.spawner = None
    _stop(spawner)


def _stop(spawner: _Spawner) -> None:
    spawner.control.close()  # EOF: the spawner exits; its launchers die with it
    try:
        spawner.process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        spawner.process.kill()
        spawner.process.wait()


def _readable(fd: int, timeout: float) -> bool:
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


def _forget_after_fork() -> None:
    """In a forked child: drop the parent's spawner without stopping it."""
    global _state
    inherited = _state.spawner
    _state = _State()
    if inherited is not None:
        inherited.control.close()  # this copy only: the parent's spawner keeps serving it


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(shutdown)
