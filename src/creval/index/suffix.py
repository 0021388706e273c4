"""The longest corpus match at every word of many texts, by one vectorised suffix-array search.

A local index (:mod:`creval.index.build`) holds the corpus as tokens (``tokenized.0``) and
infini-gram's suffix array over them (``table.0``: every token position of the corpus, as
a byte offset of ``ratio = ceil(log2(bytes) / 8)`` little-endian bytes, sorted by the bytes
that follow it, as ``memcmp`` orders them). Both files are mapped read-only with
``numpy.memmap``; nothing is loaded.

For a query suffix ``q`` (a text from one word on), the corpus suffixes that share the
longest prefix with it are the two neighbours of the place where ``q`` would be inserted
into the suffix array. So one binary search per word position gives the longest match
starting there, which is what infini-gram's ``creativity()`` answers. All positions of all
texts of a batch are searched together: every step of the binary search is a few numpy
operations over all of them, instead of one engine call (and one thread) per position.

Each comparison starts after the prefix already known to match both ends of the current
interval (the classic ``min(lcp(low), lcp(high))`` rule of Manber and Myers), so the
tokens of a long match are read about once, not once per step. Comparing tokens read
big-endian compares them in ``memcmp`` order. A text's end sorts before every token, and
the corpus's end before that, so neither ever matches; the unknown-word id never occurs in
the corpus and the document separator never occurs in a text, so matches stay inside
words the corpus has and inside one document.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from creval.index.words import TOKENS_PER_WORD, WIDTH_BYTES

#: Tokens compared per gather; most comparisons end at the first token.
CHUNK = 4
#: Word positions searched together at most (bounds the working memory to a few MB).
BLOCK = 1 << 16
_TEXT_END = -1  # after a text's last token: below every token
_CORPUS_END = -2  # past the corpus's last token: below a text's end


class SuffixArray:
    """A read-only view of a local index's ``tokenized.0`` and ``table.0``."""

    def __init__(self, index_dir: Path, width: str) -> None:
        token_bytes = WIDTH_BYTES[width]
        self.width = width
        self.step = TOKENS_PER_WORD[width]
        tokens = np.memmap(index_dir / "tokenized.0", dtype=f">u{token_bytes}", mode="r")
        # A plain ndarray over the same mapping: fancy indexing without memmap's overhead.
        self.tokens: np.ndarray = np.asarray(tokens)
        self.n = len(self.tokens)
        ds_size = self.n * token_bytes
        self.ratio = math.ceil(math.log2(ds_size) / 8) if ds_size > 1 else 1
        self.token_bytes = token_bytes
        if self.ratio in (1, 2, 4, 8):
            self._table: np.ndarray = np.asarray(
                np.memmap(index_dir / "table.0", dtype=f"<u{self.ratio}", mode="r"))
        else:
            self._table = np.asarray(np.memmap(index_dir / "table.0", dtype=np.uint8, mode="r"))
            self._weights = (np.uint64(1) << (np.arange(self.ratio, dtype=np.uint64) * np.uint64(8)))

    def keys(self, ids: Sequence[int]) -> np.ndarray:
        """Token ids as the comparison keys of the mapped corpus (its tokens read big-endian)."""
        little = np.asarray(ids, dtype=f"<u{self.token_bytes}")
        return little.view(f">u{self.token_bytes}").astype(np.int64)

    def _pointers(self, ranks: np.ndarray) -> np.ndarray:
        """Corpus token positions of suffix-array entries ``ranks``."""
        if self.ratio in (1, 2, 4, 8):
            offsets = self._table[ranks].astype(np.int64)
        else:
            raw = self._table[ranks[:, None] * self.ratio + np.arange(self.ratio)]
            offsets = (raw.astype(np.uint64) * self._weights).sum(axis=1).astype(np.int64)
        return offsets // self.token_bytes

    def _compare(self, corpus_at: np.ndarray, query_at: np.ndarray, known: np.ndarray,
                 query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Common prefix length (in tokens) of corpus and query suffixes that share ``known``
        tokens already, and whether the corpus suffix sorts before the query suffix."""
        lcp = known.copy()
        less = np.zeros(len(lcp), dtype=bool)
        todo = np.arange(len(lcp))
        offsets = np.arange(CHUNK)
        last = self.n - 1
        while todo.size:
            start = lcp[todo][:, None] + offsets
            at = corpus_at[todo][:, None] + start
            corpus = self.tokens[np.minimum(at, last)].astype(np.int64)
            corpus[at > last] = _CORPUS_END
            text = query[query_at[todo][:, None] + start]
            differ = corpus != text
            found = differ.any(axis=1)
            first = differ.argmax(axis=1)
            rows = np.flatnonzero(found)
            done = todo[rows]
            lcp[done] += first[rows]
            less[done] = corpus[rows, first[rows]] < text[rows, first[rows]]
            rest = todo[~found]
            lcp[rest] += CHUNK
            todo = rest
        return lcp, less

    def longest_matches(self, query: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Length in tokens of the longest corpus match of ``query[s:]`` for each ``s`` in
        ``starts``; ``query`` holds keys, each text followed by a text end, then ``CHUNK``
        more text ends."""
        count = len(starts)
        low = np.full(count, -1, dtype=np.int64)  # rank known to sort before the query
        high = np.full(count, self.n, dtype=np.int64)  # rank known not to
        lcp_low = np.zeros(count, dtype=np.int64)
        lcp_high = np.zeros(count, dtype=np.int64)
        while True:
            open_ = np.flatnonzero(high - low > 1)
            if not open_.size:
                break
            mid = (low[open_] + high[open_]) // 2
            known = np.minimum(lcp_low[open_], lcp_high[open_])
            lcp, less = self._compare(self._pointers(mid), starts[open_], known, query)
            to_low, to_high = open_[less], open_[~less]
            low[to_low], lcp_low[to_low] = mid[less], lcp[less]
            high[to_high], lcp_high[to_high] = mid[~less], lcp[~less]
        return np.maximum(lcp_low, lcp_high)

    def match_ends(self, texts: Sequence[Sequence[int]]) -> list[list[int]]:
        """For each text (its token ids, :meth:`Vocabulary.encode`) and each of its words
        ``i``, the end of the longest corpus match starting at ``i``, in words."""
        out: list[list[int]] = []
        block: list[Sequence[int]] = []
        size = 0
        for ids in texts:
            if block and size + len(ids) > BLOCK * self.step:
                out += self._block(block)
                block, size = [], 0
            block.append(ids)
            size += len(ids)
        if block:
            out += self._block(block)
        return out

    def _block(self, texts: list[Sequence[int]]) -> list[list[int]]:
        lengths = np.array([len(t) for t in texts], dtype=np.int64)
        begins = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
        query = np.full(int((lengths + 1).sum()) + CHUNK, _TEXT_END, dtype=np.int64)
        for begin, ids in zip(begins.tolist(), texts, strict=True):
            query[begin : begin + len(ids)] = self.keys(ids)
        starts = np.concatenate([begin + np.arange(0, n, self.step) for begin, n in
                                 zip(begins.tolist(), lengths.tolist(), strict=True)] or [np.zeros(0, np.int64)])
        words = self.longest_matches(query, starts.astype(np.int64)) // self.step
        out, at = [], 0
        for n in (lengths // self.step).tolist():
            out.append((np.arange(n) + words[at : at + n]).tolist())
            at += n
        return out
