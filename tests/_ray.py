"""Local Ray instances for tests, always stopped: a cluster in a process of ours (drivers
started as subprocesses connect to it), and an in-process instance with an executor."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

CLUSTER = """
import sys, ray
ray.init(address="local", num_cpus=2, include_dashboard=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.read()  # until the test closes our stdin
ray.shutdown()
"""


@contextmanager
def token_cluster() -> Iterator[str]:
    """A local Ray cluster of 2 CPUs in a process of ours: its address; stopped on exit.

    Ray authenticates drivers with a token (by default for local clusters since 2.59): one is
    made up and given to the cluster and, through the environment, to every driver."""
    token = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    saved = {k: os.environ.get(k) for k in token}
    os.environ.update(token)
    proc = subprocess.Popen([sys.executable, "-c", CLUSTER], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        address = proc.stdout.readline().strip()
        assert address, "the Ray cluster did not start"
        yield address
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


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
