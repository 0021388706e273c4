"""Query a local word-level infini-gram index built by :func:`creval.index.build.build_index`.

:meth:`LocalIndex.match_ends` gives, for every word position of a text, the end of the
longest span starting there that occurs verbatim in the corpus, which gives the coverage
for every L at once; :meth:`LocalIndex.match_ends_many` does it for a batch of texts in one
vectorised search of the suffix array (:mod:`creval.index.suffix`).
:meth:`LocalIndex.engine_match_ends` is the same answer from infini-gram's own
``creativity()`` query, one engine call (and a thread per word) per text; it is kept to
check the search and to measure it (``bench/``).
:meth:`LocalIndex.reference_spans` is the reference implementation's method (Lu et al.
2024, ``DJ_search_exact.py``): a two-pointer search of growing spans, one count query per
span; it is kept to check the one-query method and to measure the speed-up (``bench/``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from creval.errors import CrevalError, require
from creval.index.build import MANIFEST, VOCAB
from creval.index.suffix import SuffixArray
from creval.index.words import (
    TOKEN_DTYPE,
    TOKENS_PER_WORD,
    WIDTH_BYTES,
    Vocabulary,
    max_vocabulary,
    separator_id,
    unknown_id,
    words,
)

INDEX_FILES = ("tokenized.0", "offset.0", "table.0", VOCAB, MANIFEST)


def read_manifest(index_dir: Path) -> dict[str, Any]:
    """The index's manifest, after checking that its files are there and consistent."""
    if not index_dir.is_dir():
        raise CrevalError(f"Index {index_dir} does not exist. Build one with `creval index build`.")
    missing = [name for name in INDEX_FILES if not (index_dir / name).is_file()]
    if missing:
        raise CrevalError(
            f"Index {index_dir} is missing {', '.join(missing)}: it is not a finished creval "
            "index. Rebuild it with `creval index build`."
        )
    try:
        manifest = json.loads((index_dir / MANIFEST).read_text(encoding="utf-8"))
        width = manifest["id_width"]
        n_docs = int(manifest["documents"])
        n_words = int(manifest["words"])
        vocabulary = int(manifest["vocabulary"])
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        raise CrevalError(f"{index_dir / MANIFEST} is corrupt; rebuild the index.") from None
    if width not in WIDTH_BYTES:
        raise CrevalError(f"{index_dir / MANIFEST}: unknown id width {width!r}; rebuild the index.")
    if vocabulary > max_vocabulary(width):
        raise CrevalError(
            f"Index {index_dir}: a vocabulary of {vocabulary} words does not fit {width} ids; "
            "rebuild the index with --id-width auto."
        )
    _check_sizes(index_dir, width, n_docs, n_words)
    return dict(manifest)


def _check_sizes(index_dir: Path, width: str, n_docs: int, n_words: int) -> None:
    """File sizes the manifest implies; a mismatch means a torn or foreign file."""
    tokens = n_docs + n_words * TOKENS_PER_WORD[width]  # one separator per document
    ds_size = tokens * WIDTH_BYTES[width]
    ratio = math.ceil(math.log2(ds_size) / 8) if ds_size > 1 else 1
    expected = {"tokenized.0": ds_size, "offset.0": 8 * n_docs, "table.0": tokens * ratio}
    for name, size in expected.items():
        actual = (index_dir / name).stat().st_size
        if actual != size:
            raise CrevalError(
                f"Index {index_dir}: {name} has {actual} bytes, the manifest implies {size}. "
                "The index is corrupt or incomplete; rebuild it."
            )


class LocalIndex:
    """A local index opened for queries. ``queries`` counts engine calls."""

    #: Matches of every length are found (the curve of L-uniqueness starts at L = 1).
    min_length = 1

    def __init__(self, index_dir: str | Path) -> None:
        self.path = Path(index_dir)
        self.manifest = read_manifest(self.path)
        self.width: str = self.manifest["id_width"]
        self.vocab = Vocabulary.load(self.path / VOCAB)
        if len(self.vocab) != self.manifest["vocabulary"]:
            raise CrevalError(f"Index {self.path}: vocab.json does not match the manifest; rebuild it.")
        require("infini_gram", package="infini-gram", extra="index", purpose="Querying a local index")
        from infini_gram.engine import InfiniGramEngine

        self.engine = InfiniGramEngine(
            index_dir=str(self.path.resolve()), eos_token_id=unknown_id(self.width),
            vocab_size=separator_id(self.width), token_dtype=TOKEN_DTYPE[self.width],
            # No prefetching: it is for indexes larger than memory; on a local index in the
            # page cache it made creativity() about 3x slower (bench/creativity_index.py).
            ds_prefetch_depth=0, sa_prefetch_depth=0, od_prefetch_depth=0,
        )
        self.suffixes = SuffixArray(self.path, self.width)
        self.queries = 0

    def identity(self) -> dict[str, Any]:
        keys = ("kind", "tokenizer", "id_width", "documents", "words", "vocabulary", "sources")
        return {"path": str(self.path), **{k: self.manifest.get(k) for k in keys}}

    def encode(self, tokens: list[str]) -> list[int]:
        return self.vocab.encode(tokens, self.width)

    def match_ends(self, tokens: list[str]) -> list[int]:
        """For each position i, the end of the longest corpus match starting at i (one query)."""
        return self.match_ends_many([tokens])[0]

    def match_ends_many(self, texts: list[list[str]]) -> list[list[int]]:
        """:meth:`match_ends` of every text, found together; one query per non-empty text."""
        self.queries += sum(1 for tokens in texts if tokens)
        found = iter(self.suffixes.match_ends([self.encode(t) for t in texts if t]))
        return [next(found) if tokens else [] for tokens in texts]

    def engine_match_ends(self, tokens: list[str]) -> list[int]:
        """:meth:`match_ends` by infini-gram's ``creativity()`` (the reference for it)."""
        if not tokens:
            return []
        self.queries += 1
        answer: dict[str, Any] = dict(self.engine.creativity(input_ids=self.encode(tokens)))
        if "error" in answer:
            raise CrevalError(f"Index {self.path}: the engine refused the query: {answer['error']}")
        step = TOKENS_PER_WORD[self.width]  # a u16x2 match of t tokens is t // 2 words
        return [int(r) // step for r in answer["rs"][::step]]

    def count(self, ids: list[int]) -> int:
        self.queries += 1
        answer: dict[str, Any] = dict(self.engine.count(input_ids=ids))
        if "error" in answer:
            raise CrevalError(f"Index {self.path}: the engine refused the query: {answer['error']}")
        return int(answer["count"])

    def reference_spans(self, tokens: list[str], *, min_length: int) -> list[tuple[int, int]]:
        """Matched spans of at least ``min_length`` words, found as the reference code does:
        grow the span while it occurs in the corpus, else slide it; one count per span."""
        ids, step = self.encode(tokens), TOKENS_PER_WORD[self.width]
        spans: list[tuple[int, int]] = []
        first, second = 0, min_length
        while second <= len(tokens):
            if self.count(ids[first * step : second * step]) > 0:
                if spans and first <= spans[-1][0] and spans[-1][1] <= second:
                    spans[-1] = (first, second)
                else:
                    spans.append((first, second))
                second += 1
            else:
                if second - first == min_length:
                    second += 1
                first += 1
        return spans

    @staticmethod
    def words(text: str) -> list[str]:
        return words(text)
