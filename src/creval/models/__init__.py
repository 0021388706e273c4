"""Text generation behind one protocol, selected by a spec string ``provider:model``.

>>> parse_spec("openai:gpt-4o-mini")
('openai', 'gpt-4o-mini')
>>> parse_spec("local")
('local', '')
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from creval.errors import CrevalError
from creval.models.base import (
    Capabilities,
    Completion,
    EndpointUnreachable,
    GenerateRequest,
    Message,
    Model,
    ModelError,
    TokenLogprob,
    TransientModelError,
    Usage,
)

__all__ = [
    "Capabilities",
    "Completion",
    "EndpointUnreachable",
    "GenerateRequest",
    "Message",
    "Model",
    "ModelError",
    "ModelOptions",
    "TokenLogprob",
    "TransientModelError",
    "Usage",
    "check_spec",
    "get_model",
    "parse_spec",
    "providers",
]


class ModelOptions(BaseModel):
    """Options shared by the backends; each backend reads what applies to it."""

    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    concurrency: int | None = None
    n_ctx: int = 4096
    threads: int | None = None
    #: Copies of an in-process ``local`` model, each on a thread of its own with ``threads``
    #: threads; requests go to the least busy (None with ``threads``: every CPU, as
    #: ``creval.models.local_params.default_layout`` chooses).
    replicas: int | None = None
    device: str | None = None
    #: Whether and how an ``openai:`` endpoint is told an answer's JSON schema: ``off`` (the
    #: default: no structured output declared, no extra request); ``auto`` probes the server
    #: once, before the run (``OpenAIModel.check``); ``json_schema`` is OpenAI's
    #: ``response_format`` (OpenAI, vLLM, SGLang, Ollama, llama.cpp's ``llama-server``);
    #: ``json_object`` is llama-cpp-python's server form (``{"type": "json_object",
    #: "schema": ...}``).
    structured_output: Literal["off", "auto", "json_schema", "json_object"] = "off"
    #: Whether and how an ``openai:`` endpoint gives prompt log-probabilities (perplexity):
    #: ``off`` (the default), ``auto`` (probed once before the run), ``vllm`` (vLLM's
    #: ``prompt_logprobs``) or ``echo`` (``/completions`` with ``echo`` and ``logprobs``); see
    #: :mod:`creval.models.openai_prompt`.
    prompt_logprobs: Literal["off", "auto", "echo", "vllm"] = "off"
    #: How much a reasoning model thinks before it answers (``--reasoning-effort``): sent as
    #: ``reasoning_effort`` by ``openai:`` endpoints and part of the model's identity (so of
    #: cache keys and the manifest); None: not sent, the endpoint's default.
    reasoning_effort: Literal["low", "medium", "high"] | None = None
    #: ``openai:`` through the Batch API (``--batch``): the requests of a run go as batch
    #: files, polled every ``batch_poll`` seconds; a batch is sent once no request arrived
    #: for ``batch_idle`` seconds. See :mod:`creval.models.openai_batch`.
    batch: bool = False
    batch_poll: float = 30.0
    batch_idle: float = 0.5
    #: Where the submitted batches are recorded (the run directory's ``batches.jsonl``, set
    #: by the evaluation layer) so that a restarted run resumes them; None: not recorded.
    batch_ledger: Path | None = None


BackendFactory = Callable[[str, ModelOptions], Model]

#: provider name -> "module:function" that builds the backend (imported lazily).
_PROVIDERS: dict[str, str] = {
    "openai": "creval.models.openai_backend:create",
    "local": "creval.models.local:create",
    "hf": "creval.models.hf:create",
    "replay": "creval.models.replay:create",
    "inspect": "creval.models.inspect_backend:create",
    "vllm": "creval.models.vllm:create",
}

#: provider name -> its factory when ``ModelOptions.batch`` asks for a batch API (``--batch``).
_BATCH_PROVIDERS: dict[str, str] = {"openai": "creval.models.openai_batch:create"}


def providers() -> list[str]:
    """The registered provider names."""
    return sorted(_PROVIDERS)


def register_provider(name: str, target: str) -> None:
    """Register a backend factory given as ``"module:function"``."""
    _PROVIDERS[name] = target


def parse_spec(spec: str) -> tuple[str, str]:
    """Split ``provider:model`` into its parts; ``local`` alone means the default model."""
    provider, _, name = spec.strip().partition(":")
    return provider, name


def check_spec(spec: str) -> None:
    """Stop with a clear error when ``spec`` names no registered provider (a typo such as
    ``locla``); nothing is imported or loaded, so a plan can check its models first."""
    import difflib

    if not spec.strip():
        raise CrevalError("A model needs a spec, got an empty one. Examples: local, "
                          "openai:gpt-4o-mini --base-url URL, replay:RUN_DIR.")
    provider, _ = parse_spec(spec)
    _load_plugins()
    if provider not in _PROVIDERS:
        close = difflib.get_close_matches(provider, providers(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise CrevalError(
            f"Unknown model spec {spec!r}: the provider {provider!r} is not one of "
            f"{', '.join(providers())}.{hint} Examples: local, local:/path/model.gguf, "
            "openai:gpt-4o-mini --base-url URL, hf:/path/or/hub-name, replay:RUN_DIR."
        )


def get_model(spec: str, options: ModelOptions | None = None, **kwargs: Any) -> Model:
    """Build the backend for ``spec``. Nothing is loaded until the first request."""
    provider, name = parse_spec(spec)
    check_spec(spec)
    opts = options or ModelOptions(**kwargs)
    target = _BATCH_PROVIDERS.get(provider, _PROVIDERS[provider]) if opts.batch else _PROVIDERS[provider]
    module_name, _, func = target.partition(":")
    factory: BackendFactory = getattr(importlib.import_module(module_name), func)
    return factory(name, opts)


def _load_plugins() -> None:
    """Providers of installed plug-ins (``creval.models`` entry points: ``name = "module:create"``)."""
    from creval._util.plugins import load_group

    load_group("creval.models", lambda name, target: _PROVIDERS.setdefault(name, target),
               load_objects=False)
