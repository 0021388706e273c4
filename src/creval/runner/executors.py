"""Where heavy local work runs: in this process (``local``, the default) or on Ray workers.

The driver keeps the asyncio orchestration, the response cache and the one writer of each
run store; an executor only runs pure work and returns its results (sandbox executions, NLI
and embedding batches, index queries). Code that has such work asks
:func:`current_executor` and calls

* :meth:`Executor.map` with a picklable module-level function over items (one Ray task per
  item; callers pass chunks), results in the items' order; a task whose worker dies is
  retried by Ray, so each result appears once;
* :meth:`Executor.map_with` with a picklable zero-argument ``factory`` that builds an object
  holding a loaded model or an opened index, and the name of a method to call on each item:
  on Ray each of up to ``workers`` actors builds the object once and keeps it for the
  executor's life, so a model loads once per worker and is reused.

The executor is set for a run by :func:`using_executor` (a context variable, so worker
threads started with :func:`asyncio.to_thread` see it too). Ray itself is imported only when
a Ray executor is built: it is the optional extra ``ray``.

>>> executor = current_executor()
>>> executor.name, executor.map(abs, [-2, 3, -4])
('local', [2, 3, 4])
>>> split([1, 2, 3, 4, 5], 2)
[[1, 2, 3], [4, 5]]
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import pickle
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from creval.errors import CrevalError

T = TypeVar("T")
R = TypeVar("R")

RAY_EXTRA = "pip install 'creval[ray]'"
#: Environment variables a Ray worker needs to see what the driver sees (caches, offline mode).
_FORWARDED_ENV = ("CREVAL_", "HF_", "TRANSFORMERS_", "SENTENCE_TRANSFORMERS_", "TORCH_HOME",
                  "XDG_CACHE_HOME", "OPENAI_")


class Executor(Protocol):
    """Runs pure, picklable work and returns its results in order."""

    name: str

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, label: str = "") -> list[R]:
        """``[fn(item) for item in items]``, possibly on other processes."""
        ...

    def map_with(self, factory: Callable[[], Any], method: str, items: Sequence[Any], *,
                 label: str = "") -> list[Any]:
        """``[factory().method(item) for item in items]`` with ``factory()`` built once per
        worker and kept for the executor's life."""
        ...

    def describe(self) -> dict[str, Any]:
        """``{"executor", "address", "workers", "per_worker", "tasks"}``: what ran where."""
        ...

    def close(self) -> None:
        """Release workers (and a Ray instance this executor started)."""
        ...


def split(items: Sequence[T], parts: int) -> list[list[T]]:
    """``items`` in at most ``parts`` contiguous chunks of near-equal size, in order.

    >>> split(list(range(7)), 3)
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> split([], 4)
    []
    """
    if parts < 1:
        raise CrevalError(f"parts must be at least 1, got {parts}.")
    parts = min(parts, len(items))
    if not parts:
        return []
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (i < extra)
        out.append(list(items[start:end]))
        start = end
    return out


def factory_key(factory: Callable[[], Any]) -> str:
    """A stable key of a picklable factory (the same model or index gives the same key).

    >>> import functools
    >>> factory_key(functools.partial(int, "1")) == factory_key(functools.partial(int, "1"))
    True
    """
    try:
        data = pickle.dumps(factory)
    except Exception:  # a closure: Ray's cloudpickle can still ship it
        from ray import cloudpickle  # only Ray executors need a key for those

        data = cloudpickle.dumps(factory)
    return hashlib.sha256(data).hexdigest()[:16]


class LocalExecutor:
    """Everything in this process, in the calling thread (the default)."""

    name = "local"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks = 0
        self._objects: dict[str, Any] = {}

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, label: str = "") -> list[R]:
        results = [fn(item) for item in items]
        with self._lock:
            self._tasks += len(items)
        return results

    def map_with(self, factory: Callable[[], Any], method: str, items: Sequence[Any], *,
                 label: str = "") -> list[Any]:
        key = factory_key(factory)
        with self._lock:
            if key not in self._objects:
                self._objects[key] = factory()
            obj = self._objects[key]
        return self.map(getattr(obj, method), items, label=label)

    def describe(self) -> dict[str, Any]:
        return {"executor": "local", "address": None, "workers": 1,
                "per_worker": {"local": self._tasks} if self._tasks else {},
                "tasks": self._tasks}

    def close(self) -> None:
        self._objects.clear()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise CrevalError(
            f"--executor ray needs Ray, which is not installed. Install it with {RAY_EXTRA}, "
            "or run with the default --executor local."
        ) from None
    return ray


def worker_name() -> str:
    """This Ray worker's (or actor's) name in per-worker counts: the node's first 8 hex digits and the pid."""
    import ray

    return f"{ray.get_runtime_context().get_node_id()[:8]}:{os.getpid()}"


def _call(fn: Callable[[Any], Any], item: Any) -> tuple[str, Any]:
    return worker_name(), fn(item)


