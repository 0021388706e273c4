"""One replica of a ``local`` model: its llama.cpp thread and the llama.cpp instances on it.

A :class:`~creval.models.local.LocalModel` has ``--replicas`` of these (by default one per
CPU on a small model, :func:`~creval.models.local_params.default_layout`). Each
runs every llama.cpp call of its own on one thread (:class:`LlamaThread`) with ``--threads``
threads, holds a plain instance (batched generation, :class:`BatchEngine`) and, once a
request asks for log-probabilities or prompt scores, a ``logits_all`` instance; the weights
are memory-mapped, so replicas of one GGUF share them. Why replicas: on a small model
llama.cpp's threads spend a decoding step mostly waiting for each other, so several
one-thread replicas, one per core, give more tokens per second than one replica with every
core (bench/README.md, "Replicas"). A request goes to the replica with the fewest requests
in flight; results never depend on which replica answered (same weights, same engine, the
request's own seeds).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from creval.models.base import ModelError
from creval.models.local_engine import BatchEngine, LlamaThread

_RECORDING_LLAMA: Any = None
#: llama-cpp-python silences llama.cpp while it loads a model by pointing the process's file
#: descriptors 1 and 2 and ``sys.stdout``/``sys.stderr`` at /dev/null and back: two loads at
#: once on two threads (two replicas) would restore each other's /dev/null, silencing the
#: process for good. Loads take turns.
_LOAD_LOCK = threading.Lock()


def _recording_llama_class() -> Any:
    """A ``Llama`` whose ``drawn`` lists the token ids its last ``generate`` yielded: the
    exact tokens the sampler drew, the last of which llama.cpp never feeds back (so it is
    not in ``input_ids``) when the completion ends on it."""
    global _RECORDING_LLAMA
    if _RECORDING_LLAMA is None:
        from llama_cpp import Llama

        class RecordingLlama(Llama):
            drawn: list[int] = []

            def generate(self, *args: Any, **kwargs: Any) -> Generator[int, Any, None]:
                self.drawn = []
                inner = super().generate(*args, **kwargs)
                sent = None
                try:
                    while True:
                        try:
                            token = inner.send(sent)
                        except StopIteration:
                            return
                        self.drawn.append(int(token))
                        sent = yield token
                finally:
                    inner.close()

        _RECORDING_LLAMA = RecordingLlama
    return _RECORDING_LLAMA


class LlamaReplica:
    """One llama.cpp thread of a model and the instances that run on it (loaded lazily)."""

    def __init__(self, path: Path, *, n_ctx: int, threads: int, slots: int, name: str) -> None:
        self.path = path
        self.n_ctx = n_ctx
        self.threads = threads
        self.slots = slots
        self.name = name
        #: requests sent to this replica and not answered yet (the least busy gets the next)
        self.in_flight = 0
        self._lock = threading.Lock()
        self.worker: LlamaThread | None = None  # runs every llama.cpp call
        self.llm: Any = None  # plain instance
        self.llm_logits: Any = None  # logits_all instance, only when log-probabilities are asked

    @property
    def loaded(self) -> bool:
        """Whether a llama.cpp instance has been created on this replica."""
        return self.llm is not None or self.llm_logits is not None

    def thread(self) -> LlamaThread:
        """The replica's llama.cpp thread (started on first use)."""
        with self._lock:
            if self.worker is None:
                self.worker = LlamaThread(self.name)
            return self.worker

    async def on_thread(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the replica's llama.cpp thread."""
        return await asyncio.wrap_future(self.thread().call(fn))

    def load(self, logits_all: bool) -> Any:
        """The llama.cpp instance for the mode asked; call on the replica's thread."""
        current = self.llm_logits if logits_all else self.llm
        if current is not None:
            return current
        from llama_cpp import Llama

        llama_class = _recording_llama_class() if logits_all else Llama
        # One thread count for prompts and for generation (llama.cpp's default of every core
        # for prompt batches spun badly when calls came from changing threads).
        try:
            with _LOAD_LOCK:
                llm = llama_class(
                    model_path=str(self.path),
                    n_ctx=self.n_ctx,
                    n_threads=self.threads,
                    n_threads_batch=self.threads,
                    logits_all=logits_all,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"llama.cpp could not load {self.path}: {exc}") from exc
        if logits_all:
            self.llm_logits = llm
        else:
            self.llm = llm
        return llm

    def batch_engine(self) -> BatchEngine:
        """The continuous-batching engine over the plain instance; call on the thread."""
        return BatchEngine(self.load(logits_all=False), self.slots, self.n_ctx)

    async def close(self) -> None:
        """Free the instances and end the thread (both come back on the next request)."""
        with self._lock:
            worker, self.worker = self.worker, None
        if worker is None:
            return

        def close() -> None:
            if worker.engine is not None:
                worker.engine.close()
                worker.engine = None
            for llm in (self.llm, self.llm_logits):
                if llm is not None:
                    llm.close()
            self.llm = None
            self.llm_logits = None

        await asyncio.wrap_future(worker.call(close))
        await asyncio.to_thread(worker.stop)
