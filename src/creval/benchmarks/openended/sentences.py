"""Splitting English prose into sentences (BookMIA snippets into first and last sentence).

The work is spaCy's: its English tokenizer (which keeps abbreviations such as ``Mr.``,
``U.S.``, ``p.m.`` and initials ``J.`` in one token) and its rule-based ``sentencizer``
(a sentence ends at ``.``, ``!``, ``?`` and the other sentence-final marks it knows). The
pipeline is a blank English one with no model, so nothing is downloaded; it is built on
first use, and spaCy is imported then too.

Three rules sit on top, each because the sentencizer alone breaks fiction dialogue or runs
words together (tests/text/test_sentences.py shows each):

- A sentence ends at the first space after its end mark, so closing quotes and brackets
  stay with it and opening ones go to the next sentence. The sentencizer alone starts the
  next sentence at the next word, which gives ``He left. "`` and ``Where to?"``.
- No end without a space after it: ``ended.Next`` and ``Wait...what?`` stay whole.
- No end before a lower-case letter: ``"Why?" she asked.`` is one sentence.

spaCy's tokenizer lacks a few abbreviations that often precede a capital (``Capt.``,
``Col.``, ``Lt.``, ``Sgt.``, ``Hon.``, ``Sr.``, ``Ft.``, ``etc.``); they are added as
tokenizer special cases. Runs of dots (``...``) end sentences like a single ``.``.
"""

from __future__ import annotations

import functools
from typing import Any

from creval.errors import require

_ABBREVIATIONS = ("Capt.", "Col.", "Ft.", "Hon.", "Lt.", "Sgt.", "Sr.", "etc.")
_DOT_RUNS = tuple("." * k for k in range(2, 11))  # spaCy keeps "..." as one token


@functools.lru_cache(maxsize=1)
def _pipeline() -> Any:
    require("spacy", package="spacy", extra="pos", purpose="Sentence splitting")
    import spacy
    from spacy.pipeline.sentencizer import Sentencizer

    nlp = spacy.blank("en")
    tokenizer: Any = nlp.tokenizer
    for abbreviation in _ABBREVIATIONS:
        tokenizer.add_special_case(abbreviation, [{"ORTH": abbreviation}])
    marks = sorted(set(Sentencizer.default_punct_chars) | set(_DOT_RUNS))
    nlp.add_pipe("sentencizer", config={"punct_chars": marks})
    return nlp


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, whitespace collapsed, by spaCy's rule-based sentencizer.

    See the module docstring for spaCy's part and the three rules on top (a sentence ends
    at the first space after its end mark, never without a space, never before a
    lower-case letter). Text after the last end mark is the last sentence. This is how
    BookMIA snippets become ``start`` (first sentence) and ``end`` (last sentence).

    >>> split_sentences('Mr. Hale left.  "Why?" she asked! It rained\\non J. Smith.')
    ['Mr. Hale left.', '"Why?" she asked!', 'It rained on J. Smith.']
    """
    flat = " ".join(text.split())
    if not flat:
        return []
    nlp = _pipeline()
    marks = nlp.get_pipe("sentencizer").punct_chars
    doc = nlp(flat)
    starts = [0]
    for sentence in list(doc.sents)[1:]:
        mark = doc[sentence.start - 1]
        while mark.text not in marks:  # the sentencizer starts after end mark + punctuation
            mark = doc[mark.i - 1]
        space = flat.find(" ", mark.idx + len(mark))
        if space == -1 or space > sentence.start_char or flat[space + 1 : space + 2].islower():
            continue
        starts.append(space + 1)
    ends = [*starts[1:], len(flat)]
    return [flat[begin:end].strip() for begin, end in zip(starts, ends, strict=True)]
