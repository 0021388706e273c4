"""The Creativity Index of texts against an index: one engine query per text.

The thin adapter between :class:`~creval.index.local.LocalIndex` and the pure metric
:func:`creval.metrics.creativity_index.creativity_index`. A text with ``max_l`` words or
fewer, or an empty one, is excluded with a reason instead of scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

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
    #: Spans matched near-verbatim only (0 without near-verbatim matching).
    near_spans: int = 0


class NearMatcher(Protocol):
    """Near-verbatim spans (see :class:`creval.index.near.NearVerbatim`)."""

    def identity(self) -> dict[str, Any]: ...

    def spans(self, tokens: list[str], *, min_l: int, max_l: int) -> list[tuple[int, int]]: ...


def score_text(index: MatchIndex, text: str, *, min_l: int = DEFAULT_MIN_L,
               max_l: int = DEFAULT_MAX_L, near: NearMatcher | None = None) -> CIOutcome:
    """The index of one text from verbatim matches, plus near-verbatim ones with ``near``."""
    return score_texts(index, [text], min_l=min_l, max_l=max_l, near=near)[0]


def _outcome(tokens: list[str], ends: list[int], *, min_l: int, max_l: int,
             near: NearMatcher | None) -> CIOutcome:
    spans = spans_from_match_ends(ends)
    added = near_only(spans, near.spans(tokens, min_l=min_l, max_l=max_l)) if near else []
    result = creativity_index(len(tokens), spans + added, min_l=min_l, max_l=max_l)
    return CIOutcome(result, len(tokens), near_spans=len(added))


def near_only(verbatim: list[tuple[int, int]], near: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The near-verbatim spans not inside a verbatim one (those add coverage, or may).

    >>> near_only([(0, 6)], [(1, 6), (4, 9)])
    [(4, 9)]
    """
    return [(a, b) for a, b in near if not any(c <= a and b <= d for c, d in verbatim)]


def score_texts(index: MatchIndex, texts: Sequence[str], *, min_l: int = DEFAULT_MIN_L,
                max_l: int = DEFAULT_MAX_L, near: NearMatcher | None = None) -> list[CIOutcome]:
    """One outcome per text, in order. An index with ``match_ends_many`` (a local one)
    answers all texts in one call; others are asked text by text."""
    outcomes: list[CIOutcome | None] = []
    scorable: dict[int, list[str]] = {}
    for i, text in enumerate(texts):
        if not text.strip():
            outcomes.append(CIOutcome(None, 0, "empty text"))
            continue
        tokens = index.words(text)
        if len(tokens) <= max_l:
            outcomes.append(CIOutcome(None, len(tokens), f"too short: {len(tokens)} words, needs more than {max_l}"))
            continue
        outcomes.append(None)
        scorable[i] = tokens
    many = getattr(index, "match_ends_many", None)
    batch = list(scorable.values())
    ends = many(batch) if many is not None else [index.match_ends(t) for t in batch]
    for (i, tokens), found in zip(scorable.items(), ends, strict=True):
        outcomes[i] = _outcome(tokens, found, min_l=min_l, max_l=max_l, near=near)
    return [o for o in outcomes if o is not None]