class _Holder:
    """A Ray actor's object: built once by ``factory``, then called for every item."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._obj = factory()

    def call(self, method: str, item: Any) -> tuple[str, Any]:
        return worker_name(), getattr(self._obj, method)(item)


class RayExecutor:
    """Ray tasks (``map``) and actors (``map_with``) on a Ray cluster.

    ``address``: a running cluster (``ray://`` or ``HOST:PORT``); None takes ``RAY_ADDRESS``
    when set, else starts a local instance for this executor and stops it in :meth:`close`.
    Inside a Ray worker (a grid's run) the worker's own connection is used. ``workers``: how
    many tasks run at once (None: the cluster's CPUs).
    """

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise CrevalError(f"--workers must be at least 1, got {workers}.")
        ray = _import_ray()
        self._ray = ray
        self._owns = False
        target = address or os.environ.get("RAY_ADDRESS") or None
        if not ray.is_initialized():
            env = {k: v for k, v in os.environ.items() if k.startswith(_FORWARDED_ENV)}
            common: dict[str, Any] = {"log_to_driver": False, "configure_logging": False,
                                      "runtime_env": {"env_vars": env} if env else None}
            try:
                if target:
                    ray.init(address=target, **common)
                else:
                    ray.init(address="local", num_cpus=workers, include_dashboard=False,
                             **common)
                    self._owns = True
            except ConnectionError as exc:
                raise CrevalError(
                    f"Could not connect to the Ray cluster at {target}: {exc}. Start one with "
                    "`ray start --head`, or pass no --ray-address for a local one; a cluster "
                    "with token authentication also needs its token in RAY_AUTH_TOKEN."
                ) from None
        self.address: str = target or ray.get_runtime_context().gcs_address
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers: int = workers or max(1, cpus)
        self._task = ray.remote(_call).options(max_retries=3, num_cpus=1)
        self._actor = ray.remote(_Holder).options(num_cpus=0, max_restarts=2,
                                                  max_task_retries=2,
                                                  scheduling_strategy="SPREAD")
        self._actors: dict[str, list[Any]] = {}
        self._lock = threading.Lock()
        self._per_worker: Counter[str] = Counter()

    def _collect(self, refs: list[Any]) -> list[Any]:
        try:
            pairs = self._ray.get(refs)
        except self._ray.exceptions.RayTaskError as exc:
            if isinstance(exc.cause, CrevalError):  # bad input: its message, not a traceback
                raise CrevalError(str(exc.cause)) from None
            raise
        with self._lock:
            self._per_worker.update(where for where, _ in pairs)
        return [result for _, result in pairs]

    def map(self, fn: Callable[[T], R], items: Sequence[T], *, label: str = "") -> list[R]:
        if not items:
            return []
        ray = self._ray
        fn_ref = ray.put(fn)
        refs: list[Any] = []
        running: list[Any] = []
        for item in items:  # at most ``workers`` tasks in flight
            if len(running) >= self.workers:
                _, running = ray.wait(running, num_returns=1)
            ref = self._task.remote(fn_ref, item)
            refs.append(ref)
            running.append(ref)
        return self._collect(refs)

    def _pool(self, factory: Callable[[], Any], size: int) -> list[Any]:
        key = factory_key(factory)
        with self._lock:
            actors = self._actors.setdefault(key, [])
            while len(actors) < min(size, self.workers):
                actors.append(self._actor.remote(factory))
            return list(actors)

    def map_with(self, factory: Callable[[], Any], method: str, items: Sequence[Any], *,
                 label: str = "") -> list[Any]:
        if not items:
            return []
        actors = self._pool(factory, len(items))
        refs = [actors[i % len(actors)].call.remote(method, item) for i, item in enumerate(items)]
        return self._collect(refs)

    def note(self, where: str) -> None:
        """Count one call that ran on ``where`` outside :meth:`map` and :meth:`map_with`
        (an in-process model's actor, :mod:`creval.runner.remote_model`)."""
        with self._lock:
            self._per_worker[where] += 1

    def describe(self) -> dict[str, Any]:
        with self._lock:
            per_worker = dict(sorted(self._per_worker.items()))
        return {"executor": "ray", "address": self.address, "workers": self.workers,
                "per_worker": per_worker, "tasks": sum(per_worker.values())}

    def close(self) -> None:
        with self._lock:
            actors = [a for pool in self._actors.values() for a in pool]
            self._actors.clear()
        for actor in actors:
            self._ray.kill(actor)
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
            self._owns = False


def get_executor(name: str = "local", *, address: str | None = None,
                 workers: int | None = None) -> Executor:
    """The executor called ``name`` (``local`` or ``ray``).

    >>> get_executor("local").describe()["executor"]
    'local'
    >>> get_executor("dask")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: Unknown executor 'dask'. Use --executor local (this process) or --executor ray.
    """
    if name == "local":
        if address is not None or workers is not None:
            flag = "--ray-address" if address is not None else "--workers"
            raise CrevalError(f"{flag} needs --executor ray (the local executor runs here).")
        return LocalExecutor()
    if name == "ray":
        return RayExecutor(address, workers)
    raise CrevalError(
        f"Unknown executor {name!r}. Use --executor local (this process) or --executor ray."
    )


_CURRENT: contextvars.ContextVar[Executor | None] = contextvars.ContextVar(
    "creval_executor", default=None)
_DEFAULT = LocalExecutor()


def current_executor() -> Executor:
    """The executor set by :func:`using_executor`, else a process-wide local one."""
    return _CURRENT.get() or _DEFAULT


@contextmanager
def using_executor(executor: Executor) -> Iterator[Executor]:
    """Make ``executor`` the :func:`current_executor` inside the ``with`` block."""
    token = _CURRENT.set(executor)
    try:
        yield executor
    finally:
        _CURRENT.reset(token)
