"""Provider ``openai:MODEL``: any OpenAI-compatible chat-completions endpoint.

Talks through the official ``openai`` SDK (``AsyncOpenAI``) to ``--base-url`` (default: the
OpenAI API): chat completions are posted with the client's ``post`` (its headers, timeout,
connections and error types), skipping ``chat.completions.create``'s per-request parameter
transform, a no-op on the plain values sent here, and its building of answer models, about
half a millisecond of CPU per request (``bench/runner_vs_inspect.py``). The SDK's own
retries are off: the runner retries, told by the error type:

* 408 / 409 / 429 / 5xx and timeouts -> :class:`TransientModelError` (``retry_after`` from the
  ``Retry-After`` / ``Retry-After-Ms`` header when the server sends one; timeouts, 408, 429,
  503 and 504 marked as ``overload``, for the runner's adaptive concurrency);
* connection refused, DNS failure -> :class:`EndpointUnreachable`;
* any other 4xx -> :class:`ModelError` carrying the server's message.

Servers that ignore ``n`` (llama.cpp's servers, some proxies) return fewer choices than asked;
the missing samples are asked for in further calls (with seed ``seed + i`` for sample ``i``)
so that exactly ``n`` come back. Each call's prompt tokens are counted on the first completion
it produced; when one call returns several choices, its output tokens are split between them
by their token counts when the server returned log-probabilities, evenly otherwise.

Log-probabilities are whatever the server returns, which for OpenAI and for most
OpenAI-compatible servers is the model's own distribution, before temperature and top-p;
``logprob_source="sampling"`` cannot be honoured (``Capabilities.sampling_logprobs`` is
False) and model log-probabilities come back. Some servers can be told to return processed
ones instead (vLLM started with ``--logprobs-mode processed_logprobs`` reports them after
temperature and top-p), but nothing in the API says which kind a server sends, so creval
cannot know it and does not claim it.

Structured output (``Capabilities.structured_output``) is declared by
``ModelOptions.structured_output``: ``off`` by default (nothing is sent to find out, so an
endpoint sees exactly the requests a run makes), ``json_schema`` or ``json_object`` when the
user knows the server, or ``auto``: probed once by :meth:`check` (before a run) or
:meth:`probe_structured_output`. The probe sends one request whose schema allows a single odd
answer, in OpenAI's ``json_schema`` form, then in llama-cpp-python's server form
(``json_object`` with a ``schema``); the first form the answer obeys is used for every
``response_schema`` request, and neither means none.

Reasoning models (:mod:`creval.models.openai_reasoning`): a sampling parameter the endpoint
rejects with HTTP 400 (``temperature``, ``top_p``, ``seed``, ``reasoning_effort``) is sent
again without, once per endpoint, and each completion lists it in ``not_applied``;
``ModelOptions.reasoning_effort`` goes as ``reasoning_effort`` and is part of the identity
(so of cache keys); reasoning returned beside the answer is kept in ``Completion.reasoning``
and reasoning tokens in ``Usage.reasoning_tokens``.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit, urlunsplit

from creval._util.redact import redact_text, redact_url
from creval.errors import CrevalError
from creval.models.base import (
    Capabilities,
    Completion,
    EndpointUnreachable,
    GenerateRequest,
    Message,
    ModelError,
    TokenLogprob,
    TransientModelError,
    Usage,
    note_request,
)
from creval.models.openai_reasoning import (
    DROPPABLE,
    Rejections,
    reasoning_tokens,
    rejected_parameters,
    split_reasoning,
)

if TYPE_CHECKING:
    from creval.models import ModelOptions
    from creval.models.prompt_scoring import PromptRequest, PromptScores

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Seconds that :meth:`OpenAIModel.check` waits for an answer.
CHECK_TIMEOUT = 5.0
_TRANSIENT_STATUS = {408, 409, 429}
#: Server errors that asking again cannot mend: the server does not implement the request
#: (501) or its HTTP version (505).
_PERMANENT_STATUS = {501, 505}
#: Statuses that say the server is too busy: the runner lowers its requests in flight.
_OVERLOAD_STATUS: dict[int, Literal["timeout", "429", "503"]] = {
    408: "timeout", 504: "timeout", 429: "429", 503: "503"}


def normalise_base_url(url: str | None) -> str:
    """Lower-case scheme and host, no trailing slash; None means the OpenAI API.

    >>> normalise_base_url("HTTP://LocalHost:8080/v1/")
    'http://localhost:8080/v1'
    >>> normalise_base_url(None)
    'https://api.openai.com/v1'
    """
    if not url:
        return OPENAI_BASE_URL
    parts = urlsplit(url.strip())
    return urlunsplit(
        (parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), parts.query, "")
    )


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``Retry-After-Ms`` or ``Retry-After`` (seconds or an HTTP date).

    >>> parse_retry_after({"retry-after": "7"})
    7.0
    >>> parse_retry_after({"retry-after-ms": "1500"})
    1.5
    >>> parse_retry_after({}) is None
    True
    """
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) / divisor)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return None


