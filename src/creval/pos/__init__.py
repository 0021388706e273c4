"""Part-of-speech tagging behind one protocol (spaCy for English).

>>> get_tagger("spacy").spec
'spacy'
"""

from __future__ import annotations

from creval.errors import CrevalError
from creval.pos.base import CachedTagger, Tagged, Tagger, tags_only
from creval.pos.spacy_tagger import SpacyTagger

__all__ = ["CachedTagger", "SpacyTagger", "Tagged", "Tagger", "get_tagger", "tags_only"]


def get_tagger(spec: str = "spacy", *, batch_size: int = 64) -> Tagger:
    """``spacy`` (packaged English pipeline) or ``spacy:NAME_OR_PATH``. Loads lazily."""
    if spec == "spacy":
        return SpacyTagger(batch_size=batch_size)
    if spec.startswith("spacy:") and spec[6:]:
        return SpacyTagger(spec[6:], batch_size=batch_size)
    raise CrevalError(f"Unknown tagger {spec!r}. Use spacy or spacy:NAME (an installed spaCy pipeline).")
