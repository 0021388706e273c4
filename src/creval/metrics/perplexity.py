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
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["corpus_perplexity", "perplexity"]


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