def _has_connect_error(exc: BaseException | None) -> bool:
    """Whether the cause chain holds an httpx-style ``ConnectError`` (refused, DNS)."""
    seen = 0
    while exc is not None and seen < 10:
        if type(exc).__name__ == "ConnectError":
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _root_message(exc: BaseException) -> str:
    cause: BaseException = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    return str(cause) or type(cause).__name__


def _message(m: Message) -> dict[str, Any]:
    if isinstance(m.content, str):
        return {"role": m.role, "content": m.content}
    parts: list[dict[str, Any]] = []
    for p in m.content:
        if p.type == "text":
            parts.append({"type": "text", "text": p.text})
        else:
            parts.append({"type": "image_url", "image_url": {"url": p.url}})
    return {"role": m.role, "content": parts}


def _response_format(schema: dict[str, Any], form: str) -> dict[str, Any]:
    """The ``response_format`` parameter for ``schema`` in ``form``.

    >>> _response_format({"type": "array"}, "json_object")
    {'type': 'json_object', 'schema': {'type': 'array'}}
    >>> _response_format({"type": "array"}, "json_schema")["json_schema"]["name"]
    'answer'
    """
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}


def _split(total: int, counts: list[int] | None, k: int) -> list[int]:
    """Split ``total`` output tokens between ``k`` choices.

    >>> _split(10, [3, 7], 2), _split(10, None, 3)
    ([3, 7], [4, 3, 3])
    """
    if counts is not None and sum(counts) == total:
        return counts
    base, extra = divmod(total, k)
    return [base + (1 if i < extra else 0) for i in range(k)]


class _Fields(dict[str, Any]):
    """A JSON object whose keys read as attributes, absent ones as None, like the SDK's
    leniently built answers (``response.choices[0].message.content``).

    >>> _fields({"choices": [{"index": 0}]}).choices[0].index, _fields({}).usage
    (0, None)
    """

    __getattr__ = dict.get


def _fields(value: Any) -> Any:
    """``value`` (parsed JSON) with every object a :class:`_Fields`."""
    if isinstance(value, dict):
        return _Fields((k, _fields(v)) for k, v in value.items())
    if isinstance(value, list):
        return [_fields(v) for v in value]
    return value


