"""Perplexity from token log-probabilities (seed 002, section 3).

The perplexity of a text is ``exp(-(1/N) * sum_i log p(t_i | t_<i))`` over its ``N``
scored tokens (natural-log log-probabilities), i.e. token-weighted: every token counts
once. Over several texts, :func:`corpus_perplexity` pools the tokens (a long text weighs
more), which is not the mean of the texts' perplexities. Higher means the model found
the text less expected; seed 002 reads higher as possibly more creative. Range [1, inf).

Hand calculation: two tokens with probabilities 1/2 and 1/8 give mean log-probability
(ln 1/2 + ln 1/8) / 2 = ln(1/4), so the perplexity is 4.

>>> import math
>>> round(perplexity([math.log(1 / 2), math.log(1 / 8)]), 6)
4.0

A text longer than the model's context is scored in overlapping windows
(:func:`sliding_windows`, the Hugging Face perplexity recipe): windows of ``window`` tokens
start every ``stride`` tokens, and each window scores only the tokens no earlier window
scored, so every token (but the first, which has no context) is scored exactly once, and
each with at least ``window - stride`` tokens of left context once past the first window.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["Window", "corpus_perplexity", "perplexity", "sliding_windows"]


class Window(NamedTuple):
    """Feed tokens ``start .. end - 1`` to the model; score tokens ``first .. end - 1``."""

    start: int
    end: int
    first: int


def sliding_windows(n_tokens: int, *, window: int, stride: int) -> list[Window]:
    """The windows that score tokens ``1 .. n_tokens - 1`` of a text, each exactly once.

    Windows of at most ``window`` tokens start at ``0, stride, 2 * stride, ...`` until one
    reaches the end; each scores the tokens after the previous window's end, so a token
    scored in a later window sees at least ``window - stride`` tokens before it. Token 0 is
    context only. ``stride`` must be below ``window`` (a window's first token is context).

    Hand calculation: 10 tokens, windows of 4 every 2 tokens. The first window scores
    tokens 1-3; the second feeds 2-5 and scores 4 and 5 (each after at least 2 tokens of
    its window); and so on until the window ending at token 9:

    >>> sliding_windows(10, window=4, stride=2)  # doctest: +NORMALIZE_WHITESPACE
    [Window(start=0, end=4, first=1), Window(start=2, end=6, first=4),
     Window(start=4, end=8, first=6), Window(start=6, end=10, first=8)]
    >>> sliding_windows(3, window=4, stride=2)  # fits: one window
    [Window(start=0, end=3, first=1)]
    """
    if isinstance(n_tokens, bool) or not isinstance(n_tokens, int) or n_tokens < 0:
        raise ValueError(f"n_tokens must be a count >= 0, got {n_tokens!r}.")
    if isinstance(window, bool) or not isinstance(window, int) or window < 2:
        raise ValueError(f"window must be at least 2 tokens, got {window!r}.")
    if isinstance(stride, bool) or not isinstance(stride, int) or not 1 <= stride < window:
        raise ValueError(f"stride must be between 1 and window - 1 ({window - 1}), got {stride!r}.")
    windows: list[Window] = []
    scored_to = 1  # token 0 has no context
    start = 0
    while scored_to < n_tokens:
        end = min(start + window, n_tokens)
        windows.append(Window(start, end, scored_to))
        scored_to = end
        start += stride
    return windows


def _logprobs(values: Sequence[float], name: str) -> list[float]:
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise ValueError(f"{name} must be a sequence of log-probabilities.")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v) or v > 1e-9:
            raise ValueError(f"{name}[{i}] must be a log-probability (a number <= 0), got {v!r}.")
        out.append(min(float(v), 0.0))
    return out


def perplexity(logprobs: Sequence[float]) -> float:
    """Perplexity of one text from its tokens' natural-log probabilities.

    Raises ``ValueError`` for an empty sequence (no token was scored).
    """
    values = _logprobs(logprobs, "logprobs")
    if not values:
        raise ValueError("No scored token: the perplexity of an empty text is undefined.")
    return math.exp(-math.fsum(values) / len(values))


def corpus_perplexity(texts: Sequence[Sequence[float]]) -> float:
    """Token-weighted perplexity over several texts (all tokens pooled).

    Hand calculation: one text with a single token of probability 1/2 and one with three
    tokens of probability 1/8: mean log-probability (ln 1/2 + 3 ln 1/8) / 4 = ln 2^(-2.5),
    perplexity 2^2.5 = 5.6569 (the mean of the texts' perplexities, 2 and 8, would be 5).

    >>> import math
    >>> round(corpus_perplexity([[math.log(0.5)], [math.log(0.125)] * 3]), 4)
    5.6569
    """
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise ValueError("texts must be a sequence of log-probability sequences.")
    pooled = [v for i, t in enumerate(texts) for v in _logprobs(t, f"texts[{i}]")]
    if not pooled:
        raise ValueError("No scored token in any text: the perplexity is undefined.")
    return math.exp(-math.fsum(pooled) / len(pooled))
