"""The pure half of the ``vllm:`` backend: a :class:`GenerateRequest` to vLLM's
``SamplingParams`` arguments, and vLLM's ``RequestOutput`` back to our :class:`Completion`.

No vLLM import here except in :func:`to_sampling_params` and :func:`structured_field`: the
functions take and return plain data and objects shaped like vLLM's (attributes read:
``RequestOutput.prompt_token_ids``, ``.prompt_logprobs``, ``.outputs``; ``CompletionOutput.text``,
``.token_ids``, ``.logprobs``, ``.finish_reason``; ``Logprob.logprob``, ``.rank``,
``.decoded_token``), so they are tested on machines where vLLM does not install.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest, ModelError, TokenLogprob, Usage

#: The first seed of a request that has none.
DEFAULT_SEED = 0
#: Spec keys -> vLLM engine argument, and the type of its value.
ENGINE_KEYS: dict[str, tuple[str, type]] = {
    "tp": ("tensor_parallel_size", int), "tensor_parallel_size": ("tensor_parallel_size", int),
    "dp": ("data_parallel_size", int), "data_parallel_size": ("data_parallel_size", int),
    "gpu_memory_utilization": ("gpu_memory_utilization", float),
    "max_model_len": ("max_model_len", int), "dtype": ("dtype", str), "seed": ("seed", int),
    "distributed_executor_backend": ("distributed_executor_backend", str),
}


def parse_engine_spec(name: str) -> tuple[str, dict[str, Any]]:
    """Split ``MODEL,key=value,...`` into the model and vLLM engine arguments.

    >>> parse_engine_spec("Qwen/Qwen2.5-0.5B-Instruct,tp=2,gpu_memory_utilization=0.8")
    ('Qwen/Qwen2.5-0.5B-Instruct', {'tensor_parallel_size': 2, 'gpu_memory_utilization': 0.8})
    """
    model, *pairs = name.split(",")
    engine: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or key.strip() not in ENGINE_KEYS:
            raise CrevalError(f"vllm:{name}: {pair!r} is not an engine setting; use key=value with "
                              f"a key among {', '.join(sorted(ENGINE_KEYS))}.")
        target, kind = ENGINE_KEYS[key.strip()]
        try:
            engine[target] = kind(raw.strip())
        except ValueError:
            what = {int: "a whole number", float: "a number"}.get(kind, "text")
            raise CrevalError(f"vllm:{name}: {key.strip()} takes {what}, not {raw!r}.") from None
    if not model.strip():
        raise CrevalError("vllm needs a model: vllm:org/name or vllm:/path/to/model-dir")
    return model.strip(), engine


def sample_seed(request: GenerateRequest, sample: int) -> int:
    """The seed of sample ``sample`` of ``request``: ``seed + sample``.

    >>> sample_seed(GenerateRequest.chat("hi", seed=7), 2), sample_seed(GenerateRequest.chat("hi"), 1)
    (9, 1)
    """
    return (DEFAULT_SEED if request.seed is None else request.seed) + sample


def sampling_params_kwargs(
    request: GenerateRequest, *, sample: int = 0, structured: str | None = "structured_outputs"
) -> dict[str, Any]:
    """The ``SamplingParams`` arguments of the vLLM request that draws sample ``sample``.

    Plain data: ``structured`` names the field a ``response_schema`` goes in (see
    :func:`structured_field`; None refuses a schema) and its value is ``{"json": schema}``,
    turned into vLLM's class by :func:`to_sampling_params`.

    >>> kw = sampling_params_kwargs(GenerateRequest.chat("hi", n=3, seed=5, stop=("\\n",)), sample=2)
    >>> kw["n"], kw["seed"], kw["stop"], kw["logprobs"]
    (1, 7, ['\\n'], None)
    >>> sampling_params_kwargs(GenerateRequest.chat("hi", logprobs=True, top_logprobs=3))["logprobs"]
    3
    """
    kwargs: dict[str, Any] = {
        "n": 1,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "max_tokens": request.max_tokens,
        "stop": list(request.stop) or None,
        "seed": sample_seed(request, sample),
        "logprobs": request.top_logprobs if request.logprobs else None,
    }
    if request.response_schema is not None:
        if structured is None:
            raise ModelError("this vLLM has neither StructuredOutputsParams nor "
                             "GuidedDecodingParams; ask without response_schema.")
        kwargs[structured] = {"json": request.response_schema}
    return kwargs


def prompt_scoring_kwargs() -> dict[str, Any]:
    """``SamplingParams`` arguments that score a prompt: its tokens' log-probabilities
    (``prompt_logprobs=0``: the token itself, no alternatives) and one greedy token."""
    return {"n": 1, "temperature": 0.0, "max_tokens": 1, "prompt_logprobs": 0}


def structured_field(module: Any = None) -> str | None:
    """``"structured_outputs"`` when vLLM has ``StructuredOutputsParams`` (0.10.2 on),
    ``"guided_decoding"`` when it has ``GuidedDecodingParams`` (before 0.12), None when
    neither (or vLLM is absent). ``module``: ``vllm.sampling_params`` (imported when None)."""
    if module is None:
        try:
            module = importlib.import_module("vllm.sampling_params")
        except ImportError:
            return None
    if hasattr(module, "StructuredOutputsParams"):
        return "structured_outputs"
    if hasattr(module, "GuidedDecodingParams"):
        return "guided_decoding"
    return None


def to_sampling_params(kwargs: dict[str, Any]) -> Any:
    """vLLM's ``SamplingParams`` built from :func:`sampling_params_kwargs`' plain data."""
    import vllm.sampling_params as sp

    kwargs = dict(kwargs)
    if "structured_outputs" in kwargs:
        kwargs["structured_outputs"] = sp.StructuredOutputsParams(**kwargs["structured_outputs"])
    if "guided_decoding" in kwargs:
        kwargs["guided_decoding"] = sp.GuidedDecodingParams(**kwargs["guided_decoding"])
    return sp.SamplingParams(**kwargs)


def token_logprobs(token_ids: Sequence[int], positions: Sequence[Any], top: int) -> list[TokenLogprob]:
    """Our tokens from vLLM's per-position ``{token_id: Logprob}`` of the tokens ``token_ids``.

    ``Logprob`` has ``logprob``, ``rank`` (1 = most probable) and ``decoded_token``; an
    alternative is listed when its rank is at most ``top`` (``top`` 0: no alternatives)."""
    out: list[TokenLogprob] = []
    for tid, position in zip(token_ids, positions, strict=False):
        chosen = position[tid]
        alternatives: dict[str, float] | None = None
        if top:
            ranked = sorted((lp for lp in position.values() if lp.rank is not None and lp.rank <= top),
                            key=lambda lp: lp.rank)
            alternatives = {}
            for lp in ranked:  # two ids may decode alike: keep the more probable
                alternatives.setdefault(lp.decoded_token or "", float(lp.logprob))
        out.append(TokenLogprob(token=chosen.decoded_token or "", logprob=float(chosen.logprob),
                                top=alternatives))
    return out


def completions_from_output(output: Any, request: GenerateRequest, *, first: bool = True) -> list[Completion]:
    """Our completions from one vLLM ``RequestOutput`` (its ``prompt_token_ids`` and
    ``outputs``, each a ``CompletionOutput`` with ``text``, ``token_ids``, ``logprobs``,
    ``finish_reason``). ``first``: this output holds the call's first sample, whose usage
    counts the prompt tokens."""
    completions = []
    for k, sample in enumerate(output.outputs):
        tokens = None
        if request.logprobs:
            if sample.logprobs is None:
                raise ModelError("vLLM returned no log-probabilities for a request that asked for them")
            tokens = token_logprobs(list(sample.token_ids), list(sample.logprobs), request.top_logprobs)
        prompt_tokens = len(output.prompt_token_ids or ()) if first and k == 0 else 0
        completions.append(Completion(
            text=sample.text, finish_reason=sample.finish_reason, tokens=tokens,
            usage=Usage(input_tokens=prompt_tokens, output_tokens=len(sample.token_ids)),
        ))
    return completions


def prompt_token_logprobs(output: Any) -> list[float]:
    """Log-probability of each of ``prompt_token_ids[1:]`` given those before it, from a
    ``RequestOutput`` of :func:`prompt_scoring_kwargs` (vLLM's first entry is None)."""
    ids, positions = list(output.prompt_token_ids), list(output.prompt_logprobs or ())
    if len(positions) != len(ids):
        raise ModelError(f"vLLM gave {len(positions)} prompt log-probabilities for {len(ids)} tokens")
    return [float(positions[k][ids[k]].logprob) for k in range(1, len(ids))]
