"""Prompt log-probabilities from an OpenAI-compatible ``/completions`` endpoint.

Two forms, chosen by ``--prompt-logprobs`` (``ModelOptions.prompt_logprobs``):

* ``vllm``: vLLM's ``prompt_logprobs`` (an extra body field), answered as one entry per
  prompt token, the first ``None``. With a window, the text is tokenized by vLLM's
  ``/tokenize`` and sent in windows of token ids (each token scored once, see
  :func:`creval.metrics.perplexity.sliding_windows`).
* ``echo``: the legacy completions contract, ``echo=True`` with ``logprobs``: the prompt
  comes back as the first tokens of the answer, each with its log-probability given the
  tokens before it (the first ``None``); tokens at or past the end of the text (the one
  generated token) are dropped by their ``text_offset``. No windows: the server tokenizes.
* ``auto``: :func:`probe` finds out once, before a run. ``echo`` counts only when its values
  are aligned: the log-probability the server gives a token it generated must be the one it
  gives the same token echoed. llama-cpp-python's server (0.3) fails this for models without
  a BOS token (it reports each token's probability of coming after itself), so its
  echoed log-probabilities are refused rather than used.
"""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any, Protocol

from creval.metrics.perplexity import sliding_windows
from creval.models.base import ModelError, TokenLogprob, Usage, note_request
from creval.models.prompt_scoring import SCORING_BACKENDS, PromptRequest, PromptScores

if TYPE_CHECKING:
    from creval.models import ModelOptions


class OpenAIModel(Protocol):
    """What these requests need of :class:`creval.models.openai_backend.OpenAIModel`."""

    spec: str
    name: str
    base_url: str
    options: ModelOptions
    _url: str
    _api_key: str

    def _client(self) -> Any: ...

    def _map_error(self, exc: Exception) -> ModelError: ...

#: The probe's text and how close (nats) the echoed and generated log-probabilities must be.
PROBE_TEXT = "The capital of France is Paris. The capital of Italy is"
PROBE_TOLERANCE = 0.1


def unsupported(model: OpenAIModel) -> ModelError:
    setting = model.options.prompt_logprobs
    why = ("was not found to give prompt log-probabilities (probed: no vLLM prompt_logprobs, no "
           "aligned echo)") if setting == "auto" else "is not declared to give prompt log-probabilities"
    return ModelError(f"{model.spec} at {model.base_url} {why}. Backends that can: {SCORING_BACKENDS}.")


async def _complete(model: OpenAIModel, prompt: str | list[int], **params: Any) -> Any:
    import openai

    note_request()
    try:
        return await model._client().completions.create(
            model=model.name, prompt=prompt, max_tokens=1, temperature=0.0, **params
        )
    except openai.OpenAIError as exc:
        raise model._map_error(exc) from exc


def _vllm_values(choice: Any, ids: list[int] | None, spec: str) -> list[TokenLogprob | None]:
    """One entry per prompt token: its decoded text and log-probability (None: no context)."""
    entries = getattr(choice, "prompt_logprobs", None)
    if entries is None and getattr(choice, "model_extra", None):
        entries = choice.model_extra.get("prompt_logprobs")
    if not isinstance(entries, list):
        raise ModelError(f"{spec}: the answer has no prompt_logprobs (is the server vLLM? "
                         "otherwise pass --prompt-logprobs echo or off)")
    ids = ids or getattr(choice, "prompt_token_ids", None) or (choice.model_extra or {}).get("prompt_token_ids")
    values: list[TokenLogprob | None] = []
    for i, entry in enumerate(entries):
        if entry is None:
            values.append(None)
            continue
        if len(entry) == 1:
            (found,) = entry.values()
        elif ids is not None and str(ids[i]) in entry:
            found = entry[str(ids[i])]
        else:
            raise ModelError(f"{spec}: prompt_logprobs entry {i} lists several tokens and the "
                             "prompt's token ids are unknown")
        if isinstance(found, dict):
            values.append(TokenLogprob(token=str(found.get("decoded_token") or ""),
                                       logprob=float(found["logprob"])))
        else:
            values.append(TokenLogprob(token="", logprob=float(found)))
    return values


async def _tokenize(model: OpenAIModel, text: str) -> list[int]:
    """The text's token ids from vLLM's ``/tokenize`` (beside ``/v1``)."""
    import asyncio

    root = model._url.removesuffix("/v1")
    body = json.dumps({"model": model.name, "prompt": text}).encode("utf-8")
    request = urllib.request.Request(f"{root}/tokenize", data=body, method="POST", headers={
        "content-type": "application/json", "authorization": f"Bearer {model._api_key}"})

    def call() -> list[int]:
        with urllib.request.urlopen(request, timeout=model.options.timeout) as answer:
            return [int(t) for t in json.loads(answer.read())["tokens"]]

    note_request()
    try:
        return await asyncio.to_thread(call)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{model.spec}: windows need the text's tokens and {root}/tokenize "
                         f"did not give them ({exc}); score without a window.") from exc


