"""Provider ``hf:NAME_OR_PATH``: a transformers causal language model run in-process.

``NAME_OR_PATH`` is a local directory written by ``save_pretrained`` or a hub name already in
the local Hugging Face cache (creval downloads nothing itself). The prompt is built with the
tokenizer's chat template; a tokenizer without one gets a plain ``role: content`` prompt, and
:meth:`HFModel.identity` says which was used.

* ``temperature == 0`` is greedy decoding (the ``n`` samples are then copies of one output);
  otherwise plain temperature + ``top_p`` sampling with ``num_return_sequences=n``: the
  samplers and penalties a model's ``generation_config.json`` may ask for (top-k, min-p,
  repetition penalty, ...) are switched off so the request's parameters mean the same here as
  with the other backends. The torch
  RNG is seeded with ``request.seed + i`` for sample ``i`` (``DEFAULT_SEED``, 0, when the
  request has none), one call per sample, so results are reproducible and sample ``i`` does
  not depend on how many samples were asked for at once.
* Generation stops at the model's end-of-sequence token(s), which are not counted; stop
  strings cut the text after generation (the tokens through the one that completed the stop
  string are counted).
* Log-probabilities are by default (``logprob_source="model"``) of the model's own
  distribution (raw logits, before temperature and top-p), as the other backends give them.
  With ``logprob_source="sampling"`` they are of the distribution each token was drawn from:
  the log-softmax of the scores transformers sampled from (``output_scores``: the logits
  after its processors, here temperature and then top-p, so tokens outside the nucleus
  have probability 0 and are never listed as alternatives). Greedy decoding
  (``temperature == 0``) is a point mass: each token gets log-probability 0.
* ``request.response_schema`` (a JSON schema) constrains decoding when ``llguidance`` is
  installed (the ``hf`` extra brings it): :mod:`creval.models.hf_schema` masks, step by
  step, the tokens that cannot continue JSON of that shape, so the answer is JSON valid for
  the schema unless ``max_tokens`` cuts it. ``Capabilities.structured_output`` says whether
  it is there; without llguidance it is False and a request with a schema is refused (the
  instruments then ask without one, and record that their answers were not constrained).
  Log-probabilities with ``logprob_source="model"`` stay those of the unconstrained model.
* The model is loaded on first use and runs in a worker thread under a lock
  (``max_concurrency`` 1), on ``--device`` (default ``cpu``).
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from creval._util.fingerprint import weights_identity
from creval._util.quiet import quiet_hf
from creval.errors import CrevalError, require
from creval.models.base import (
    Capabilities,
    Completion,
    GenerateRequest,
    ModelError,
    TokenLogprob,
    Usage,
)
from creval.models.chat_prompt import chat_prompt_ids
from creval.models.prompt_scoring import PromptRequest, PromptScores, score_in_windows

if TYPE_CHECKING:
    from creval.models import ModelOptions

#: The torch seed of a request that has none.
DEFAULT_SEED = 0


def cut_at_stop(text: str, stops: tuple[str, ...]) -> int | None:
    """Index of the earliest stop string in ``text``, or None.

    >>> cut_at_stop("one. two. three", (" two", "."))
    3
    """
    hits = [i for i in (text.find(s) for s in stops if s) if i >= 0]
    return min(hits) if hits else None


def token_pieces(tokenizer: Any, ids: list[int]) -> list[str]:
    """The text each token adds to the decoded sequence (so that the pieces join up to the
    text, spaces included, which decoding tokens one by one loses for SentencePiece)."""
    pieces: list[str] = []
    previous = ""
    for k in range(len(ids)):
        current = tokenizer.decode(ids[: k + 1])
        if current.startswith(previous):
            pieces.append(current[len(previous) :])
        else:  # pragma: no cover - decoders that rewrite earlier text
            pieces.append(tokenizer.decode(ids[k : k + 1]))
        previous = current
    return pieces


class HFModel:
    """A transformers ``AutoModelForCausalLM`` with its ``AutoTokenizer``."""

    max_concurrency = 1

    def __init__(self, name: str, options: ModelOptions) -> None:
        self.spec = f"hf:{name}"
        self.name = name
        self.options = options
        self.device = options.device or "cpu"
        self.capabilities = Capabilities(
            logprobs=True, sampling_logprobs=True, prompt_logprobs=True, n=True, images=False,
            seed=True, structured_output=_schema_available(),
        )
        self._lock = threading.Lock()  # the model: one generation at a time
        self._tokenizer_lock = threading.Lock()
        self._tokenizer: Any = None
        self._model: Any = None
        self._identity: dict[str, Any] | None = None
        self._constraint: Any = None  # hf_schema.SchemaConstraint, built on first use

    @property
    def loaded(self) -> bool:
        """Whether the model weights are loaded."""
        return self._model is not None

    # -- loading ------------------------------------------------------------------------------
    def _load_tokenizer(self) -> Any:
        with self._tokenizer_lock:
            if self._tokenizer is None:
                from transformers import AutoTokenizer

                try:
                    quiet_hf()
                    self._tokenizer = AutoTokenizer.from_pretrained(self.name)
                except (OSError, ValueError) as exc:
                    raise ModelError(
                        f"{self.spec}: cannot load the tokenizer ({exc}). Give a local directory "
                        "written by save_pretrained, or a model already in the Hugging Face cache."
                    ) from exc
            return self._tokenizer

    def _load(self) -> tuple[Any, Any]:
        """Tokenizer and model (call with the lock held)."""
        tokenizer = self._load_tokenizer()
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM

            dtype: Any = torch.float32 if self.device == "cpu" else "auto"
            try:
                model: Any = AutoModelForCausalLM.from_pretrained(self.name, **{_dtype_kwarg(): dtype})
            except (OSError, ValueError) as exc:
                raise ModelError(f"{self.spec}: cannot load the model ({exc})") from exc
            model.to(self.device)
            model.eval()
            self._model = model
        return tokenizer, self._model

    def has_chat_template(self) -> bool:
        return bool(getattr(self._load_tokenizer(), "chat_template", None))

    def identity(self) -> dict[str, Any]:
        """Provider, name or path, the prompt format, and for a local directory a fingerprint
        of its config, tokenizer and weight files. Loads the tokenizer (not the model) once."""
        if self._identity is None:
            identity: dict[str, Any] = {"provider": "hf", "model": self.name,
                                        **weights_identity(self.name)}
            identity["prompt_format"] = (
                "chat_template" if self.has_chat_template() else "plain (no chat template)"
            )
            self._identity = identity
        return dict(self._identity)

    # -- generation ---------------------------------------------------------------------------
    def _prompt_ids(self, tokenizer: Any, request: GenerateRequest) -> list[int]:
        return chat_prompt_ids(tokenizer, request)

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """``request.n`` samples; sample ``i`` is drawn alone with seed ``seed + i``.

        One seeded call per sample keeps creval's rule that sample ``i`` is the same whether
        it is asked for alone or in a batch (the runner tops up partial runs one by one).
        Greedy decoding makes one call and copies it.

        A ``response_schema`` constrains decoding (see the module docstring); without
        llguidance it is refused rather than silently ignored.
        """
        if request.response_schema is not None and not self.capabilities.structured_output:
            raise ModelError(f"{self.spec}: constraining answers to a JSON schema needs llguidance "
                             "(pip install 'creval[hf]'); ask without response_schema.")
        if any(m.has_images() for m in request.messages):
            raise ModelError(f"{self.spec} cannot read images (the hf backend is text-only)")
        if request.temperature == 0 or request.n == 1:
            return await asyncio.to_thread(self._generate_sync, request)
        base = DEFAULT_SEED if request.seed is None else request.seed
        out: list[Completion] = []
        for i in range(request.n):
            single = request.with_n(1, seed=base + i)
            out += await asyncio.to_thread(self._generate_sync, single)
        return out

    def _generate_sync(self, request: GenerateRequest) -> list[Completion]:
        import torch

        with self._lock:
            tokenizer, model = self._load()
            prompt = self._prompt_ids(tokenizer, request)
            greedy = request.temperature == 0
            # sampled scores: the processed logits each token was drawn from (greedy: none)
            sampled = request.logprobs and request.logprob_source == "sampling" and not greedy
            eos = _eos_ids(tokenizer, model)
            pad = tokenizer.pad_token_id
            if pad is None:
                pad = next(iter(eos), 0)
            kwargs: dict[str, Any] = {
                "max_new_tokens": request.max_tokens,
                "num_return_sequences": 1 if greedy else request.n,
                "do_sample": not greedy,
                "num_beams": 1,
                "return_dict_in_generate": True,
                "output_logits": request.logprobs and not sampled,
                "output_scores": sampled,
                "pad_token_id": pad,
                "eos_token_id": sorted(eos) or None,
                # neutral values, so that a model's generation_config.json cannot add its own
                "repetition_penalty": 1.0,
                "no_repeat_ngram_size": 0,
            }
            if not greedy:
                kwargs.update(
                    temperature=request.temperature, top_p=request.top_p, top_k=0,
                    min_p=0.0, typical_p=1.0, epsilon_cutoff=0.0, eta_cutoff=0.0,
                )
            if request.response_schema is not None:
                kwargs["logits_processor"] = [self._schema_processor(
                    tokenizer, eos, request.response_schema, len(prompt), kwargs["num_return_sequences"]
                )]  # fmt: skip
            input_ids = torch.tensor([prompt], dtype=torch.long, device=model.device)
            torch.manual_seed(DEFAULT_SEED if request.seed is None else request.seed)
            try:
                with torch.inference_mode():
                    out = model.generate(
                        input_ids=input_ids, attention_mask=torch.ones_like(input_ids), **kwargs
                    )
            except (ValueError, RuntimeError, IndexError) as exc:
                raise ModelError(f"{self.spec}: generation failed: {exc}") from exc
            new = out.sequences[:, len(prompt) :].tolist()
            # per step: (rows, vocab)
            logits = (out.scores if sampled else out.logits) if request.logprobs else None
            completions = []
            for i in range(request.n):
                row = 0 if greedy else i
                completions.append(
                    self._completion(tokenizer, new[row], logits, row, eos, request, prompt, i == 0)
                )
            return completions

    def _schema_processor(self, tokenizer: Any, eos: set[int], schema: dict[str, Any],
                          prompt_length: int, rows: int) -> Any:  # fmt: skip
        """The logits processor that keeps this call's answers to ``schema`` (lock held)."""
        from creval.models.hf_schema import SchemaConstraint

        if self._constraint is None:
            self._constraint = SchemaConstraint(tokenizer, eos, self.spec)
        return self._constraint.processor(schema, prompt_length, rows)

    @staticmethod
    def _completion(
        tokenizer: Any,
        ids: list[int],
        logits: Any,
        row: int,
        eos: set[int],
        request: GenerateRequest,
        prompt: list[int],
        first: bool,
    ) -> Completion:
        end = next((k for k, t in enumerate(ids) if t in eos), None)
        finish = "stop" if end is not None else "length"
        ids = ids[:end] if end is not None else ids
        text = tokenizer.decode(ids, skip_special_tokens=True)
        cut = cut_at_stop(text, request.stop)
        if cut is not None:
            stop_end = min(
                cut + len(s) for s in request.stop if s and text.find(s) == cut
            )
            # keep the tokens through the one that completed the stop string
            keep = next(
                (k for k in range(1, len(ids) + 1)
                 if len(tokenizer.decode(ids[:k], skip_special_tokens=True)) >= stop_end),
                len(ids),
            )
            ids, text, finish = ids[:keep], text[:cut], "stop"
        tokens = None
        if logits is not None:
            import torch

            tokens = []
            k = request.top_logprobs
            point_mass = request.logprob_source == "sampling" and request.temperature == 0
            for step, (tok, piece) in enumerate(zip(ids, token_pieces(tokenizer, ids), strict=True)):
                if point_mass:  # greedy: the chosen token had probability 1
                    top = {tokenizer.decode([tok]): 0.0} if k else None
                    tokens.append(TokenLogprob(token=piece, logprob=0.0, top=top))
                    continue
                dist = torch.log_softmax(logits[step][row].float(), dim=-1)
                top = None
                if k:
                    values, indices = dist.topk(k)
                    top = {
                        tokenizer.decode([int(j)]): float(v)
                        for v, j in zip(values.tolist(), indices.tolist(), strict=True)
                        if v != float("-inf")  # outside the nucleus: never sampled
                    }
                tokens.append(TokenLogprob(token=piece, logprob=float(dist[tok]), top=top))
        return Completion(
            text=text,
            finish_reason=finish,
            tokens=tokens,
            usage=Usage(input_tokens=len(prompt) if first else 0, output_tokens=len(ids)),
        )

    # -- scoring ------------------------------------------------------------------------------
    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """Log-probability of each token of ``request.text`` given the tokens before it (no
        chat template), in windows of ``request.window`` tokens (default: the model's
        context, :func:`context_length`). When the tokenizer adds a BOS token every text
        token is scored; otherwise the first token has no context and is left out."""
        return await asyncio.to_thread(self._prompt_logprobs_sync, request)

    def _prompt_logprobs_sync(self, request: PromptRequest) -> PromptScores:
        import torch

        with self._lock:
            tokenizer, model = self._load()
            window, stride = request.resolve(context_length(model, tokenizer), self.spec)
            ids: list[int] = tokenizer(request.text, add_special_tokens=True)["input_ids"]

            def score(part: list[int]) -> list[float]:
                input_ids = torch.tensor([part], dtype=torch.long, device=model.device)
                with torch.inference_mode():
                    logits = model(input_ids=input_ids).logits[0, :-1].float()
                logprobs = torch.log_softmax(logits, dim=-1)
                target = torch.tensor(part[1:], device=logprobs.device)
                return list(logprobs.gather(1, target[:, None])[:, 0].tolist())

            scored, windows, fed = score_in_windows(ids, window, stride, score)
            pieces = token_pieces(tokenizer, ids)
        tokens = [TokenLogprob(token=pieces[pos], logprob=float(v)) for pos, v in scored]
        return PromptScores(tokens=tokens, window=window, stride=stride, windows=windows,
                            usage=Usage(input_tokens=fed))

    async def aclose(self) -> None:
        """Drop the model and tokenizer (they are reloaded on the next request)."""
        with self._lock:
            self._model = None
            self._tokenizer = None
            self._constraint = None


