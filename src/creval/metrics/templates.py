"""Syntactic templates (Shaib et al. 2024; seed 002, section 3): CR-POS, template rate, TPT.

Inputs are POS-tagged texts: a text is a sequence of sentences, a sentence a sequence of
part-of-speech tags (Penn Treebank tags from :mod:`creval.pos`, for example).

- **CR-POS**: the compression ratio of the texts' tag sequences: bytes of all tags joined
  by single spaces, divided by the bytes of one gzip pass (level 9) of them. Higher means
  more repetitive syntax.
- **Templates**: the ``top_k`` most frequent POS n-grams (length ``n``) of a set of texts
  (the compared sets jointly, or a reference set). n-grams never cross a sentence
  boundary. Ties in frequency are broken by the tags' text order, so the templates do not
  depend on the order of the texts or on how they are batched.
- A text *contains* a template where one of its POS n-grams equals it. **Template rate**:
  the share of texts that contain at least one template. **Templates per token** (TPT)
  of a text: its number of template occurrences (overlapping ones all count) divided by
  its number of tokens.

Where this differs from the ``diversity`` package (0.3.1) on purpose: that package gzips
twice (its CR reads the size of a gzip file holding gzip-compressed bytes), matches the
*word strings* realising a template as raw substrings of the text (so "cat sat" also
matches inside "tomcat sat"), divides TPT by whitespace words instead of tagged tokens,
and breaks frequency ties by first appearance. We compare POS sequences directly.

Hand calculation: two one-sentence texts with tags ``DT NN VBD`` and ``DT NN VBD DT NN``.
Bigrams: (DT NN) x3, (NN VBD) x2, (VBD DT) x1. With ``top_k=1`` the template is (DT NN):
both texts contain it (rate 1.0); TPT = 1/3 and 2/5.

>>> texts = [[["DT", "NN", "VBD"]], [["DT", "NN", "VBD", "DT", "NN"]]]
>>> t = mine_templates(texts, n=2, top_k=1)
>>> t
[('DT', 'NN')]
>>> template_rate(texts, t), [round(x, 4) for x in templates_per_token(texts, t)]
(1.0, [0.3333, 0.4])
"""

from __future__ import annotations

import gzip
from collections import Counter
from collections.abc import Sequence

__all__ = [
    "DEFAULT_N",
    "DEFAULT_TOP_K",
    "Template",
    "gzip_compression_ratio",
    "TaggedText",
    "mine_templates",
    "pos_compression_ratio",
    "template_counts",
    "template_rate",
    "templates_per_token",
]

#: Defaults of the authors' ``diversity`` package (``extract_patterns(n=5, top_n=100)``).
DEFAULT_N = 5
DEFAULT_TOP_K = 100

Template = tuple[str, ...]
TaggedText = Sequence[Sequence[str]]


def _check_texts(texts: Sequence[TaggedText], *, min_texts: int = 1) -> None:
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise ValueError("texts must be a sequence of tagged texts (lists of sentences of tags).")
    if len(texts) < min_texts:
        raise ValueError(f"This metric needs at least {min_texts} text(s), got {len(texts)}.")
    for i, text in enumerate(texts):
        if isinstance(text, (str, bytes)) or not isinstance(text, Sequence):
            raise ValueError(f"texts[{i}] must be a list of sentences, got {type(text).__name__}.")
        for j, sentence in enumerate(text):
            if isinstance(sentence, (str, bytes)) or not isinstance(sentence, Sequence):
                raise ValueError(f"texts[{i}][{j}] must be a list of tags, got {type(sentence).__name__}.")
            if not all(isinstance(tag, str) and tag and " " not in tag for tag in sentence):
                raise ValueError(f"texts[{i}][{j}] holds a tag that is not a non-empty string without spaces.")


def _positive(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}.")
    return value


def _ngrams(text: TaggedText, n: int) -> list[Template]:
    return [tuple(s[i : i + n]) for s in text for i in range(len(s) - n + 1)]