async def score_vllm(model: OpenAIModel, request: PromptRequest) -> PromptScores:
    window, stride = request.resolve(None, model.spec)
    if window is None or stride is None:
        response = await _complete(model, request.text, extra_body={"prompt_logprobs": 0})
        values = _vllm_values(response.choices[0], None, model.spec)
        usage = getattr(response, "usage", None)
        fed = int(getattr(usage, "prompt_tokens", 0) or len(values))
        if any(v is None for v in values[1:]):
            raise ModelError(f"{model.spec}: a prompt token past the first has no log-probability")
        return PromptScores(tokens=[v for v in values[1:] if v is not None], usage=Usage(input_tokens=fed))
    ids = await _tokenize(model, request.text)
    tokens: list[TokenLogprob] = []
    windows = fed = 0
    for w in sliding_windows(len(ids), window=window, stride=stride):
        part = ids[w.start : w.end]
        response = await _complete(model, part, extra_body={"prompt_logprobs": 0})
        values = _vllm_values(response.choices[0], part, model.spec)
        if len(values) != len(part) or any(v is None for v in values[w.first - w.start :]):
            raise ModelError(f"{model.spec}: {len(values)} prompt log-probabilities for a window "
                             f"of {len(part)} tokens")
        tokens.extend(v for v in values[w.first - w.start :] if v is not None)
        windows += 1
        fed += len(part)
    return PromptScores(tokens=tokens, window=window, stride=stride, windows=windows,
                        usage=Usage(input_tokens=fed))


def _echoed(choice: Any, end: int) -> tuple[list[str], list[float | None]]:
    """The echoed prompt's tokens and log-probabilities (those starting before ``end``)."""
    logprobs = getattr(choice, "logprobs", None)
    offsets = getattr(logprobs, "text_offset", None)
    if logprobs is None or offsets is None or logprobs.token_logprobs is None:
        raise ModelError("the answer has no echoed log-probabilities with text offsets")
    keep = [i for i, offset in enumerate(offsets) if offset < end]
    return [logprobs.tokens[i] for i in keep], [logprobs.token_logprobs[i] for i in keep]


async def score_echo(model: OpenAIModel, request: PromptRequest) -> PromptScores:
    if request.window is not None or request.stride is not None:
        raise ModelError(f"{model.spec}: --prompt-logprobs echo cannot score in windows (the server "
                         "tokenizes); score without a window, or use vLLM (--prompt-logprobs vllm).")
    response = await _complete(model, request.text, echo=True, logprobs=0)
    try:
        pieces, values = _echoed(response.choices[0], len(request.text))
    except ModelError as exc:
        raise ModelError(f"{model.spec}: {exc} (pass --prompt-logprobs vllm or off)") from exc
    if any(v is None for v in values[1:]):
        raise ModelError(f"{model.spec}: an echoed token past the first has no log-probability")
    usage = getattr(response, "usage", None)
    fed = int(getattr(usage, "prompt_tokens", 0) or len(values))
    tokens = [TokenLogprob(token=p, logprob=float(v)) for p, v in zip(pieces[1:], values[1:], strict=True)
              if v is not None]
    return PromptScores(tokens=tokens, usage=Usage(input_tokens=fed))


async def probe(model: OpenAIModel) -> str | None:
    """``vllm`` when the server answers ``prompt_logprobs``, ``echo`` when its echoed
    log-probabilities are aligned (see the module docstring), else None."""
    try:
        response = await _complete(model, PROBE_TEXT, extra_body={"prompt_logprobs": 0})
        entries = _vllm_values(response.choices[0], None, model.spec)
        if len(entries) > 1 and all(v is not None for v in entries[1:]):
            return "vllm"
    except (ModelError, IndexError, AttributeError):
        pass
    try:
        generated = await _complete(model, PROBE_TEXT, logprobs=1)
        logprobs = generated.choices[0].logprobs
        token, value = logprobs.tokens[0], float(logprobs.token_logprobs[0])
        echoed = await _complete(model, PROBE_TEXT + token, echo=True, logprobs=0)
        pieces, values = _echoed(echoed.choices[0], len(PROBE_TEXT) + len(token))
    except (ModelError, IndexError, AttributeError, TypeError):
        return None
    offsets = echoed.choices[0].logprobs.text_offset
    at = [i for i, offset in enumerate(offsets[: len(pieces)]) if offset == len(PROBE_TEXT)]
    if len(at) != 1 or pieces[at[0]] != token:
        return None
    found = values[at[0]]
    return "echo" if found is not None and abs(found - value) <= PROBE_TOLERANCE else None
