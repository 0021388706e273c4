"""Backend ``embedding:THRESHOLD``: an offline stand-in for entailment, NOT an NLI model.

Two texts whose sentence embeddings have cosine similarity at or above ``THRESHOLD`` are
labelled ``entailment`` (both ways: cosine is symmetric), anything else ``neutral``; it never
says ``contradiction``. Similar wording is not entailment ("the door is open" and "the door
is not open" embed close together), so this only approximates semantic equivalence: its
identity and every result carry ``approximate: True``, and numbers computed with it must not
be compared with numbers from an NLI model. The default embedder is ``minilm``; the default
threshold, 0.85, is a round number, not a calibrated one.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

from creval.embed.base import Embedder, cosine_matrix
from creval.errors import CrevalError
from creval.nli.base import Label, NLIResult, check_pairs

__all__ = ["DEFAULT_EMBEDDING_THRESHOLD", "EmbeddingEntailment", "parse_threshold"]

DEFAULT_EMBEDDING_THRESHOLD = 0.85


def parse_threshold(text: str) -> float:
    """The threshold in an ``embedding:THRESHOLD`` spec (default when empty).

    >>> parse_threshold("0.9"), parse_threshold("")
    (0.9, 0.85)
    >>> parse_threshold("high")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: embedding:THRESHOLD needs a number in [-1, 1], e.g. 'embedding:0.85'; got 'high'.
    """
    if not text.strip():
        return DEFAULT_EMBEDDING_THRESHOLD
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not -1.0 <= value <= 1.0:
        raise CrevalError(
            f"embedding:THRESHOLD needs a number in [-1, 1], e.g. 'embedding:0.85'; got {text!r}."
        )
    return value


class EmbeddingEntailment:
    """Cosine similarity of sentence embeddings thresholded into entailment / neutral."""

    def __init__(self, embedder: Embedder | str | None = None, *, threshold: float = DEFAULT_EMBEDDING_THRESHOLD) -> None:
        if not -1.0 <= threshold <= 1.0:
            raise CrevalError(f"The similarity threshold must be in [-1, 1], got {threshold}.")
        self.threshold = float(threshold)
        self._embedder_arg = embedder if embedder is not None else "minilm"
        self._embedder: Embedder | None = None if isinstance(self._embedder_arg, str) else self._embedder_arg
        self.spec = f"embedding:{self.threshold:g}"

    @property
    def embedder(self) -> Embedder:
        """The embedder, built from its spec on first use."""
        if self._embedder is None:
            from creval.embed import get_embedder

            assert isinstance(self._embedder_arg, str)
            self._embedder = get_embedder(self._embedder_arg)
        return self._embedder

    def identity(self) -> dict[str, Any]:
        return {
            "backend": "embedding",
            "approximate": True,
            "note": "cosine similarity of sentence embeddings, not an entailment model",
            "threshold": self.threshold,
            "embedder": self.embedder.identity(),
        }

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        """Embed each distinct text once, then threshold each pair's cosine similarity."""
        checked = check_pairs(pairs)
        if not checked:
            return []
        texts = list(dict.fromkeys(t for pair in checked for t in pair))
        vectors = await asyncio.to_thread(self.embedder.embed, texts)
        if len(vectors) != len(texts):
            raise CrevalError(
                f"The embedder returned {len(vectors)} vectors for {len(texts)} texts."
            )
        sims = cosine_matrix(vectors, vectors)
        row = {t: i for i, t in enumerate(texts)}
        out = []
        for premise, hypothesis in checked:
            sim = float(sims[row[premise], row[hypothesis]])
            label: Label = "entailment" if sim >= self.threshold else "neutral"
            out.append(NLIResult(label=label, approximate=True, score=sim))
        return out
