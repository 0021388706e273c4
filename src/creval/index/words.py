"""Words and word ids of a local index.

Tokenisation follows the Creativity Index reference implementation (Lu et al. 2024): the
text is transliterated to ASCII with ``unidecode`` and split with nltk's casual (tweet)
tokenizer, which keeps case and keeps punctuation as tokens. Both libraries are used as
they are, imported when first needed.

A :class:`Vocabulary` maps words to integer ids. Two ids at the top of the id width are
reserved: the largest separates documents in the indexer's files, the next one stands for
any word the corpus never had (it never occurs in the index, so it never matches).

Three id widths: ``u16`` (one 16-bit token per word, at most 65,534 words), ``u32`` (one
32-bit token per word; the infini-gram 2.6.0 indexer then allocates 32 GiB) and ``u16x2``
(two 16-bit tokens per word, for any larger vocabulary on an ordinary machine). In
``u16x2`` word ``v`` is the token pair ``(v // 32767, 32767 + v % 32767)``: first tokens
lie in ``0..32766`` and second tokens in ``32767..65533``, so a match that starts at a word
start can only meet the corpus at a word start, and a match of ``t`` tokens is ``t // 2``
whole words.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from creval.errors import CrevalError, require

IdWidth = Literal["u16", "u32", "u16x2"]
#: Bytes per token (a ``u16x2`` word is two tokens).
WIDTH_BYTES: dict[str, int] = {"u16": 2, "u32": 4, "u16x2": 2}
#: Tokens per word.
TOKENS_PER_WORD: dict[str, int] = {"u16": 1, "u32": 1, "u16x2": 2}
#: The infini-gram token dtype of each width.
TOKEN_DTYPE: dict[str, str] = {"u16": "u16", "u32": "u32", "u16x2": "u16"}
#: Values of the second token of a ``u16x2`` word (and of the first: ``0 .. HALF - 1``).
HALF = 32767
TOKENIZER_NAME = "unidecode + nltk casual_tokenize (case and punctuation kept)"


def separator_id(width: str) -> int:
    """The document separator id of the indexer (all bits set)."""
    return (1 << (8 * WIDTH_BYTES[width])) - 1


def unknown_id(width: str) -> int:
    """The id of words not in the vocabulary; it never occurs in the index."""
    return separator_id(width) - 1


def max_vocabulary(width: str) -> int:
    """How many distinct words fit ids of this width (two ids are reserved)."""
    if width == "u16x2":
        return HALF * HALF
    return separator_id(width) - 1


def word_tokens(ids: Any, width: str) -> Any:
    """Word ids (a numpy integer array) as the index's tokens: the same for ``u16`` and
    ``u32``, two tokens per word for ``u16x2``.

    >>> import numpy as np
    >>> word_tokens(np.array([0, 32768]), "u16x2").tolist()
    [0, 32767, 1, 32768]
    """
    import numpy as np

    if width != "u16x2":
        return ids
    out = np.empty(2 * len(ids), dtype=np.int64)
    out[0::2] = ids // HALF
    out[1::2] = HALF + ids % HALF
    return out


_tokenize: Any = None


def words(text: str) -> list[str]:
    """The words of ``text`` as the Creativity Index counts them.

    >>> words("Café — it's “fine”!")  # the em dash becomes "--", two tokens
    ['Cafe', '-', '-', "it's", '"', 'fine', '"', '!']
    """
    global _tokenize
    if _tokenize is None:
        require("nltk", package="nltk", extra="index", purpose="Word tokenisation for the Creativity Index")
        require("unidecode", package="unidecode", extra="index", purpose="Word tokenisation for the Creativity Index")
        from nltk.tokenize.casual import casual_tokenize
        from unidecode import unidecode

        def _tokenize(value: str) -> list[str]:
            return list(casual_tokenize(unidecode(value), preserve_case=True, reduce_len=False))

    if not isinstance(text, str):
        raise CrevalError(f"A text must be a string, got {type(text).__name__}.")
    return list(_tokenize(text))


class Vocabulary:
    """Word -> id, in order of first appearance."""

    def __init__(self, words_in_order: Iterable[str] = ()) -> None:
        self.ids: dict[str, int] = {}
        for word in words_in_order:
            self.add(word)

    def __len__(self) -> int:
        return len(self.ids)

    def add(self, word: str) -> int:
        found = self.ids.get(word)
        if found is None:
            found = self.ids[word] = len(self.ids)
        return found

    def encode(self, tokens: Iterable[str], width: str) -> list[int]:
        """The index tokens of the words: known words' ids, :func:`unknown_id` for the
        others; in ``u16x2`` two tokens per word (an unknown word is two unknown ids).

        >>> Vocabulary(["a", "b"]).encode(["b", "z", "a"], "u16")
        [1, 65534, 0]
        >>> Vocabulary(["a", "b"]).encode(["b", "z"], "u16x2")
        [0, 32768, 65534, 65534]
        """
        unk = unknown_id(width)
        if width != "u16x2":
            return [self.ids.get(t, unk) for t in tokens]
        out: list[int] = []
        for t in tokens:
            v = self.ids.get(t)
            out += (unk, unk) if v is None else (v // HALF, HALF + v % HALF)
        return out

    def fits(self, width: str) -> bool:
        return len(self.ids) <= max_vocabulary(width)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(list(self.ids), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Vocabulary:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise CrevalError(f"The index vocabulary {path} cannot be read ({exc}); rebuild the index.") from None
        if not isinstance(data, list) or not all(isinstance(w, str) for w in data):
            raise CrevalError(f"The index vocabulary {path} is not a JSON list of words; rebuild the index.")
        vocab = cls(data)
        if len(vocab) != len(data):
            raise CrevalError(f"The index vocabulary {path} repeats words; rebuild the index.")
        return vocab
