"""Stand-in embedders for planning (``--plan``): no model is loaded, nothing is meaningful.

A plan drives every unit of a study with stand-in answers to count its requests
(:func:`creval.benchmarks.simulate.simulate_units`). Some units embed texts on the way (the
multi-agent judge retrieves fragments of the discussion before each judge request), and
loading and running a sentence model for that took most of a plan's minute. Within
:func:`stand_in_embedders`, :func:`creval.embed.get_embedder` gives a
:class:`StandInEmbedder` instead: words hashed into a small vector, so retrieval still
returns as many fragments (and the judge's prompts are as long), only other ones.

>>> with stand_in_embedders():
...     embedder = StandInEmbedder("minilm")
...     standing_in()
True
>>> standing_in()
False
>>> embedder.embed(["a cat", "a cat", "the dog"]).shape
(3, 64)
>>> bool((embedder.embed(["a cat"]) == embedder.embed(["a cat"])).all())
True
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import Any

import numpy as np

_STAND_IN: ContextVar[bool] = ContextVar("creval_stand_in_embedders", default=False)
DIMENSION = 64


@contextlib.contextmanager
def stand_in_embedders() -> Iterator[None]:
    """Within the block (and the tasks and threads it starts), embedders are stand-ins."""
    token = _STAND_IN.set(True)
    try:
        yield
    finally:
        _STAND_IN.reset(token)


def standing_in() -> bool:
    """Whether embedders are stand-ins here (see :func:`stand_in_embedders`)."""
    return _STAND_IN.get()


class StandInEmbedder:
    """Each word hashed to one of :data:`DIMENSION` axes, counted and normalised."""

    def __init__(self, spec: str) -> None:
        self.spec = f"stand-in:{spec}"

    def identity(self) -> dict[str, Any]:
        return {"backend": "stand-in", "spec": self.spec}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                axis = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=2).digest(), "big")
                out[row, axis % DIMENSION] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out[:, 0] += (norms[:, 0] == 0)  # an empty text still has a direction
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
