"""What the ``local`` backend asks of llama-cpp-python: the chat-completion arguments of a
request, the ``create_completion`` arguments its chat handler derives from them (prompt token
ids from the GGUF's chat template, stop strings, grammar), and the default copies and threads."""

from __future__ import annotations

import os
from typing import Any

from creval.models.base import GenerateRequest, ModelError


class _Captured(Exception):
    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__("captured")
        self.params = params


def completion_params(llm: Any, messages: list[dict[str, str]], **kwargs: Any) -> dict[str, Any]:
    """The keyword arguments llama-cpp-python's chat handler passes to ``create_completion``
    for these messages (prompt token ids from the GGUF's chat template, stop strings and
    stopping criteria, the grammar of a response format, the sampling parameters), found by
    running ``create_chat_completion`` up to that call. Call on the llama.cpp thread."""

    def grab(**params: Any) -> Any:
        raise _Captured(params)

    llm.create_completion = grab
    try:
        llm.create_chat_completion(messages, **kwargs)
    except _Captured as captured:
        return captured.params
    finally:
        del llm.create_completion
    raise ModelError("llama-cpp-python's chat handler did not call create_completion")


#: Memory reckoned per copy of a model, as a multiple of its GGUF file: the weights are
#: memory-mapped once, but each copy keeps its own KV caches (8 sequences of 4,096 tokens are
#: about 630 MB for the packaged SmolLM2, whose file is 0.1 GB) and compute buffers.
COPY_MEMORY_FACTOR = 10
#: The share of the machine's memory the copies of a model may take together.
COPY_MEMORY_SHARE = 0.5


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask; ``os.cpu_count()`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def physical_memory() -> int | None:
    """Bytes of memory in the machine, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):  # pragma: no cover - not POSIX
        return None


def default_layout(model_bytes: int, *, threads: int | None = None, replicas: int | None = None,
                   cpus: int | None = None, memory: int | None = None) -> tuple[int, int]:
    """``(threads, replicas)`` for a local model of ``model_bytes`` on this machine: every
    usable CPU, as one-thread copies (one per CPU) when the model is small, else one copy with
    every CPU as threads. What is given is kept; what is not is chosen to fill the CPUs.

    A copy is reckoned at ``COPY_MEMORY_FACTOR`` times the file (its own KV caches) and the
    copies together at most ``COPY_MEMORY_SHARE`` of the memory; on a small model one-thread
    copies give more tokens per second than threads of one copy, whose threads mostly wait
    for each other at every step (bench/README.md, "Replicas").

    >>> default_layout(100 * 2**20, cpus=4, memory=16 * 2**30)   # 0.1 GB on 4 CPUs, 16 GB
    (1, 4)
    >>> default_layout(4 * 2**30, cpus=4, memory=16 * 2**30)     # 4 GB: one copy, 4 threads
    (4, 1)
    >>> default_layout(100 * 2**20, threads=2, cpus=4, memory=16 * 2**30)
    (2, 2)
    >>> default_layout(100 * 2**20, replicas=3, cpus=4, memory=16 * 2**30)
    (1, 3)
    """
    cpus = cpus or usable_cpus()
    if replicas is None:
        memory = memory if memory is not None else physical_memory()
        fit = cpus if memory is None else int(memory * COPY_MEMORY_SHARE // max(1, COPY_MEMORY_FACTOR * model_bytes))
        replicas = max(1, min(cpus // (threads or 1), fit))
    if threads is None:
        threads = max(1, cpus // replicas)
    return threads, replicas


def _messages(request: GenerateRequest) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.text()} for m in request.messages]


def _chat_kwargs(request: GenerateRequest, seed: int | None) -> dict[str, Any]:
    """``create_chat_completion``'s arguments: temperature and top-p sampling (top-k, min-p,
    typical-p and the repeat penalty off), a grammar for a response schema."""
    extra: dict[str, Any] = {}
    if request.response_schema is not None:
        # llama-cpp-python turns the schema into a GBNF grammar that masks every token the
        # schema does not allow.
        extra["response_format"] = {"type": "json_object", "schema": request.response_schema}
    return dict(
        extra, temperature=request.temperature, top_p=request.top_p, top_k=0, min_p=0.0,
        typical_p=1.0, repeat_penalty=1.0, max_tokens=request.max_tokens,
        stop=list(request.stop), seed=seed,
    )
