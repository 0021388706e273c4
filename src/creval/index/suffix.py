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

The search starts from a sample of the suffix array kept in memory (the first 16 bytes of
every 64th suffix, built on the first query): ``numpy.searchsorted`` brackets every query
between two samples at C speed, which leaves about 8 of the ~25 binary-search steps to do
on the mapped files (on the bench's 10.9M-word index: 10 comparisons per word position
with both brackets, against 25 without the sample and 16 with 8-byte keys). Each comparison starts after the prefix
already known to match both ends of the current interval (the classic ``min(lcp(low), lcp(high))`` rule of Manber and Myers), so the
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

#: Tokens compared by the first gather (most comparisons end at the first token); each
#: further gather of a comparison still running reads twice as many, up to MAX_CHUNK.
CHUNK = 4
MAX_CHUNK = 256
#: Word positions searched together at most (bounds the working memory to a few MB).
BLOCK = 1 << 16
_TEXT_END = -1  # after a text's last token: below every token
_CORPUS_END = -2  # past the corpus's last token: below a text's end
#: Every STRIDE-th suffix is sampled (more for very large indexes: at most ~1M samples).
STRIDE = 64
#: Bytes of a sample's key (8 tokens of 16 bits).
KEY_BYTES = 16


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
        # Sample keys: the first KEY_BYTES bytes of a suffix, both ends read as 0 (see _pack).
        self._key_tokens = KEY_BYTES // token_bytes
        self._sample_ranks: np.ndarray | None = None
        self._sample_keys = np.zeros(0, dtype=f"S{KEY_BYTES}")

    def _pack(self, tokens: np.ndarray) -> np.ndarray:
        """The first ``_key_tokens`` columns of ``tokens`` (keys; ends < 0) as byte strings
        that numpy orders as ``memcmp`` does.

        An end packs as 0, like token 0, so two sequences can pack equal and still differ
        (undecided: the binary search decides), but a smaller packed key always means a
        smaller sequence: after a text's end a text packs only zeros, and so does the corpus
        after its end."""
        columns = np.maximum(tokens[:, : self._key_tokens], 0).astype(f">u{self.token_bytes}")
        return np.ascontiguousarray(columns).view(f"S{KEY_BYTES}").ravel()

    def _corpus_tokens(self, at: np.ndarray) -> np.ndarray:
        """Corpus keys at token positions ``at`` (any shape), the corpus end past the last."""
        last = self.n - 1
        corpus = self.tokens[np.minimum(at, last)].astype(np.int64)
        corpus[at > last] = _CORPUS_END
        return corpus

    def _samples(self) -> tuple[np.ndarray, np.ndarray]:
        if self._sample_ranks is None:
            stride = max(STRIDE, self.n >> 20)
            ranks = np.arange(0, self.n, stride, dtype=np.int64)
            at = self._pointers(ranks)[:, None] + np.arange(self._key_tokens)
            self._sample_keys = self._pack(self._corpus_tokens(at))
            self._sample_ranks = ranks
        return self._sample_ranks, self._sample_keys

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
        chunk = CHUNK
        while todo.size:
            start = lcp[todo][:, None] + np.arange(chunk)
            corpus = self._corpus_tokens(corpus_at[todo][:, None] + start)
            text = query[query_at[todo][:, None] + start]
            differ = corpus != text
            found = differ.any(axis=1)
            first = differ.argmax(axis=1)
            rows = np.flatnonzero(found)
            done = todo[rows]
            lcp[done] += first[rows]
            less[done] = corpus[rows, first[rows]] < text[rows, first[rows]]
            rest = todo[~found]
            lcp[rest] += chunk
            todo = rest
            chunk = min(2 * chunk, MAX_CHUNK)
        return lcp, less

    def longest_matches(self, query: np.ndarray, starts: np.ndarray) -> np.ndarray:
        """Length in tokens of the longest corpus match of ``query[s:]`` for each ``s`` in
        ``starts``; ``query`` holds keys, each text followed by a text end, then ``MAX_CHUNK``
        more text ends."""
        count = len(starts)
        ranks, keys = self._samples()
        wanted = self._pack(query[starts[:, None] + np.arange(self._key_tokens)])
        # Samples with a smaller key sort before the query, with a larger one after it.
        before = np.searchsorted(keys, wanted, side="left") - 1
        after = np.searchsorted(keys, wanted, side="right")
        low = np.where(before >= 0, ranks[np.maximum(before, 0)], -1)  # sorts before the query
        high = np.where(after < len(ranks), ranks[np.minimum(after, len(ranks) - 1)], self.n)  # does not
        lcp_low = np.zeros(count, dtype=np.int64)
        lcp_high = np.zeros(count, dtype=np.int64)
        for bound, lcp_bound in ((low, lcp_low), (high, lcp_high)):
            inside = np.flatnonzero((bound >= 0) & (bound < self.n))
            lcp_bound[inside] = self._compare(self._pointers(bound[inside]), starts[inside],
                                              np.zeros(len(inside), dtype=np.int64), query)[0]
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
        query = np.full(int((lengths + 1).sum()) + MAX_CHUNK, _TEXT_END, dtype=np.int64)
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
