"""Japanese tagging with Sudachi (``sudachipy`` and ``sudachidict-core``, extra ``ja``).

Tags are the first two levels of Sudachi's part of speech joined by ``-`` (``名詞-普通名詞``,
``助詞-格助詞``), a granularity close to the Penn Treebank's. Split mode C (longest units).
A sentence ends after a full stop token (``補助記号-句点``: 。．！？) or at a line break.
"""

from __future__ import annotations

from typing import Any

from creval.errors import require
from creval.pos.base import CachedTagger, Tagged

SENTENCE_END = "補助記号-句点"


class SudachiTagger(CachedTagger):
    """``sudachi`` (core dictionary) or ``sudachi:small|core|full``."""

    def __init__(self, dictionary: str = "core", *, batch_size: int = 64) -> None:
        super().__init__(batch_size=batch_size)
        self.spec = "sudachi" if dictionary == "core" else f"sudachi:{dictionary}"
        self.dictionary = dictionary
        self._tokenizer: Any = None

    def _load(self) -> Any:
        if self._tokenizer is None:
            require("sudachipy", package="sudachipy", extra="ja", purpose="Japanese POS tagging")
            require(f"sudachidict_{self.dictionary}", package=f"sudachidict-{self.dictionary}",
                    extra="ja", purpose="Japanese POS tagging")
            from sudachipy import SplitMode, dictionary

            self._tokenizer = dictionary.Dictionary(dict=self.dictionary).tokenizer(mode=SplitMode.C)
        return self._tokenizer

    def cache_key(self) -> str | None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return (f"{self.spec}|sudachipy={version('sudachipy')}|"
                    f"sudachidict-{self.dictionary}={version(f'sudachidict-{self.dictionary}')}|C|2-levels")
        except PackageNotFoundError:
            return None

    def identity(self) -> dict[str, Any]:
        return {"spec": self.spec, "tags": "Sudachi part of speech, first two levels", "mode": "C"}

    def _tag_batch(self, texts: list[str]) -> list[Tagged]:
        out: list[Tagged] = []
        for text in texts:
            sentences: Tagged = []
            for line in text.splitlines():
                current: list[tuple[str, str]] = []
                for m in self._load().tokenize(line):
                    if not m.surface().strip():
                        continue
                    pos = m.part_of_speech()
                    tag = pos[0] if pos[1] == "*" else f"{pos[0]}-{pos[1]}"
                    current.append((m.surface(), tag))
                    if tag == SENTENCE_END:
                        sentences.append(current)
                        current = []
                if current:
                    sentences.append(current)
            out.append(sentences)
        return out
