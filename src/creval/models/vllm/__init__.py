"""Provider ``vllm:MODEL``: a model run in-process by vLLM (``vllm.LLM``), on one or more GPUs.

``MODEL`` is a hub name or a local directory, followed by optional engine settings as
``,key=value`` pairs: ``vllm:Qwen/Qwen2.5-0.5B-Instruct,tp=2,dtype=bfloat16``. The keys are
vLLM's own engine arguments (``tensor_parallel_size`` or ``tp``, ``data_parallel_size`` or
``dp``, ``gpu_memory_utilization``, ``max_model_len``, ``dtype``, ``seed``,
``distributed_executor_backend``); ``max_model_len`` defaults to ``n_ctx`` when that option is
set (from Python: ``get_model("vllm:NAME", n_ctx=8192)``), else to the model's own context.
The wheel targets CUDA: ``pip install 'creval[vllm]'`` on a machine with an NVIDIA GPU.

How a :class:`GenerateRequest` maps onto vLLM (the pure part, :func:`sampling_params_kwargs`
and :func:`completions_from_output`, is tested without a GPU against vLLM's own classes):

* vLLM's ``SamplingParams`` takes one seed per request, and with ``n > 1`` all samples come
  from that request's one generator, so sample ``i`` would depend on how many were asked for
  at once. Sample ``i`` is therefore its own vLLM request (``n=1``) with seed ``seed + i``
  (``DEFAULT_SEED``, 0, when the request has none), as the ``local`` and ``hf`` backends do;
  the ``n`` requests go to the engine in one batch. ``temperature == 0`` is greedy: one
  request, copied ``n`` times.
* The prompt is the model's chat template applied by its tokenizer (a plain ``role: content``
  prompt when it has none), given to vLLM as token ids. Stop strings and the end-of-sequence
  token are vLLM's; ``finish_reason`` is vLLM's (``stop`` or ``length``). The model's
  ``generation_config.json`` is not applied (``generation_config="vllm"``), so top-k, min-p
  and penalties stay off and the request's parameters mean what they mean elsewhere.
* Log-probabilities are vLLM's ``logprobs`` (``top_logprobs`` alternatives, each listed only
  when its rank is within the top ``top_logprobs``, as OpenAI does). vLLM's default
  ``logprobs_mode`` gives the model's own distribution (raw logits), so
  ``Capabilities.sampling_logprobs`` is False and ``logprob_source="sampling"`` gets those too.
  Usage counts the prompt's token ids (first sample only) and each sample's output token ids
  (the end-of-sequence token included, as vLLM's server counts them).
* Prompt log-probabilities (perplexity) are vLLM's ``prompt_logprobs`` on token ids, in windows
  of the model's context (:func:`creval.models.prompt_scoring.score_in_windows`).
* ``response_schema`` constrains decoding: ``StructuredOutputsParams(json=schema)`` in recent
  vLLM, ``GuidedDecodingParams(json=schema)`` in older releases (whichever the installed one
  has, :func:`structured_field`).
* ``data_parallel_size`` ``k > 1`` (vLLM's ``LLM`` refuses it in one process and points to a
  launcher of one process per rank) runs ``k`` engines as Ray actors (one per
  ``tensor_parallel_size`` GPUs; Ray is started locally unless ``RAY_ADDRESS`` names a
  cluster) and spreads each batch over them; results do not depend on which engine ran a
  request, since every sample carries its own seed.
* Concurrent ``generate`` calls are gathered into one engine batch (vLLM batches them on the
  GPU), so ``max_concurrency`` is ``--concurrency`` (default 64).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from creval._util.fingerprint import weights_identity
from creval.errors import require
from creval.models.base import (
    Capabilities,
    Completion,
    GenerateRequest,
    ModelError,
    TokenLogprob,
    Usage,
)
from creval.models.prompt_scoring import PromptRequest, PromptScores, score_in_windows
from creval.models.vllm.engine import EnginePool
from creval.models.vllm.mapping import (
    DEFAULT_SEED,
    completions_from_output,
    parse_engine_spec,
    prompt_scoring_kwargs,
    prompt_token_logprobs,
    sampling_params_kwargs,
    structured_field,
    to_sampling_params,
)

if TYPE_CHECKING:
    from creval.models import ModelOptions

__all__ = [
    "DEFAULT_SEED",
    "VLLMModel",
    "completions_from_output",
    "create",
    "parse_engine_spec",
    "prompt_token_logprobs",
    "sampling_params_kwargs",
    "structured_field",
    "to_sampling_params",
]

#: Concurrent requests gathered into one engine batch when ``--concurrency`` is not given.
DEFAULT_CONCURRENCY = 64


class VLLMModel:
    """A model served by vLLM in this process (or by Ray actors: ``data_parallel_size``)."""

    def __init__(self, name: str, options: ModelOptions, *, engine: Callable[[str, dict[str, Any]], Any]
                 | None = None, gpus_per_engine: float | None = None) -> None:
        """``engine`` and ``gpus_per_engine`` as for :class:`EnginePool` (default: a
        ``vllm.LLM`` per engine, ``tensor_parallel_size`` GPUs each)."""
        self.model, engine_args = parse_engine_spec(name)
        if "max_model_len" not in engine_args and "n_ctx" in options.model_fields_set:
            engine_args["max_model_len"] = options.n_ctx
        self.spec = f"vllm:{name}"
        self.engine_args = engine_args
        self.max_concurrency = options.concurrency or DEFAULT_CONCURRENCY
        self._structured = structured_field()
        self.capabilities = Capabilities(
            logprobs=True, sampling_logprobs=False, prompt_logprobs=True, n=True, images=False,
            seed=True, structured_output=self._structured is not None,
        )
        self._pool = EnginePool(self.model, engine_args, engine=engine, gpus_per_engine=gpus_per_engine)
        self._identity: dict[str, Any] | None = None

    def identity(self) -> dict[str, Any]:
        """Provider, model (a local directory fingerprinted, a hub name with its cached
        revision), the settings that change answers (dtype, max_model_len) and vLLM's
        version. Loads nothing."""
        if self._identity is None:
            identity: dict[str, Any] = {"provider": "vllm", "model": self.model,
                                        **weights_identity(self.model)}
            identity.update({k: v for k, v in self.engine_args.items() if k in ("dtype", "max_model_len")})
            with contextlib.suppress(PackageNotFoundError):  # create() requires it
                identity["vllm"] = version("vllm")
            self._identity = identity
        return dict(self._identity)

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """``request.n`` samples, sample ``i`` a vLLM request of its own with seed ``seed + i``
        (greedy: one request, copied); see the module docstring."""
        if any(m.has_images() for m in request.messages):
            raise ModelError(f"{self.spec} cannot read images (the vllm backend is text-only here)")
        if request.response_schema is not None and self._structured is None:
            raise ModelError(f"{self.spec}: this vLLM cannot constrain answers to a JSON schema; "
                             "ask without response_schema.")
        prompt = await asyncio.to_thread(self._pool.call, "chat_ids", request)
        samples = 1 if request.temperature == 0 else request.n
        kwargs = [sampling_params_kwargs(request, sample=i, structured=self._structured)
                  for i in range(samples)]
        outputs = await asyncio.wrap_future(self._pool.submit([prompt] * samples, kwargs))
        completions: list[Completion] = []
        for i, output in enumerate(outputs):
            completions += completions_from_output(output, request, first=i == 0)
        while len(completions) < request.n:  # greedy: copies of the one answer
            completions.append(completions[0].model_copy(
                update={"usage": Usage(output_tokens=completions[0].usage.output_tokens)}
            ))
        return completions

    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """Log-probability of each token of ``request.text`` (no chat template) given those
        before it, from vLLM's ``prompt_logprobs``, in windows of ``request.window`` tokens
        (default: the engine's ``max_model_len`` less the one token vLLM must generate)."""
        return await asyncio.to_thread(self._prompt_logprobs_sync, request)

    def _prompt_logprobs_sync(self, request: PromptRequest) -> PromptScores:
        # vLLM refuses a prompt that leaves no room for one generated token
        window, stride = request.resolve(self._pool.call("max_model_len") - 1, self.spec)
        ids: list[int] = self._pool.call("encode", request.text)

        def score(part: list[int]) -> list[float]:
            (output,) = self._pool.submit([part], [prompt_scoring_kwargs()]).result()
            return prompt_token_logprobs(output)

        scored, windows, fed = score_in_windows(ids, window, stride, score)
        pieces: list[str] = self._pool.call("pieces", ids)
        tokens = [TokenLogprob(token=pieces[pos], logprob=value) for pos, value in scored]
        return PromptScores(tokens=tokens, window=window, stride=stride, windows=windows,
                            usage=Usage(input_tokens=fed))

    async def aclose(self) -> None:
        """Stop the feeding thread, drop the engines (and a Ray instance started for them);
        the next request starts them again."""
        await asyncio.to_thread(self._pool.close)


def create(name: str, options: ModelOptions) -> VLLMModel:
    """``vllm:MODEL[,key=value...]``: a hub name or local directory run by vLLM."""
    parse_engine_spec(name)  # bad settings stop here, before any import
    require("vllm", package="vllm", extra="vllm", purpose="The vllm model backend")
    if int(parse_engine_spec(name)[1].get("data_parallel_size", 1)) > 1:
        require("ray", package="ray", extra="ray", purpose="Data parallelism of the vllm backend")
    return VLLMModel(name, options)
