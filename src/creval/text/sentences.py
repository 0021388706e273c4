"""Splitting English prose into sentences (BookMIA snippets into first and last sentence)."""

from __future__ import annotations

import re

_ABBREVIATIONS = frozenset(
    {"mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "mt", "ft", "no", "vs", "etc", "gen",
     "col", "capt", "lt", "sgt", "rev", "hon"}
)  # fmt: skip
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: whitespace collapsed, split after ``.``, ``!`` or ``?``.

    A sentence ends at a run of ``.``, ``!`` or ``?`` (plus any closing quotes or brackets)
    followed by whitespace, except when the next word starts with a lower-case letter
    (``"Why?" she asked``) or the word before a single ``.`` is a common abbreviation
    (``Mr.``, ``Dr.``, ``St.`` ...), a dotted abbreviation (``e.g.``, ``p.m.``, ``U.S.``) or a
    single capital letter (an initial). Text after the
    last end mark is the last sentence. This is how BookMIA snippets become ``start``
    (first sentence) and ``end`` (last sentence).

    >>> split_sentences('Mr. Hale left.  "Why?" she asked! It rained\\non J. Smith.')
    ['Mr. Hale left.', '"Why?" she asked!', 'It rained on J. Smith.']
    """
    flat = " ".join(text.split())
    sentences: list[str] = []
    begin = 0
    for match in _SENTENCE_END.finditer(flat):
        following = flat[match.end() :].lstrip()
        if following[:1].islower():
            continue
        words = flat[begin : match.start()].split()
        word = words[-1].lstrip("\"'“‘(") if words else ""
        if match.group().rstrip("\"'”’)]") == "." and (
            word.lower() in _ABBREVIATIONS or "." in word or (len(word) == 1 and word.isupper())
        ):
            continue
        sentences.append(flat[begin : match.end()].strip())
        begin = match.end()
    tail = flat[begin:].strip()
    if tail:
        sentences.append(tail)
    return [s for s in sentences if s]
