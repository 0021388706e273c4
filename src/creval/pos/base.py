"""Part-of-speech tagging behind one protocol.

A tagger turns texts into sentences of ``(word, tag)`` pairs. Tagging is batched (a list
of texts per call) and cached in memory by text, so the same text is tagged once per
tagger, whatever the batches it comes in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

#: One text: its sentences, each a list of (word, tag) pairs.
Tagged = list[list[tuple[str, str]]]


@runtime_checkable
class Tagger(Protocol):
    """``tag(texts)`` returns one :data:`Tagged` per text, in order."""

    spec: str

    def tag(self, texts: Sequence[str]) -> list[Tagged]: ...

    def identity(self) -> dict[str, Any]: ...


def tags_only(tagged: Tagged) -> list[list[str]]:
    """The tags of a tagged text, sentence by sentence (what :mod:`creval.metrics.templates` takes).

    >>> tags_only([[("A", "DT"), ("cat", "NN")], [("Yes", "UH")]])
    [['DT', 'NN'], ['UH']]
    """
    return [[tag for _, tag in sentence] for sentence in tagged]


class CachedTagger:
    """Base class: subclasses implement ``_tag_batch``; this adds the cache and batching."""

    spec: str = ""

    def __init__(self, *, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._cache: dict[str, Tagged] = {}
        self.tagged_texts = 0  # texts actually sent to the tagger (cache misses)

    def _tag_batch(self, texts: list[str]) -> list[Tagged]:
        raise NotImplementedError

    def identity(self) -> dict[str, Any]:
        return {"spec": self.spec}

    def tag(self, texts: Sequence[str]) -> list[Tagged]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            for text, tagged in zip(batch, self._tag_batch(batch), strict=True):
                self._cache[text] = tagged
            self.tagged_texts += len(batch)
        return [self._cache[t] for t in texts]
