"""Creativity Index (Lu et al. 2024, "AI as Humanity's Salieri"; seed 002, section 3).

A text is a sequence of ``n`` words. A *match span* ``(start, end)`` (half-open, word
positions) says that words ``start .. end - 1`` occur verbatim, in that order, somewhere
in a reference corpus. For a minimum length ``L``:

- a word is *covered* when it lies inside at least one match span of ``L`` or more words;
- the *L-uniqueness* of the text is the share of its words that are not covered, in
  ``[0, 1]`` (1 = no phrase of ``L`` words is found in the corpus);
- the *Creativity Index* over a range ``L_min .. L_max`` aggregates the L-uniqueness of
  every ``L`` in the range. Lu et al. sum it (the area under the L-uniqueness curve);
  seed 002 reports the mean. Both are returned, with the range, because the value depends
  strongly on the range (seed 002, section 5.2.2 and Table 3).

Match spans come from anywhere: the local infini-gram index gives, in one query, the end
of the longest match starting at every position (:func:`spans_from_match_ends`), which
holds every match span, because any part of a verbatim match is itself a match.

A text of ``L_max`` words or fewer gets no index: :func:`creativity_index` raises
``ValueError`` (the reference implementation skips such texts too); callers count them
as excluded instead of scoring them 1.0.

Hand calculation: 8 words, spans (0, 5) and (3, 6). For L = 5 only (0, 5) counts: words
0..4 are covered, 3 of 8 are not, L-uniqueness 3/8. For L = 3 both count: words 0..5 are
covered, uniqueness 2/8. For L = 6 no span is long enough: uniqueness 1.

>>> r = creativity_index(8, [(0, 5), (3, 6)], min_l=3, max_l=6)
>>> r.uniqueness
{3: 0.25, 4: 0.375, 5: 0.375, 6: 1.0}
>>> r.total, r.mean
(2.0, 0.5)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "CreativityIndex",
    "creativity_index",
    "l_uniqueness",
    "near_match_spans",
    "spans_from_match_ends",
]

DEFAULT_MIN_L = 5
DEFAULT_MAX_L = 7


@dataclass(frozen=True)
class CreativityIndex:
    """L-uniqueness for every ``L`` in ``min_l .. max_l`` and their sum and mean."""

    n_words: int
    min_l: int
    max_l: int
    uniqueness: dict[int, float]
    total: float
    mean: float

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: L-uniqueness keyed by ``str(L)``, the index, the range."""
        return {
            "n_words": self.n_words,
            "l_range": [self.min_l, self.max_l],
            "l_uniqueness": {str(k): v for k, v in self.uniqueness.items()},
            "creativity_index_sum": self.total,
            "creativity_index_mean": self.mean,
        }


def _int(value: object, name: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}.")
    return value


def _check_spans(n_words: int, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence):
        raise ValueError(f"spans must be a sequence of (start, end) pairs, got {type(spans).__name__}.")
    out = []
    for i, span in enumerate(spans):
        try:
            start, end = span
        except (TypeError, ValueError):
            raise ValueError(f"spans[{i}] must be a (start, end) pair, got {span!r}.") from None
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= n_words):
            raise ValueError(
                f"spans[{i}] = {span!r} is not a half-open word range inside 0..{n_words}."
            )
        out.append((start, end))
    return out


def _uniqueness(n_words: int, spans: list[tuple[int, int]], length: int) -> float:
    covered = bytearray(n_words)
    for start, end in spans:
        if end - start >= length:
            covered[start:end] = b"\x01" * (end - start)
    return (n_words - sum(covered)) / n_words


def l_uniqueness(n_words: int, spans: Sequence[tuple[int, int]], *, min_length: int) -> float:
    """Share of the ``n_words`` words not inside any match span of ``min_length`` words or more.

    Hand calculation: 4 words and one span (1, 3) of 2 words. With ``min_length=2`` words 1
    and 2 are covered, so 2 of 4 are unique; with ``min_length=3`` the span is too short.

    >>> l_uniqueness(4, [(1, 3)], min_length=2), l_uniqueness(4, [(1, 3)], min_length=3)
    (0.5, 1.0)
    """
    _int(n_words, "n_words", minimum=1)
    _int(min_length, "min_length", minimum=1)
    return _uniqueness(n_words, _check_spans(n_words, spans), min_length)


