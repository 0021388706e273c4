"""Words and word ids of a local index.

Tokenisation follows the Creativity Index reference implementation (Lu et al. 2024): the
text is transliterated to ASCII with ``unidecode`` and split with nltk's casual (tweet)
tokenizer, which keeps case and keeps punctuation as tokens. Both libraries are used as
they are, imported when first needed.

A :class:`Vocabulary` maps words to integer ids. Two ids at the top of the id width are
reserved: the largest separates documents in the indexer's files, the next one stands for
any word the corpus never had (it never occurs in the index, so it never matches).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from creval.errors import CrevalError, require

IdWidth = Literal["u16", "u32"]
WIDTH_BYTES: dict[str, int] = {"u16": 2, "u32": 4}
TOKENIZER_NAME = "unidecode + nltk casual_tokenize (case and punctuation kept)"


def separator_id(width: str) -> int:
    """The document separator id of the indexer (all bits set)."""
    return (1 << (8 * WIDTH_BYTES[width])) - 1


def unknown_id(width: str) -> int:
    """The id of words not in the vocabulary; it never occurs in the index."""
    return separator_id(width) - 1


def max_vocabulary(width: str) -> int:
    """How many distinct words fit ids of this width (two ids are reserved)."""
    return separator_id(width) - 1


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
        """Ids of known words; unknown words get :func:`unknown_id`.

        >>> Vocabulary(["a", "b"]).encode(["b", "z", "a"], "u16")
        [1, 65534, 0]
        """
        unk = unknown_id(width)
        return [self.ids.get(t, unk) for t in tokens]

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
