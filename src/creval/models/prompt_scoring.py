"""Prompt log-probabilities: how likely a model finds each token of a given text.

A backend that can score a text (``Capabilities.prompt_logprobs``) implements
:class:`PromptScorer`. A text longer than the window (by default the model's context) is
scored in overlapping windows (:func:`creval.metrics.perplexity.sliding_windows`), each
token once; :func:`score_in_windows` does that for backends that hold the token ids.
:data:`SCORING_BACKENDS` names the backends and settings that can, for error messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from creval.metrics.perplexity import sliding_windows
from creval.models.base import Capabilities, ModelError, TokenLogprob, Usage, note_request

#: Who can give prompt log-probabilities, for the message of those that cannot.
SCORING_BACKENDS = (
    "local, local:PATH.gguf, hf:NAME, or openai:NAME with --prompt-logprobs vllm (vLLM's "
    "prompt_logprobs) or echo (a /completions endpoint that echoes the prompt with "
    "log-probabilities)"
)


class PromptRequest(BaseModel):
    """Score ``text``. ``window``: tokens per window (None: the model's context);
    ``stride``: tokens between window starts (None: half the window)."""

    model_config = ConfigDict(frozen=True)
    text: str
    window: int | None = Field(default=None, ge=2)
    stride: int | None = Field(default=None, ge=1)

    def resolve(self, context: int | None, spec: str) -> tuple[int | None, int | None]:
        """The window and stride used with a model of ``context`` tokens (None: unknown, the
        text goes whole); a window larger than the context or a stride not below the
        window is a :class:`ModelError`."""
        window = self.window if self.window is not None else context
        if window is None:
            if self.stride is not None:
                raise ModelError(f"{spec}: a stride needs a window; pass the window too.")
            return None, None
        if context is not None and window > context:
            raise ModelError(f"{spec}: a window of {window} tokens exceeds the model's context of "
                             f"{context}; pass a smaller window.")
        stride = self.stride if self.stride is not None else max(1, window // 2)
        if stride >= window:
            raise ModelError(f"{spec}: the stride ({stride}) must be below the window ({window}).")
        return window, stride


class PromptScores(BaseModel):
    """Each scored token's log-probability given the tokens before it, and how it was done.

    ``tokens`` leaves out a first token without context (no BOS). ``window`` and ``stride``
    are as used (None: the text went whole), ``windows`` how many requests or forward passes
    it took, ``usage.input_tokens`` the tokens fed to the model over all windows.
    """

    tokens: list[TokenLogprob]
    window: int | None = None
    stride: int | None = None
    windows: int = 1
    usage: Usage = Field(default_factory=Usage)

    def logprobs(self) -> list[float]:
        return [t.logprob for t in self.tokens]


@runtime_checkable
class PromptScorer(Protocol):
    """A model that can score a given text."""

    spec: str
    capabilities: Capabilities

    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """Raise :class:`ModelError` when the text cannot be scored."""
        ...


#: ``ids`` of one window -> the log-probability of each of ``ids[1:]`` given those before it.
WindowScorer = Callable[[list[int]], list[float]]


def score_in_windows(
    ids: list[int], window: int | None, stride: int | None, score: WindowScorer
) -> tuple[list[tuple[int, float]], int, int]:
    """``(position, log-probability)`` of tokens ``1 ..`` of ``ids``, each scored once, the
    number of windows and the tokens fed. ``window`` None: one pass over all of ``ids``.

    >>> fake = lambda w: [-float(t) for t in w[1:]]  # a token's "log-probability" is -id
    >>> score_in_windows([5, 1, 2, 3, 4], 3, 1, fake)
    ([(1, -1.0), (2, -2.0), (3, -3.0), (4, -4.0)], 3, 9)
    """
    if window is None or stride is None:
        window, stride = max(len(ids), 2), max(len(ids), 2) - 1
    out: list[tuple[int, float]] = []
    windows = fed = 0
    for w in sliding_windows(len(ids), window=window, stride=stride):
        values = score(ids[w.start : w.end])
        note_request()
        windows += 1
        fed += w.end - w.start
        if len(values) != w.end - w.start - 1:
            raise ModelError(f"a window of {w.end - w.start} tokens gave {len(values)} log-probabilities")
        out.extend((pos, values[pos - w.start - 1]) for pos in range(w.first, w.end))
    return out, windows, fed