def context_length(model: Any, tokenizer: Any) -> int | None:
    """The model's context in tokens: its config's ``max_position_embeddings`` (or
    ``n_positions``), else the tokenizer's ``model_max_length`` when that is a real number."""
    config = getattr(model, "config", None)
    for name in ("max_position_embeddings", "n_positions", "n_ctx"):
        value = getattr(config, name, None)
        if isinstance(value, int) and value > 1:
            return value
    limit = getattr(tokenizer, "model_max_length", None)
    return limit if isinstance(limit, int) and 1 < limit < 10**7 else None


def _eos_ids(tokenizer: Any, model: Any) -> set[int]:
    ids: set[int] = set()
    for value in (getattr(model.generation_config, "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, (list, tuple)):
            ids.update(int(v) for v in value)
    return ids


def _schema_available() -> bool:
    """Whether llguidance (constrained decoding) is installed; nothing is imported."""
    from importlib.util import find_spec

    return find_spec("llguidance") is not None


def _dtype_kwarg() -> str:
    """``dtype`` from transformers 4.56 on, ``torch_dtype`` before."""
    from importlib.metadata import version

    try:
        major, minor = (int(p) for p in version("transformers").split(".")[:2])
    except ValueError:
        return "dtype"
    return "dtype" if (major, minor) >= (4, 56) else "torch_dtype"


def create(name: str, options: ModelOptions) -> HFModel:
    """``hf:NAME_OR_PATH``: a local ``save_pretrained`` directory or a cached hub model."""
    if not name:
        raise CrevalError("hf needs a model: hf:/path/to/model-dir or hf:org/name")
    require("torch", package="torch", extra="hf", purpose="The hf model backend")
    require("transformers", package="transformers", extra="hf", purpose="The hf model backend")
    return HFModel(name, options)

