"""The Creativity Index of texts against an index: one engine query per text.

The thin adapter between :class:`~creval.index.local.LocalIndex` and the pure metric
:func:`creval.metrics.creativity_index.creativity_index`. A text with ``max_l`` words or
fewer, or an empty one, is excluded with a reason instead of scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from creval.metrics.creativity_index import (
    DEFAULT_MAX_L,
    DEFAULT_MIN_L,
    CreativityIndex,
    creativity_index,
    spans_from_match_ends,
)


class MatchIndex(Protocol):
    """What the scorer needs of an index."""

    def match_ends(self, tokens: list[str]) -> list[int]: ...

    @staticmethod
    def words(text: str) -> list[str]: ...


@dataclass(frozen=True)
class CIOutcome:
    """The index of one text, or why it has none."""

    result: CreativityIndex | None
    n_words: int
    excluded: str | None = None


def score_text(index: MatchIndex, text: str, *, min_l: int = DEFAULT_MIN_L,
               max_l: int = DEFAULT_MAX_L) -> CIOutcome:
    if not text.strip():
        return CIOutcome(None, 0, "empty text")
    tokens = index.words(text)
    if len(tokens) <= max_l:
        return CIOutcome(None, len(tokens), f"too short: {len(tokens)} words, needs more than {max_l}")
    spans = spans_from_match_ends(index.match_ends(tokens))
    return CIOutcome(creativity_index(len(tokens), spans, min_l=min_l, max_l=max_l), len(tokens))


def score_texts(index: MatchIndex, texts: Sequence[str], *, min_l: int = DEFAULT_MIN_L,
                max_l: int = DEFAULT_MAX_L) -> list[CIOutcome]:
    """One outcome per text, in order."""
    return [score_text(index, t, min_l=min_l, max_l=max_l) for t in texts]
