"""Is a word a Japanese noun? For the Japanese Divergent Association Task.

The Japanese paper (Fukuda et al. 2025) excludes responses that contain "non-Japanese words,
symbols, or non-nouns", checking nouns with Juman++; its prompt also forbids proper nouns.
:class:`JapaneseNounChecker` does the same with Sudachi (``sudachipy`` and
``sudachidict-core``, extra ``ja``), which installs from PyPI. The two analysers do not
always agree, so exclusion rates can differ slightly from the paper's.

A word is valid when

1. it is written only in Japanese script: hiragana, katakana (with the long-vowel mark ー),
   kanji and the iteration mark 々 (no Latin letters, digits, punctuation or symbols), and
2. every morpheme Sudachi finds in it (split mode C, the longest units) is a noun
   (part of speech ``名詞``), and
3. none of them is a proper noun (``固有名詞``), unless ``allow_proper_nouns=True``.

The text is NFKC-normalised first, so half-width katakana count as katakana.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from creval.errors import require

__all__ = ["JapaneseNounChecker"]

_JAPANESE = re.compile(
    "^[\u3041-\u3096\u309d-\u309f"  # hiragana and its iteration marks
    "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"  # katakana, ー, iteration marks (not ・)
    "\u3005-\u3007"  # 々 〆 〇
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]+$"  # kanji
)

NOUN = "名詞"
PROPER_NOUN = "固有名詞"


class JapaneseNounChecker:
    """Check that a word is a Japanese common noun, with Sudachi.

    Parameters
    ----------
    allow_proper_nouns : bool, default False
        Accept proper nouns (東京, 太郎). The paper's prompt forbids them.
    dictionary : str, default "core"
        Which ``sudachidict_*`` package to use ("small", "core" or "full").

    The Sudachi dictionary is loaded on the first :meth:`check`, not at construction.
    Results are cached per word. Not thread-safe: use one checker per thread.

    Examples
    --------
    >>> checker = JapaneseNounChecker()
    >>> checker.check("冷蔵庫") is None
    True
    >>> checker.check("走る")
    'not a noun: 走る is 動詞'
    >>> checker.check("東京")
    'proper noun: 東京'
    >>> checker.check("cat")
    'not Japanese script: cat'
    """

    def __init__(self, *, allow_proper_nouns: bool = False, dictionary: str = "core") -> None:
        if dictionary not in ("small", "core", "full"):
            raise ValueError(f"dictionary must be 'small', 'core' or 'full', got {dictionary!r}.")
        self.allow_proper_nouns = allow_proper_nouns
        self.dictionary = dictionary
        self._tokenizer: Any = None
        self._cache: dict[str, str | None] = {}

    def _load(self) -> Any:
        if self._tokenizer is None:
            purpose = "Checking Japanese nouns"
            require("sudachipy", package="sudachipy", extra="ja", purpose=purpose)
            require(
                f"sudachidict_{self.dictionary}",
                package=f"sudachidict-{self.dictionary}",
                extra="ja",
                purpose=purpose,
            )
            from sudachipy import Dictionary, SplitMode

            self._tokenizer = Dictionary(dict=self.dictionary).tokenizer(SplitMode.C)
        return self._tokenizer

    def check(self, word: str) -> str | None:
        """None if ``word`` is a valid Japanese noun, else the reason it is not.

        >>> JapaneseNounChecker().check("、")
        'not Japanese script: 、'
        >>> JapaneseNounChecker(allow_proper_nouns=True).check("東京") is None
        True
        """
        if not isinstance(word, str):
            raise ValueError(f"word must be a string, got {type(word).__name__}.")
        if word not in self._cache:
            self._cache[word] = self._check(word)
        return self._cache[word]

    __call__ = check

    def _check(self, word: str) -> str | None:
        text = unicodedata.normalize("NFKC", word).strip()
        if not text:
            return "empty"
        if not _JAPANESE.match(text):
            return f"not Japanese script: {text}"
        for morpheme in self._load().tokenize(text):
            pos = morpheme.part_of_speech()
            if pos[0] != NOUN:
                return f"not a noun: {morpheme.surface()} is {pos[0]}"
            if pos[1] == PROPER_NOUN and not self.allow_proper_nouns:
                return f"proper noun: {morpheme.surface()}"
        return None
