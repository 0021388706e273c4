"""Local Ray instances for tests and benches, always stopped: a cluster in a process of ours
(:class:`RayHead`; drivers started as subprocesses connect to it), and an in-process instance
with an executor."""

from __future__ import annotations

import contextlib
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

_CLUSTER = """
import sys, ray
ray.init(address="local", num_cpus=int(sys.argv[1]), include_dashboard=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()  # until RayHead.stop closes our stdin
ray.shutdown()
"""


class RayHead:
    """A local Ray cluster in a process of ours for drivers to connect to (the soak's, the
    bench's, subprocess drivers of tests), so a SIGKILLed driver leaves the cluster whole and
    nothing of its own behind. Ray asks drivers for a token (local clusters since 2.59): one
    is made up here; pass :attr:`env` to every driver. :meth:`stop` ends the cluster and
    every process under it, by PID."""

    def __init__(self, cpus: int = 2) -> None:
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self.proc = subprocess.Popen([sys.executable, "-c", _CLUSTER, str(cpus)], env=self.env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.address = self.proc.stdout.readline().strip()
        if not self.address:
            self.stop()
            raise RuntimeError("the local Ray cluster did not start")

    def stop(self) -> None:
        import psutil

        try:
            under = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            under = []
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for child in under:  # Ray's workers have process groups of their own
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
        psutil.wait_procs(under, timeout=10)


@contextmanager
def token_env(head: RayHead) -> Iterator[str]:
    """``head``'s token in this process's environment (so subprocess drivers inherit it) for
    the block: its address. The environment is as before on leaving."""
    token = {"RAY_AUTH_MODE", "RAY_AUTH_TOKEN"}
    saved = {k: os.environ.get(k) for k in token}
    os.environ.update({k: head.env[k] for k in token})
    try:
        yield head.address
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextmanager
def token_cluster() -> Iterator[str]:
    """A :class:`RayHead` of 2 CPUs for this process's drivers: its address; its token is in
    this process's environment (so subprocess drivers inherit it) until the cluster stops.
    Tests take the session's cluster instead (fixture ``ray_head`` in conftest.py, with
    :func:`token_env`): one start per worker, not one per module."""
    head = RayHead(cpus=2)
    try:
        with token_env(head) as address:
            yield address
    finally:
        head.stop()


@contextmanager
def ray_executor_here(module: ModuleType, workers: int = 2) -> Iterator[Any]:
    """A local Ray instance of 2 CPUs in this process and a ``RayExecutor`` on it; ``module``
    (a test module) travels by value, since workers cannot import test modules."""
    import ray

    from creval.runner.executors import RayExecutor

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray.cloudpickle.register_pickle_by_value(module)
    executor = RayExecutor(workers=workers)
    try:
        yield executor
    finally:
        executor.close()
        ray.cloudpickle.unregister_pickle_by_value(module)
        ray.shutdown()