def gzip_compression_ratio(strings: Sequence[str]) -> float:
    """UTF-8 bytes of the strings joined by single spaces over one gzip pass (level 9).

    The lexical compression ratio of a set of texts (seed 002 section 5.2.1); CR-POS is this
    over tag sequences. The gzip header's timestamp is fixed (``mtime=0``).

    >>> round(gzip_compression_ratio(["ab"] * 100), 3), round(299 / 27, 3)  # 299 bytes -> 27
    (11.074, 11.074)
    """
    if isinstance(strings, (str, bytes)) or not isinstance(strings, Sequence):
        raise ValueError("strings must be a sequence of strings.")
    for i, value in enumerate(strings):
        if not isinstance(value, str):
            raise ValueError(f"strings[{i}] must be a string, got {type(value).__name__}.")
    joined = " ".join(strings).encode("utf-8")
    if not joined:
        raise ValueError("The strings are empty, so the compression ratio is undefined.")
    return len(joined) / len(gzip.compress(joined, compresslevel=9, mtime=0))


def pos_compression_ratio(texts: Sequence[TaggedText]) -> float:
    """CR-POS: bytes of the tags joined by spaces over the bytes of one gzip pass (level 9).

    The gzip header's timestamp is fixed (``mtime=0``), so the value is reproducible.

    ``DT NN`` fifty times joined by spaces is 299 bytes; gzip makes it 30 bytes:

    >>> round(pos_compression_ratio([[["DT", "NN"] * 50]]), 3), round(299 / 30, 3)
    (9.967, 9.967)
    """
    _check_texts(texts)
    sentences = [" ".join(sentence) for text in texts for sentence in text if sentence]
    if not sentences:
        raise ValueError("The texts hold no tags, so CR-POS is undefined.")
    return gzip_compression_ratio(sentences)


def mine_templates(texts: Sequence[TaggedText], *, n: int = DEFAULT_N,
                   top_k: int = DEFAULT_TOP_K) -> list[Template]:
    """The ``top_k`` most frequent POS ``n``-grams over all texts, most frequent first.

    Equal counts are ordered by the tags' text, so the result does not depend on the order
    of the texts. Fewer than ``top_k`` when the texts have fewer distinct n-grams.

    >>> mine_templates([[["A", "B", "A", "B"]], [["B", "A"]]], n=2, top_k=2)
    [('A', 'B'), ('B', 'A')]
    """
    _positive(n, "n")
    _positive(top_k, "top_k")
    _check_texts(texts)
    counts: Counter[Template] = Counter()
    for text in texts:
        counts.update(_ngrams(text, n))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [gram for gram, _ in ranked[:top_k]]


def _template_set(templates: Sequence[Template]) -> tuple[set[Template], int]:
    if not templates:
        raise ValueError("templates is empty: mine them first (the texts may be shorter than n).")
    lengths = {len(t) for t in templates}
    if len(lengths) != 1:
        raise ValueError(f"All templates must have the same length, got lengths {sorted(lengths)}.")
    return {tuple(t) for t in templates}, lengths.pop()


def template_counts(texts: Sequence[TaggedText], templates: Sequence[Template]) -> list[int]:
    """Occurrences of any template in each text (overlapping occurrences all count).

    >>> template_counts([[["A", "A", "A"]], [["B"]]], [("A", "A")])
    [2, 0]
    """
    _check_texts(texts)
    wanted, n = _template_set(templates)
    return [sum(1 for gram in _ngrams(text, n) if gram in wanted) for text in texts]


def template_rate(texts: Sequence[TaggedText], templates: Sequence[Template]) -> float:
    """Share of texts that contain at least one template, in [0, 1].

    >>> template_rate([[["A", "B"]], [["B", "A"]]], [("A", "B")])
    0.5
    """
    counts = template_counts(texts, templates)
    return sum(1 for c in counts if c > 0) / len(counts)


def templates_per_token(texts: Sequence[TaggedText], templates: Sequence[Template]) -> list[float]:
    """Template occurrences of each text divided by its number of tokens (tags).

    A text with no tokens raises ``ValueError`` naming its position.

    >>> templates_per_token([[["A", "B", "C", "A"], ["B"]]], [("A", "B")])
    [0.2]
    """
    counts = template_counts(texts, templates)
    out = []
    for i, (text, count) in enumerate(zip(texts, counts, strict=True)):
        tokens = sum(len(sentence) for sentence in text)
        if tokens == 0:
            raise ValueError(f"texts[{i}] has no tokens, so its templates per token are undefined.")
        out.append(count / tokens)
    return out
