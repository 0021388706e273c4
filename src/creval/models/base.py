"""The model protocol: requests, completions and capabilities shared by every backend.

A backend turns one :class:`GenerateRequest` into ``request.n`` :class:`Completion` objects.
Everything here is plain data (pydantic models) so that requests can be hashed for the
response cache and completions can be written to the run store as JSON.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant"]


class ImagePart(BaseModel):
    """An image given by URL (``https://`` or ``data:`` URL)."""

    model_config = ConfigDict(frozen=True)
    type: Literal["image_url"] = "image_url"
    url: str


class TextPart(BaseModel):
    model_config = ConfigDict(frozen=True)
    type: Literal["text"] = "text"
    text: str


class Message(BaseModel):
    """One chat message. ``content`` is text, or a list of text and image parts."""

    model_config = ConfigDict(frozen=True)
    role: Role
    content: str | list[TextPart | ImagePart]

    def text(self) -> str:
        """The message's text with image parts left out."""
        if isinstance(self.content, str):
            return self.content
        return "".join(p.text for p in self.content if isinstance(p, TextPart))

    def has_images(self) -> bool:
        return not isinstance(self.content, str) and any(
            isinstance(p, ImagePart) for p in self.content
        )


class GenerateRequest(BaseModel):
    """What to generate. ``n`` independent samples of one conversation.

    ``seed`` is the seed of the first sample; a backend that samples one at a time uses
    ``seed + i`` for sample ``i`` so that the samples differ and stay reproducible.
    """

    model_config = ConfigDict(frozen=True)
    messages: tuple[Message, ...]
    n: int = Field(default=1, ge=1)
    temperature: float = Field(default=1.0, ge=0.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    max_tokens: int = Field(default=512, ge=1)
    stop: tuple[str, ...] = ()
    seed: int | None = None
    logprobs: bool = False
    top_logprobs: int = Field(default=0, ge=0, le=20)
    #: Which distribution ``logprobs`` are taken from: ``"model"``, the model's own
    #: next-token distribution (raw logits); ``"sampling"``, the distribution the sampler
    #: actually drew from (after temperature and top-p, renormalised). Backends whose
    #: ``Capabilities.sampling_logprobs`` is False return model log-probabilities either way.
    logprob_source: Literal["model", "sampling"] = "model"
    #: The answer's shape: a JSON schema that a backend with
    #: ``Capabilities.structured_output`` constrains decoding to (llama.cpp grammar, the
    #: OpenAI response-format JSON schema). None: the answer is free text. Instruments
    #: (judges, detectors) set it; the tested model answers freely unless the user opts in.
    response_schema: dict[str, Any] | None = None
    #: Index of the first sample this call produces within its unit (set by the runner;
    #: not a generation parameter, so not part of cache keys). Replay uses it.
    first_sample: int = Field(default=0, ge=0)

    @classmethod
    def chat(cls, user: str, *, system: str | None = None, **params: Any) -> GenerateRequest:
        """A single-turn request: an optional system message and one user message."""
        messages: list[Message] = []
        if system:
            messages.append(Message(role="system", content=system))
        messages.append(Message(role="user", content=user))
        return cls(messages=tuple(messages), **params)

    def params(self) -> dict[str, Any]:
        """Every generation parameter except ``n`` and the messages (used in cache keys).

        ``logprob_source`` is left out when it changes nothing (it is ``"model"``, or no
        log-probabilities are asked for), so the keys of such requests are the same as
        before the option existed; ``response_schema`` likewise only when it is set.

        >>> sorted(GenerateRequest.chat("hi").params())  # doctest: +NORMALIZE_WHITESPACE
        ['logprobs', 'max_tokens', 'seed', 'stop', 'temperature', 'top_logprobs', 'top_p']
        >>> GenerateRequest.chat("hi", logprobs=True, logprob_source="sampling").params()["logprob_source"]
        'sampling'
        >>> GenerateRequest.chat("hi", response_schema={"type": "array"}).params()["response_schema"]
        {'type': 'array'}
        """
        exclude = {"messages", "n", "first_sample"}
        if self.logprob_source == "model" or not self.logprobs:
            exclude.add("logprob_source")
        if self.response_schema is None:
            exclude.add("response_schema")
        return self.model_dump(mode="json", exclude=exclude)

    def with_n(
        self, n: int, *, seed: int | None = None, first_sample: int | None = None
    ) -> GenerateRequest:
        update: dict[str, Any] = {"n": n, "seed": seed if seed is not None else self.seed}
        if first_sample is not None:
            update["first_sample"] = first_sample
        return self.model_copy(update=update)


class TokenLogprob(BaseModel):
    token: str
    logprob: float
    top: dict[str, float] | None = None


class Usage(BaseModel):
    """Tokens of one call or sample. ``reasoning_tokens`` are the part of ``output_tokens``
    a reasoning model spent thinking before its answer (the endpoint's
    ``usage.completion_tokens_details.reasoning_tokens``): billed as output, never shown as
    the answer. They are counted inside ``output_tokens``, not on top of it.

    >>> Usage(input_tokens=3, output_tokens=10, reasoning_tokens=8) + Usage(output_tokens=2)
    Usage(input_tokens=3, output_tokens=12, reasoning_tokens=8)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


class Completion(BaseModel):
    """One sample. ``tokens`` is set when the backend returned per-token log-probabilities.

    ``usage`` counts this sample's output tokens and, for the first sample of a call, the
    prompt tokens (so summing usage over completions gives the call's usage).
    """

    text: str
    finish_reason: str | None = None
    tokens: list[TokenLogprob] | None = None
    usage: Usage = Field(default_factory=Usage)
    #: The model id the endpoint reported answering (an OpenAI-compatible response's
    #: ``model``, e.g. a snapshot behind an alias); None when the backend reports none.
    model: str | None = None
    #: The reasoning a reasoning model returned beside its answer (``reasoning_content``,
    #: ``reasoning``, or a ``<think>`` block taken out of the content); None when there was
    #: none. Kept apart from ``text``: it is recorded, never scored or judged as the answer.
    reasoning: str | None = None
    #: Generation parameters of the request that the endpoint rejected and that were
    #: therefore not sent (``["temperature"]``): the answer was sampled without them. Empty
    #: when every parameter was applied.
    not_applied: list[str] = Field(default_factory=list)

    @property
    def logprob_sum(self) -> float | None:
        """Sum of token log-probabilities, or None when the backend gave none."""
        if self.tokens is None:
            return None
        return float(sum(t.logprob for t in self.tokens))


class Capabilities(BaseModel):
    """What a backend can do. Code that needs a missing capability degrades explicitly."""

    logprobs: bool = False
    #: Honours ``GenerateRequest.logprob_source == "sampling"`` (log-probabilities under the
    #: temperature-scaled, top-p-truncated distribution that was sampled from).
    sampling_logprobs: bool = False
    prompt_logprobs: bool = False
    n: bool = False  # several samples in one call
    images: bool = False
    seed: bool = False
    #: Constrains decoding to ``GenerateRequest.response_schema`` (a JSON schema). A backend
    #: without it ignores the schema and answers freely; callers check this first.
    structured_output: bool = False


@runtime_checkable
class Model(Protocol):
    """A text generator. ``spec`` is the string it was built from (``local``, ``openai:gpt-4o``)."""

    spec: str
    capabilities: Capabilities
    #: How many requests may be in flight against this backend's endpoint at once.
    max_concurrency: int

    def identity(self) -> dict[str, Any]:
        """What makes this model's answers its own: used in cache keys and the manifest."""
        ...

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """Return exactly ``request.n`` completions or raise."""
        ...

    async def aclose(self) -> None:
        """Release clients, threads or weights."""
        ...


class RequestTally:
    """How many requests one ``generate`` call sent to its server (see :func:`note_request`)."""

    def __init__(self) -> None:
        self.sent = 0
        #: True once the backend said how many it sent (zero included): a call that never
        #: said is counted as one request
        self.noted = False

    @property
    def requests(self) -> int:
        """The requests to count for the call: what the backend noted, else one."""
        return self.sent if self.noted else 1


_TALLY: ContextVar[RequestTally | None] = ContextVar("creval_request_tally", default=None)


def note_request() -> None:
    """Called by a backend for each request its server will see.

    A backend that answers one ``generate`` call with several server requests (the
    ``openai`` backend topping up ``n``) calls it once per request, so the runner counts
    requests as the server sees them. Outside :func:`tally_requests` it does nothing.
    """
    tally = _TALLY.get()
    if tally is not None:
        tally.sent += 1
        tally.noted = True


def note_no_request() -> None:
    """Called by a backend whose call was answered without a new server request (a batch
    line submitted by an earlier invocation and collected now), so the call counts zero.

    >>> t = tally_requests(); note_no_request(); t.requests
    0
    """
    tally = _TALLY.get()
    if tally is not None:
        tally.noted = True


def tally_requests() -> RequestTally:
    """Start counting the requests of the current task's next ``generate`` call.

    >>> t = tally_requests(); note_request(); note_request(); t.sent
    2
    """
    tally = RequestTally()
    _TALLY.set(tally)
    return tally


_STATUS: ContextVar[Callable[[str], None] | None] = ContextVar("creval_status", default=None)


def report_status(text: str) -> None:
    """A backend's word on work that takes long and changes while the run waits (a batch's
    id, status and line counts), passed to whoever shows the run's progress
    (:func:`listen_status`); nothing when no one does.

    >>> seen = []; token = listen_status(seen.append); report_status("batch b1 in_progress")
    >>> stop_listening(token); report_status("not seen"); seen
    ['batch b1 in_progress']
    """
    listener = _STATUS.get()
    if listener is not None:
        listener(text)


def listen_status(listener: Callable[[str], None] | None) -> Token[Callable[[str], None] | None]:
    """Send :func:`report_status` lines of the current task, and of the tasks it starts from
    now on, to ``listener``; :func:`stop_listening` with the token it gives ends that."""
    return _STATUS.set(listener)


def stop_listening(token: Token[Callable[[str], None] | None]) -> None:
    """The listener as it was before :func:`listen_status` gave ``token``."""
    _STATUS.reset(token)


class ModelError(Exception):
    """A generation failed for good (bad request, unsupported option)."""


class TransientModelError(ModelError):
    """A generation failed in a way that may pass on retry (rate limit, 5xx, timeout).

    ``overload`` says when the endpoint was too busy to answer: ``timeout`` (the request, or
    the gateway in front of the server, timed out), ``429`` or ``503``; the runner then lowers
    the requests it sends there at once (:mod:`creval.runner.limits`).
    """

    def __init__(self, message: str, *, retry_after: float | None = None,
                 overload: Literal["timeout", "429", "503"] | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.overload = overload


class EndpointUnreachable(ModelError):
    """The backend's endpoint could not be reached at all (connection refused, DNS)."""


def canonical_json(value: Any) -> str:
    """Stable JSON for hashing: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(value: Any) -> str:
    """SHA-256 hex digest of :func:`canonical_json` of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
