"""Entailment forward passes on the run's executor (Ray actors that load the model once).

Clustering stays on the driver: :func:`~creval.nli.partition_texts` and the
:class:`~creval.nli.CachingEntailment` in front of the backend decide which pairs to ask and
remember every verdict, so the pairs asked, the call counts and the partitions are those of
the local executor. Only the backend's batches move: :class:`ExecutorEntailment` sends each
batch of new pairs through :meth:`~creval.runner.executors.Executor.map_with` to an object
built once per worker by :class:`EntailmentWorker` (``get_entailment(spec)`` there), and gives
the verdicts back in order.

A cross-encoder's batch is cut at its ``batch_size`` boundaries, the same slices it runs
locally, so each slice is padded as it would be here and several actors share a long batch.
The embedding fallback's batch goes whole (it embeds each distinct text of the batch once).
The ``llm`` backend is not moved: its "forward passes" are model calls that the runner
already caches, counts and limits.

>>> entailment_on_executor("embedding:0.9").spec    # the local executor: the backend itself
'embedding:0.9'
>>> EntailmentWorker("embedding").spec
'embedding:0.85'
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from typing import Any

from creval.nli import Entailment, NLIResult, get_entailment
from creval.nli.base import check_pairs
from creval.runner.executors import Executor, current_executor

__all__ = ["EntailmentWorker", "ExecutorEntailment", "entailment_on_executor", "movable"]

#: Backends whose work is a model's forward passes in this process (what actors can hold).
_MOVABLE = ("hf", "embedding")


def movable(spec: str) -> bool:
    """Whether the backend of ``spec`` runs a model in-process (so its batches can move).

    >>> movable("hf:some/nli"), movable("embedding:0.8"), movable("llm")
    (True, True, False)
    """
    return spec.strip().partition(":")[0].lower() in _MOVABLE


class EntailmentWorker:
    """``get_entailment(spec)`` behind synchronous methods, for a worker's event-loop-free
    calls: :meth:`classify` takes one batch of pairs, :meth:`identity` ignores its item."""

    def __init__(self, spec: str) -> None:
        self.inner: Entailment = get_entailment(spec)
        self.spec = self.inner.spec

    def classify(self, pairs: list[tuple[str, str]]) -> list[NLIResult]:
        """The backend's verdicts for one batch, in order."""
        return asyncio.run(self.inner.classify(pairs))

    def identity(self, _: Any = None) -> dict[str, Any]:
        """The backend's identity (loads the model once, as it does here)."""
        return self.inner.identity()


class ExecutorEntailment:
    """An :class:`~creval.nli.Entailment` whose batches run on ``executor``'s workers.

    ``factory`` (picklable, no arguments) builds the worker object; by default
    ``EntailmentWorker(spec)``. ``chunk``: the largest slice of a batch sent as one item (the
    backend's ``batch_size`` for a cross-encoder; None sends each batch whole).
    """

    def __init__(self, spec: str, executor: Executor, *, factory: Callable[[], Any] | None = None,
                 chunk: int | None = None) -> None:
        self.spec = get_entailment(spec).spec  # validates the spec here, loads nothing
        self.executor = executor
        self.factory: Callable[[], Any] = factory or functools.partial(EntailmentWorker, spec)
        self.chunk = chunk
        self._identity: dict[str, Any] | None = None

    def identity(self) -> dict[str, Any]:
        """The backend's identity, as a worker's copy of it reports it (asked once)."""
        if self._identity is None:
            (self._identity,) = self.executor.map_with(self.factory, "identity", [None],
                                                       label="entailment")
        return self._identity

    def _classify_sync(self, pairs: list[tuple[str, str]]) -> list[NLIResult]:
        size = self.chunk or len(pairs)
        slices = [pairs[i:i + size] for i in range(0, len(pairs), size)]
        answers = self.executor.map_with(self.factory, "classify", slices, label="entailment")
        return [result for answer in answers for result in answer]

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        """One verdict per pair, in order; the executor's call runs in a worker thread."""
        checked = check_pairs(pairs)
        if not checked:
            return []
        return await asyncio.to_thread(self._classify_sync, checked)


def entailment_on_executor(spec: str, executor: Executor | None = None) -> Entailment:
    """The entailment backend for ``spec`` where the run's executor puts its batches: the
    backend itself under the local executor (or for ``llm``), else an
    :class:`ExecutorEntailment` sending its forward passes to workers."""
    executor = executor or current_executor()
    backend = get_entailment(spec)
    if executor.name == "local" or not movable(spec):
        return backend
    chunk = getattr(backend, "batch_size", None)
    return ExecutorEntailment(spec, executor, chunk=chunk if isinstance(chunk, int) else None)
