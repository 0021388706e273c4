"""Reasoning models behind an OpenAI-compatible endpoint: parameters they reject, the
reasoning they return beside the answer, and the reasoning tokens they bill.

**Parameters an endpoint rejects.** Reasoning models (OpenAI's o-series and gpt-5, and
servers that imitate them) answer HTTP 400 to sampling parameters they do not take, most
often ``temperature`` and ``top_p``. :func:`rejected_parameters` reads which from the error:
the ``param`` field OpenAI sets (``{"param": "temperature", "code":
"unsupported_parameter"}``), else the parameter's name in the message beside words that say
it is not supported (vLLM, proxies). Only the parameters of :data:`DROPPABLE` are ever
left out, and only one that was sent; the request is then sent again without it, once: the
endpoint (base URL and model) is remembered in :class:`Rejections`, so later requests omit
the parameter without a failed round trip. Every completion says what was not applied
(``Completion.not_applied``), so a run records that its temperature was the endpoint's own.

**Reasoning text.** Servers return the model's reasoning beside the answer in
``message.reasoning_content`` (vLLM's reasoning parsers, DeepSeek, llama.cpp's
``llama-server``) or ``message.reasoning`` (Ollama, OpenRouter, some vLLM versions). Servers
that return it inline put it at the start of the content in a ``<think>...</think>`` block
(or only close it, when the chat template opened it): :func:`split_reasoning` moves that
block out of the answer. A ``<think>`` that never closes (the answer ran out of tokens while
thinking) is all reasoning and leaves an empty answer. The answer (``Completion.text``) is
what benchmarks score and judges read; the reasoning is kept in ``Completion.reasoning``.

**Reasoning tokens** are ``usage.completion_tokens_details.reasoning_tokens``: a part of
``completion_tokens`` (billed as output), counted apart in ``Usage.reasoning_tokens``.
"""

from __future__ import annotations

import re
import threading
from typing import Any

#: Parameters an endpoint may reject that creval sends again without (never the messages,
#: the token limit, the answer's schema or the log-probabilities a measure needs).
DROPPABLE = ("temperature", "top_p", "seed", "reasoning_effort")

_NOT_TAKEN = re.compile(
    r"unsupported|not supported|does not support|doesn't support|not allowed|not permitted|"
    r"only the default|unrecognized|unknown (?:parameter|field|argument)|extra (?:inputs?|fields?)|"
    r"not available|cannot be (?:set|used)|can't be (?:set|used)",
    re.IGNORECASE,
)


def rejected_parameters(error: Any, message: str, sent: dict[str, Any]) -> list[str]:
    """The parameters of ``sent`` that a 400 answer (its JSON ``error`` body and
    ``message``) says the endpoint does not take; empty when it names none of
    :data:`DROPPABLE`.

    >>> sent = {"temperature": 0.7, "top_p": 1.0, "messages": []}
    >>> rejected_parameters({"param": "temperature", "code": "unsupported_parameter"},
    ...                     "Unsupported parameter: 'temperature' is not supported with this model.", sent)
    ['temperature']
    >>> rejected_parameters(None, "temperature and top_p are not supported for reasoning models", sent)
    ['temperature', 'top_p']
    >>> rejected_parameters(None, "temperature must be between 0 and 2", sent)
    []
    """
    body = error if isinstance(error, dict) else {}
    inner = body.get("error") if isinstance(body.get("error"), dict) else body
    param = inner.get("param") if isinstance(inner, dict) else None
    if isinstance(param, str) and param in DROPPABLE and param in sent:
        return [param]
    text = " ".join(str(v) for v in (message, (inner or {}).get("message")) if v)
    if not _NOT_TAKEN.search(text):
        return []
    return [name for name in DROPPABLE
            if name in sent and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text)]


class Rejections:
    """Parameters each endpoint (normalised base URL and model name) rejected, shared by
    every model object of this process: a later run against the same endpoint leaves them
    out from its first request."""

    _lock = threading.Lock()
    _by_endpoint: dict[tuple[str, str], dict[str, str]] = {}

    @classmethod
    def of(cls, url: str, model: str) -> dict[str, str]:
        """Parameter -> why it is not sent, for the endpoint (a copy)."""
        with cls._lock:
            return dict(cls._by_endpoint.get((url, model), {}))

    @classmethod
    def add(cls, url: str, model: str, names: list[str], why: str) -> None:
        with cls._lock:
            known = cls._by_endpoint.setdefault((url, model), {})
            for name in names:
                known.setdefault(name, why)


def split_reasoning(content: str | None, *fields: Any) -> tuple[str, str | None]:
    """The answer and the reasoning of one message: the first non-empty of ``fields``
    (``reasoning_content``, ``reasoning``) is the reasoning and ``content`` the answer; else
    a leading ``<think>...</think>`` block of ``content`` is the reasoning.

    >>> split_reasoning("42", "Six times seven.")
    ('42', 'Six times seven.')
    >>> split_reasoning("<think>\\nSix times seven.\\n</think>\\n\\n42")
    ('42', 'Six times seven.')
    >>> split_reasoning("Six times seven.</think>42")
    ('42', 'Six times seven.')
    >>> split_reasoning("<think>Six times")
    ('', 'Six times')
    >>> split_reasoning("No thinking here.")
    ('No thinking here.', None)
    """
    text = content or ""
    for field in fields:
        if isinstance(field, str) and field.strip():
            return text, field
    stripped = text.lstrip()
    opened = stripped.startswith("<think>")
    if opened:
        stripped = stripped[len("<think>"):]
    head, closed, tail = stripped.partition("</think>")
    if closed and "<think>" not in head:
        return tail.strip(), head.strip()
    if opened and not closed:
        return "", stripped.strip()
    return text, None


def reasoning_tokens(usage: Any) -> int:
    """``usage.completion_tokens_details.reasoning_tokens`` of an answer's usage, else 0.

    >>> reasoning_tokens({"completion_tokens_details": {"reasoning_tokens": 12}}), reasoning_tokens(None)
    (12, 0)
    """
    details = _field(usage, "completion_tokens_details")  # a dict, or the SDK's model (batch)
    value = _field(details, "reasoning_tokens")
    return int(value) if isinstance(value, int | float) and value > 0 else 0


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)
