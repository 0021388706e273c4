"""``inspect:PROVIDER/MODEL``: any model provider of Inspect AI as a creval backend.

``--model inspect:openai/gpt-4o-mini``, ``inspect:anthropic/claude-3-5-haiku-latest``,
``inspect:mockllm/model`` (Inspect's offline mock) ... Inspect builds the model with
``get_model(PROVIDER/MODEL)`` and answers each request through ``Model.generate``; creval's
runner keeps doing the caching, counting, retries and the run store on top.

Capabilities are declared per provider from Inspect's own documentation of
``GenerateConfig`` (which providers honour ``seed``, ``num_choices`` and ``logprobs``);
a provider not listed is assumed to honour none of them. Samples are asked one at a time
with ``seed + i`` (Inspect's ``num_choices`` is not used), so ``n`` is never claimed.
``--base-url`` and ``--api-key`` are passed to Inspect's provider. Retries are creval's
(``--retries``): Inspect makes one attempt per call (``max_retries=0``, ``attempt_timeout`` =
``--timeout``), and Inspect's ``should_retry`` for the provider says whether an error is transient
(retried by creval's runner) or final; a connection failure counts towards creval's circuit
breaker.

Needs the ``inspect`` extra (``pip install 'creval[inspect]'``); nothing of Inspect is
imported until the backend is built.

>>> inspect_capabilities("openai").logprobs, inspect_capabilities("mockllm").logprobs
(True, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.models.base import (
    Capabilities,
    Completion,
    EndpointUnreachable,
    GenerateRequest,
    ImagePart,
    Message,
    ModelError,
    TokenLogprob,
    TransientModelError,
    Usage,
)

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput

    from creval.models import ModelOptions

INSTALL_HINT = "Inspect AI is not installed. Install it with: pip install 'creval[inspect]'"

#: Providers whose Inspect API returns token log-probabilities (GenerateConfig.logprobs).
_LOGPROBS = frozenset({"openai", "grok", "together", "hf", "llama-cpp-python", "vllm", "sglang"})
#: ... and top log-probabilities at each position (GenerateConfig.top_logprobs).
_TOP_LOGPROBS = frozenset({"openai", "grok", "hf", "vllm", "sglang"})
#: Providers that honour GenerateConfig.seed.
_SEED = frozenset({"openai", "google", "mistral", "groq", "hf", "vllm"})
#: Providers that take image content (Inspect's vision-capable APIs).
_IMAGES = frozenset({"openai", "anthropic", "google", "grok", "mistral", "bedrock"})


def require_inspect() -> None:
    """Raise a CrevalError with the install hint when Inspect AI is missing."""
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise CrevalError(INSTALL_HINT) from None


def inspect_capabilities(provider: str) -> Capabilities:
    """What creval can rely on from Inspect's provider ``provider``."""
    return Capabilities(
        logprobs=provider in _LOGPROBS, sampling_logprobs=False, prompt_logprobs=False,
        n=False, images=provider in _IMAGES, seed=provider in _SEED,
    )


def inspect_messages(messages: tuple[Message, ...] | list[Message]) -> list[ChatMessage]:
    """creval chat messages as Inspect's (text, and images as ``ContentImage``)."""
    from inspect_ai.model import (
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        Content,
        ContentImage,
        ContentText,
    )

    out: list[ChatMessage] = []
    for message in messages:
        content: str | list[Content]
        if isinstance(message.content, str):
            content = message.content
        else:
            content = [ContentImage(image=p.url) if isinstance(p, ImagePart)
                       else ContentText(text=p.text) for p in message.content]
        if message.role == "system":
            out.append(ChatMessageSystem(content=content))
        elif message.role == "assistant":
            out.append(ChatMessageAssistant(content=content))
        else:
            out.append(ChatMessageUser(content=content))
    return out


def inspect_config(
    request: GenerateRequest, *, seed: int | None, provider: str, timeout: float | None = None
) -> GenerateConfig:
    """The ``GenerateConfig`` of one sample of ``request`` (seeded with ``seed``): one
    attempt of at most ``timeout`` seconds, since creval's runner does the retrying."""
    from inspect_ai.model import GenerateConfig

    logprobs = request.logprobs and provider in _LOGPROBS
    top = request.top_logprobs if logprobs and provider in _TOP_LOGPROBS else None
    return GenerateConfig(
        temperature=request.temperature, top_p=request.top_p, max_tokens=request.max_tokens,
        stop_seqs=list(request.stop) or None, seed=seed, logprobs=logprobs or None,
        top_logprobs=top or None, max_retries=0,
        attempt_timeout=None if timeout is None else max(1, round(timeout)),
    )


