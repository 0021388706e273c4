"""What the ``local`` backend asks of llama-cpp-python: the chat-completion arguments of a
request, the ``create_completion`` arguments its chat handler derives from them (prompt token
ids from the GGUF's chat template, stop strings, grammar), and the default thread count."""

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


def default_threads() -> int:
    """llama.cpp threads when ``--threads`` is not given: half the CPUs this process may use.

    Not all of them: llama.cpp's threads spin at every step's barrier, so one that loses its
    core to another process (a second worker of the test suite, another job) stalls the
    others; on 2 shared cores at load 12, 2 threads generated about 8x slower than 1
    (bench/README.md, "Local generation"). ``make demo`` passes every core (``--threads``).
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cpus = os.cpu_count() or 2
    return max(1, cpus // 2)


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