class OpenAIModel:
    """A model behind an OpenAI-compatible chat-completions endpoint."""

    #: The runner starts this endpoint at a few requests in flight and grows while latency
    #: holds (:mod:`creval.runner.limits`): a one-slot server is not flooded by the first wave.
    slow_start = True

    def __init__(self, name: str, options: ModelOptions) -> None:
        self.spec = f"openai:{name}"
        self.name = name
        self.options = options
        # the URL as given goes to the client; only its redacted form is written or printed
        self._url = normalise_base_url(options.base_url)
        self.base_url = redact_url(self._url)
        key = options.api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if not options.base_url:
                raise CrevalError(
                    f"{self.spec} needs an API key: set OPENAI_API_KEY, or pass --base-url "
                    "for a local OpenAI-compatible server."
                )
            key = "EMPTY"
        self._api_key = key
        self.max_concurrency = options.concurrency or 8
        self.capabilities = Capabilities(
            logprobs=True, sampling_logprobs=False, prompt_logprobs=False, n=True, images=True,
            seed=True,
        )
        self._clients: dict[int, tuple[asyncio.AbstractEventLoop, Any]] = {}
        # max_completion_tokens once this endpoint asked for it (remembered per endpoint)
        self._token_param = "max_completion_tokens" if "max_tokens" in self.rejected() else "max_tokens"
        #: How ``response_schema`` is sent: "json_schema", "json_object" or None (not at all).
        self.schema_form: str | None = None
        self._probed = options.structured_output != "auto"
        if options.structured_output in ("json_schema", "json_object"):
            self._set_schema_form(options.structured_output)
        #: How prompt log-probabilities are asked for: "vllm", "echo" or None (they are not).
        self.prompt_form: str | None = None
        self._prompt_probed = options.prompt_logprobs != "auto"
        if options.prompt_logprobs in ("vllm", "echo"):
            self._set_prompt_form(options.prompt_logprobs)

    def _set_prompt_form(self, form: str | None) -> None:
        self.prompt_form = form
        self.capabilities = self.capabilities.model_copy(update={"prompt_logprobs": form is not None})

    def _set_schema_form(self, form: str | None) -> None:
        self.schema_form = form
        self.capabilities = self.capabilities.model_copy(update={"structured_output": form is not None})

    def identity(self) -> dict[str, Any]:
        """Provider, normalised base URL and model name (and the reasoning effort, when set:
        answers at another effort are another model's)."""
        out = {"provider": "openai", "base_url": self.base_url, "model": self.name}
        if self.options.reasoning_effort is not None:
            out["reasoning_effort"] = self.options.reasoning_effort
        return out

    def rejected(self) -> dict[str, str]:
        """Parameters this endpoint rejected (so not sent), each with why."""
        return Rejections.of(self._url, self.name)

    def not_applied(self, request: GenerateRequest, seed: int | None) -> list[str]:
        """The parameters of ``request`` that are not sent because the endpoint rejected them."""
        wanted = {"temperature", "top_p"}
        if seed is not None:
            wanted.add("seed")
        if self.options.reasoning_effort is not None:
            wanted.add("reasoning_effort")
        rejected = self.rejected()
        return [name for name in DROPPABLE if name in wanted and name in rejected]

    # -- client -------------------------------------------------------------------------------
    def _client(self) -> Any:
        """The SDK client of the running event loop (an async client is bound to one)."""
        loop = asyncio.get_running_loop()
        entry = self._clients.get(id(loop))
        if entry is not None and entry[0] is loop:
            return entry[1]
        from openai import AsyncOpenAI

        self._clients = {k: v for k, v in self._clients.items() if not v[0].is_closed()}
        client = AsyncOpenAI(
            api_key=self._api_key,
            base_url=self._url,
            timeout=self.options.timeout,
            max_retries=0,
        )
        self._clients[id(loop)] = (loop, client)
        return client

    def _unreachable(self, exc: BaseException) -> EndpointUnreachable:
        return EndpointUnreachable(
            f"Cannot reach the OpenAI-compatible endpoint at {self.base_url} "
            f"({redact_text(_root_message(exc))}). Start the server there, or fix --base-url."
        )

    def _map_error(self, exc: Exception) -> ModelError:
        """Turn an SDK exception into the runner's error types."""
        import openai

        if isinstance(exc, openai.APITimeoutError):
            if _has_connect_error(exc):
                return self._unreachable(exc)
            return TransientModelError(
                f"{self.spec}: the request to {self.base_url} timed out after "
                f"{self.options.timeout:g}s", overload="timeout",
            )
        if isinstance(exc, openai.APIConnectionError):
            if _has_connect_error(exc):
                return self._unreachable(exc)
            return TransientModelError(
                f"{self.spec}: the connection to {self.base_url} failed: "
                f"{redact_text(_root_message(exc))}"
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            text = f"{self.spec}: {redact_text(exc.message)}"
            if status in _TRANSIENT_STATUS or (status >= 500 and status not in _PERMANENT_STATUS):
                return TransientModelError(text, retry_after=parse_retry_after(exc.response.headers),
                                           overload=_OVERLOAD_STATUS.get(status))
            if status == 404 and not self.base_url.endswith("/v1"):
                text += " (does --base-url need to end in /v1?)"
            return ModelError(text)
        return ModelError(f"{self.spec}: {type(exc).__name__}: {redact_text(str(exc))}")

    async def check(self) -> None:
        """Raise :class:`EndpointUnreachable` quickly when nothing answers at the endpoint,
        :class:`ModelError` when it refuses the API key. Any other answer means reachable."""
        import openai

        client = self._client().with_options(
            timeout=min(CHECK_TIMEOUT, self.options.timeout), max_retries=0
        )
        try:
            await client.models.list()
        except openai.APIConnectionError as exc:  # includes timeouts
            raise self._unreachable(exc) from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise ModelError(
                f"{self.base_url} refused the API key ({redact_text(exc.message)}). Set OPENAI_API_KEY "
                "or pass the right key."
            ) from exc
        except openai.APIError:
            pass  # it answered: reachable (some servers have no /models)
        await self.probe_structured_output()
        await self.probe_prompt_logprobs()

    async def probe_prompt_logprobs(self) -> str | None:
        """Find, once, whether and how the server gives prompt log-probabilities
        (:func:`creval.models.openai_prompt.probe`): ``vllm``, ``echo`` or None."""
        from creval.models.openai_prompt import probe

        if not self._prompt_probed:
            self._prompt_probed = True
            self._set_prompt_form(await probe(self))
        return self.prompt_form

    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """Each token's log-probability given those before it, in the declared or probed
        form; an endpoint without one is a :class:`ModelError` naming the backends that can."""
        from creval.models import openai_prompt

        if self.prompt_form == "vllm":
            return await openai_prompt.score_vllm(self, request)
        if self.prompt_form == "echo":
            return await openai_prompt.score_echo(self, request)
        raise openai_prompt.unsupported(self)

    async def probe_structured_output(self) -> str | None:
        """Find, once, whether and how the server constrains answers to a JSON schema.

        The probe's schema allows a single answer no free model would write; a form counts
        only when the answer obeys it (a server that accepts and ignores ``response_format``
        does not count). Returns the form (``json_schema``, ``json_object``) or None.
        """
        import openai

        if self._probed:
            return self.schema_form
        self._probed = True
        token = "creval-probe-7f3"
        schema = {"type": "object", "properties": {"probe": {"type": "string", "enum": [token]}},
                  "required": ["probe"], "additionalProperties": False}  # fmt: skip
        for form in ("json_schema", "json_object"):
            request = GenerateRequest.chat("Say hello.", temperature=0.0, max_tokens=24,
                                           response_schema=schema)  # fmt: skip
            try:
                response = await self._client().chat.completions.create(
                    model=self.name, messages=[_message(m) for m in request.messages],
                    temperature=0.0, max_tokens=24,
                    response_format=_response_format(schema, form),
                )  # fmt: skip
                text = response.choices[0].message.content or ""
            except (openai.OpenAIError, IndexError):
                continue
            try:
                answer = json.loads(text)
            except ValueError:
                continue
            if isinstance(answer, dict) and answer.get("probe") == token:
                self._set_schema_form(form)
                return form
        self._set_schema_form(None)
        return None

    # -- generation ---------------------------------------------------------------------------
    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """Exactly ``request.n`` completions, asking again for samples the server left out."""
        return await self.top_up(request, lambda want, seed, _: self._create(request, want, seed))

    async def top_up(
        self, request: GenerateRequest, ask: Callable[[int, int | None, int], Awaitable[Any]]
    ) -> list[Completion]:
        """Exactly ``request.n`` completions of ``request``: ``ask(want, seed, done)`` gives
        the chat completion of ``want`` samples from ``seed`` once ``done`` are collected,
        and is asked again for samples the server left out (the direct and batch paths)."""
        completions: list[Completion] = []
        while len(completions) < request.n:
            done = len(completions)
            want = request.n - done
            seed = None if request.seed is None else request.seed + done
            response = await ask(want, seed, done)
            choices = sorted(response.choices or [], key=lambda c: c.index)[:want]
            if not choices:
                raise ModelError(f"{self.spec}: {self.base_url} returned no choices")
            completions.extend(self._completions(response, choices, request,
                                                 self.not_applied(request, seed)))
        return completions

    def chat_params(self, request: GenerateRequest, n: int, seed: int | None) -> dict[str, Any]:
        """The chat-completions parameters of ``n`` samples of ``request`` from ``seed``,
        without the token limit (see :meth:`token_param`); the batch file's bodies too."""
        params: dict[str, Any] = {
            "model": self.name,
            "messages": [_message(m) for m in request.messages],
            "temperature": request.temperature,
            "top_p": request.top_p,
        }
        if n > 1:
            params["n"] = n
        if request.stop:
            params["stop"] = list(request.stop)
        if seed is not None:
            params["seed"] = seed
        if self.options.reasoning_effort is not None:
            params["reasoning_effort"] = self.options.reasoning_effort
        for name in self.rejected():  # the endpoint said no once: not asked again
            params.pop(name, None)
        if request.response_schema is not None:
            if self.schema_form is None:
                raise ModelError(
                    f"{self.spec}: {self.base_url} was not found to support JSON-schema answers "
                    "(structured output); ask without response_schema or pass "
                    "--structured-output json_schema|json_object if it does."
                )
            params["response_format"] = _response_format(request.response_schema, self.schema_form)
        if request.logprobs:
            # top_logprobs goes even when 0: llama-cpp-python's server returns no
            # log-probabilities at all without it, and OpenAI accepts 0.
            params["logprobs"] = True
            params["top_logprobs"] = request.top_logprobs
        return params

    @property
    def token_param(self) -> str:
        """``max_tokens``, or ``max_completion_tokens`` once the server asked for it."""
        return self._token_param

    @token_param.setter
    def token_param(self, name: str) -> None:
        self._token_param = name

    async def _create(self, request: GenerateRequest, n: int, seed: int | None) -> Any:
        import openai

        params = self.chat_params(request, n, seed)
        client = self._client()
        for _ in range(2 + len(DROPPABLE)):
            note_request()  # what the server sees: top-up calls included
            try:
                # the body as ``chat.completions.create`` sends it (its parameter transform
                # changes none of these plain values, tests/models checks it), posted
                # through the SDK's client: its headers, timeout and errors, without the
                # transform's and the answer's model-building per request
                answer = await client.post(
                    "/chat/completions", body={**params, self._token_param: request.max_tokens},
                    cast_to=object, options={"security": {"bearer_auth": True}},
                )
                return self._answer(answer)
            except openai.BadRequestError as exc:
                # Newer OpenAI models take max_completion_tokens and reject max_tokens.
                if self._token_param == "max_tokens" and "max_completion_tokens" in exc.message:
                    self._token_param = "max_completion_tokens"
                    Rejections.add(self._url, self.name, ["max_tokens"], "max_completion_tokens")
                    continue
                # Reasoning models reject sampling parameters: send again without them.
                if dropped := rejected_parameters(exc.body, exc.message, params):
                    Rejections.add(self._url, self.name, dropped, "the endpoint rejected it")
                    params = self.chat_params(request, n, seed)
                    continue
                raise self._map_error(exc) from exc
            except openai.OpenAIError as exc:
                raise self._map_error(exc) from exc
        raise ModelError(f"{self.spec}: {self.base_url} rejected every form of the request "
                         "(max_tokens, max_completion_tokens, without sampling parameters)")

    def _answer(self, answer: Any) -> _Fields:
        """The server's answer as :class:`_Fields` (a body sent without a JSON content type
        is parsed here); anything but a JSON object is a :class:`ModelError`."""
        if isinstance(answer, str):
            try:
                answer = json.loads(answer)
            except ValueError:
                answer = answer[:200]
        if not isinstance(answer, dict):
            raise ModelError(
                f"{self.spec}: {self.base_url} answered with something that is not a JSON "
                f"object: {redact_text(str(answer)[:200])!r}"
            )
        fields: _Fields = _fields(answer)
        return fields

    @staticmethod
    def _completions(response: Any, choices: list[Any], request: GenerateRequest,
                     not_applied: list[str] | None = None) -> list[Completion]:
        token_lists: list[list[TokenLogprob] | None] = []
        for choice in choices:
            content = getattr(getattr(choice, "logprobs", None), "content", None)
            if not request.logprobs or content is None:
                token_lists.append(None)
                continue
            tokens = []
            for entry in content:
                top = None
                if request.top_logprobs:
                    # some servers (llama-cpp-python) append the chosen token: keep the top k
                    alternatives = (entry.top_logprobs or [])[: request.top_logprobs]
                    top = {t.token: float(t.logprob) for t in alternatives}
                tokens.append(TokenLogprob(token=entry.token, logprob=float(entry.logprob), top=top))
            token_lists.append(tokens)
        usage = getattr(response, "usage", None)
        counts = None if any(t is None for t in token_lists) else [len(t or []) for t in token_lists]
        if usage is not None and usage.completion_tokens is not None:
            outputs = _split(int(usage.completion_tokens), counts, len(choices))
        else:
            outputs = counts or [0] * len(choices)
        prompt_tokens = int(usage.prompt_tokens or 0) if usage is not None else 0
        reasoning = _split(reasoning_tokens(usage), None, len(choices))
        reported = getattr(response, "model", None)
        out: list[Completion] = []
        for i, (choice, kept, taken) in enumerate(zip(choices, token_lists, outputs, strict=True)):
            message = choice.message  # the SDK's answer model on the batch path: getattr
            text, thought = split_reasoning(getattr(message, "content", None),
                                            getattr(message, "reasoning_content", None),
                                            getattr(message, "reasoning", None))
            out.append(Completion(
                text=text, finish_reason=choice.finish_reason, tokens=kept,
                usage=Usage(input_tokens=prompt_tokens if i == 0 else 0, output_tokens=taken,
                            reasoning_tokens=reasoning[i]),
                model=reported if isinstance(reported, str) and reported else None,
                reasoning=thought, not_applied=list(not_applied or []),
            ))
        return out

    async def aclose(self) -> None:
        """Close the SDK client of the running loop and forget the others."""
        loop = asyncio.get_running_loop()
        clients, self._clients = self._clients, {}
        for owner, client in clients.values():
            if owner is loop:
                await client.close()


def create(name: str, options: ModelOptions) -> OpenAIModel:
    """``openai:MODEL`` with ``--base-url`` for any OpenAI-compatible server."""
    if not name:
        raise CrevalError(
            "openai needs a model name: openai:gpt-4o-mini, or openai:NAME --base-url URL "
            "for an OpenAI-compatible server."
        )
    return OpenAIModel(name, options)