def _connection_failure(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a failure to reach the endpoint at all."""
    import httpx
    import openai

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (ConnectionError, httpx.ConnectError, openai.APIConnectionError)):
            return not isinstance(seen, openai.APITimeoutError)
        seen = seen.__cause__ or seen.__context__
    return False


def _provider_error(exc: BaseException) -> BaseException:
    """The provider's own error inside Inspect's wrappers: its ``ModelGenerateError`` and,
    with retries off, tenacity's ``RetryError`` around the last attempt."""
    for _ in range(8):
        last = getattr(exc, "last_attempt", None)  # tenacity.RetryError
        inner = last.exception() if last is not None else None
        if inner is None and type(exc).__name__ == "ModelGenerateError":
            inner = exc.__cause__
        if inner is None:
            break
        exc = inner
    return exc


def model_error(spec: str, model: Any, exc: Exception) -> ModelError:
    """The creval error for an exception of Inspect model ``model`` (its ``should_retry``
    knows the provider's transient errors and Inspect's attempt timeouts)."""
    cause = _provider_error(exc)
    message = f"{spec}: {type(cause).__name__}: {cause}"
    if _connection_failure(cause):
        return EndpointUnreachable(message)
    try:
        retry = model.should_retry(cause)
    except Exception:  # a provider that cannot classify the error: treat it as final
        retry = False
    if retry:
        return TransientModelError(message, retry_after=getattr(retry, "retry_after", None))
    return ModelError(message)


def completion_from_output(output: ModelOutput, *, prompt_tokens: bool) -> Completion:
    """The first choice of an Inspect ``ModelOutput`` as a creval completion."""
    if output.error:
        raise ModelError(f"Inspect model error: {output.error}")
    if not output.choices:
        raise ModelError("Inspect returned no choice.")
    choice = output.choices[0]
    tokens = None
    if choice.logprobs is not None:
        tokens = [
            TokenLogprob(token=lp.token, logprob=lp.logprob,
                         top={t.token: t.logprob for t in lp.top_logprobs}
                         if lp.top_logprobs else None)
            for lp in choice.logprobs.content
        ]
    finish = {"max_tokens": "length", "model_length": "length"}.get(
        choice.stop_reason, choice.stop_reason
    )
    usage = output.usage
    return Completion(
        text=choice.message.text, finish_reason=finish, tokens=tokens,
        usage=Usage(input_tokens=usage.input_tokens if usage and prompt_tokens else 0,
                    output_tokens=usage.output_tokens if usage else 0),
    )


class InspectModel:
    """A creval model backed by Inspect's ``get_model(PROVIDER/MODEL)``."""

    def __init__(self, name: str, options: ModelOptions) -> None:
        if "/" not in name:
            raise CrevalError(
                f"inspect needs PROVIDER/MODEL as Inspect names it, got {name!r}: for example "
                "inspect:openai/gpt-4o-mini or inspect:mockllm/model."
            )
        require_inspect()
        self.spec = f"inspect:{name}"
        self.name = name
        self.provider = name.split("/", 1)[0]
        self.base_url = options.base_url
        self._api_key = options.api_key
        self.capabilities = inspect_capabilities(self.provider)
        self.max_concurrency = options.concurrency or 8
        self.timeout = options.timeout
        self._model: Any = None

    def identity(self) -> dict[str, Any]:
        """Provider, model and base URL (Inspect's own model identity)."""
        return {"provider": "inspect", "model": self.name, "base_url": self.base_url}

    def _inspect_model(self) -> Any:
        if self._model is None:
            from inspect_ai.model import get_model

            # memoize=False: mockllm and friends keep per-instance state; one per backend.
            self._model = get_model(self.name, base_url=self.base_url, api_key=self._api_key,
                                    memoize=False)
        return self._model

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """``request.n`` samples, one Inspect call each, sample ``i`` seeded ``seed + i``."""
        model = self._inspect_model()
        messages = inspect_messages(request.messages)
        completions = []
        for i in range(request.n):
            seed = None if request.seed is None else request.seed + i
            config = inspect_config(request, seed=seed, provider=self.provider,
                                    timeout=self.timeout)
            try:
                output = await model.generate(messages, config=config)
            except Exception as exc:
                raise model_error(self.spec, model, exc) from exc
            completions.append(completion_from_output(output, prompt_tokens=i == 0))
        return completions

    async def aclose(self) -> None:
        """Forget the Inspect model (Inspect closes its clients at exit)."""
        self._model = None


def create(name: str, options: ModelOptions) -> InspectModel:
    """``inspect:PROVIDER/MODEL``."""
    return InspectModel(name, options)
