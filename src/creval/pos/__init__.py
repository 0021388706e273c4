"""Part-of-speech tagging behind one protocol: spaCy (English), Sudachi (Japanese).

>>> get_tagger("spacy").spec
'spacy'
"""

from __future__ import annotations

from creval.errors import CrevalError
from creval.pos.base import CachedTagger, Tagged, Tagger, tags_only
from creval.pos.spacy_tagger import SpacyTagger
from creval.pos.sudachi_tagger import SudachiTagger

__all__ = [
    "CachedTagger", "SpacyTagger", "SudachiTagger", "Tagged", "Tagger", "get_tagger", "tags_only",
]


def get_tagger(spec: str = "spacy", *, batch_size: int = 64) -> Tagger:
    """``spacy`` (packaged English pipeline), ``spacy:NAME_OR_PATH``, ``sudachi`` or
    ``sudachi:small|core|full`` (Japanese). Loads lazily."""
    if spec == "sudachi" or spec.startswith("sudachi:"):
        dictionary = spec.partition(":")[2] or "core"
        if dictionary not in ("small", "core", "full"):
            raise CrevalError(f"Unknown Sudachi dictionary {dictionary!r}: use small, core or full.")
        return SudachiTagger(dictionary, batch_size=batch_size)
    if spec == "spacy":
        return SpacyTagger(batch_size=batch_size)
    if spec.startswith("spacy:") and spec[6:]:
        return SpacyTagger(spec[6:], batch_size=batch_size)
    raise CrevalError(
        f"Unknown tagger {spec!r}. Use spacy, spacy:NAME (an installed spaCy pipeline) or sudachi."
    )