def spans_from_match_ends(match_ends: Sequence[int]) -> list[tuple[int, int]]:
    """Match spans ``(i, match_ends[i])`` from the end of the longest match at each position.

    ``match_ends[i]`` is the (exclusive) end of the longest corpus match that starts at word
    ``i`` (infini-gram's ``creativity()`` answer ``rs``); ``match_ends[i] == i`` means word
    ``i`` itself is not in the corpus. Empty spans are dropped.

    >>> spans_from_match_ends([3, 3, 3, 3, 5])
    [(0, 3), (1, 3), (2, 3), (4, 5)]
    """
    n = len(match_ends)
    out = []
    for i, end in enumerate(match_ends):
        if isinstance(end, bool) or not isinstance(end, int) or not i <= end <= n:
            raise ValueError(f"match_ends[{i}] = {end!r} must be an integer in {i}..{n}.")
        if end > i:
            out.append((i, end))
    return out


def near_match_spans(
    best_similarity: Mapping[int, Sequence[float]], *, threshold: float
) -> list[tuple[int, int]]:
    """Near-verbatim match spans (seed 002 appendix B; Lu et al. 2024's semantic matching).

    ``best_similarity[L][i]`` is the highest similarity of the text's words ``i .. i + L - 1``
    to any ``L``-word span of the corpus (for example the cosine of their embeddings); the
    span ``(i, i + L)`` is a match when it reaches ``threshold``. Unlike verbatim matches, a
    part of a near match need not be one, so each ``L`` is judged on its own spans.

    Hand calculation: two-word spans at 0, 1 and 2 have best similarities 0.95, 0.5 and 0.91;
    with threshold 0.9 the spans at 0 and 2 match: ``(0, 2)`` and ``(2, 4)``.

    >>> near_match_spans({2: [0.95, 0.5, 0.91]}, threshold=0.9)
    [(0, 2), (2, 4)]
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}.")
    out = []
    for length, similarities in sorted(best_similarity.items()):
        _int(length, "a span length", minimum=1)
        out += [(i, i + length) for i, sim in enumerate(similarities) if sim >= threshold]
    return out


def creativity_index(
    n_words: int,
    spans: Sequence[tuple[int, int]],
    *,
    min_l: int = DEFAULT_MIN_L,
    max_l: int = DEFAULT_MAX_L,
) -> CreativityIndex:
    """L-uniqueness for each ``L`` in ``min_l .. max_l`` and the Creativity Index (sum, mean).

    Raises ``ValueError`` when the text has ``max_l`` words or fewer: its L-uniqueness
    would be 1.0 by construction, not by novelty.

    >>> r = creativity_index(6, [(0, 6)], min_l=5, max_l=5)
    >>> r.uniqueness, r.total
    ({5: 0.0}, 0.0)
    """
    _int(n_words, "n_words", minimum=0)
    _int(min_l, "min_l", minimum=1)
    _int(max_l, "max_l", minimum=1)
    if max_l < min_l:
        raise ValueError(f"max_l ({max_l}) must be >= min_l ({min_l}).")
    if n_words <= max_l:
        raise ValueError(
            f"The text has {n_words} word(s); the Creativity Index over L = {min_l}..{max_l} "
            f"needs more than {max_l}."
        )
    checked = _check_spans(n_words, spans)
    uniq = {length: _uniqueness(n_words, checked, length) for length in range(min_l, max_l + 1)}
    total = math.fsum(uniq.values())
    return CreativityIndex(
        n_words=n_words, min_l=min_l, max_l=max_l, uniqueness=uniq,
        total=total, mean=total / len(uniq),
    )
