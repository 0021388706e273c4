"""A deterministic test embedder for the judges' vector stores."""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np


class HashEmbedder:
    """Deterministic bag-of-words embedder: each word hashed into one of 64 dimensions."""

    spec = "hash64"

    def identity(self) -> dict[str, Any]:
        return {"spec": self.spec}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, zlib.crc32(word.encode()) % 64] += 1.0
        return out
