"""Part-of-speech tagging behind one protocol.

A tagger turns texts into sentences of ``(word, tag)`` pairs. Tagging is batched (a list
of texts per call) and cached by text: in memory, and on disk when the tagger has a
``cache_key`` (a SQLite file under ``$CREVAL_CACHE_DIR/pos``, keyed by the tagger's name
and version and the text), so re-scoring a run does not tag its texts again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
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


class DiskCache:
    """Tagged texts in one SQLite file (WAL), keyed by sha256 of tagger key and text."""

    def __init__(self, path: Path, key: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.key = key
        self.db = sqlite3.connect(path, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS tagged (k TEXT PRIMARY KEY, v TEXT NOT NULL)")

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.key}\0{text}".encode()).hexdigest()

    def get(self, texts: list[str]) -> dict[str, Tagged]:
        found = {}
        for text in texts:
            row = self.db.execute("SELECT v FROM tagged WHERE k = ?", (self._key(text),)).fetchone()
            if row is not None:
                found[text] = [[(w, t) for w, t in sentence] for sentence in json.loads(row[0])]
        return found

    def put(self, items: dict[str, Tagged]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO tagged VALUES (?, ?)",
                                [(self._key(t), json.dumps(v, ensure_ascii=False)) for t, v in items.items()])


class CachedTagger:
    """Base class: subclasses implement ``_tag_batch``; this adds the caches and batching."""

    spec: str = ""

    def __init__(self, *, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._cache: dict[str, Tagged] = {}
        self._disk: DiskCache | None = None
        self.tagged_texts = 0  # texts actually sent to the tagger (cache misses)

    def _tag_batch(self, texts: list[str]) -> list[Tagged]:
        raise NotImplementedError

    def cache_key(self) -> str | None:
        """What identifies this tagger's output (name and versions); None: no disk cache."""
        return None

    def identity(self) -> dict[str, Any]:
        return {"spec": self.spec}

    def _disk_cache(self) -> DiskCache | None:
        if self._disk is None and os.environ.get("CREVAL_POS_CACHE", "1") != "0":
            key = self.cache_key()
            if key is not None:
                from creval._util.paths import cache_root

                self._disk = DiskCache(cache_root() / "pos" / "tagged.sqlite", key)
        return self._disk

    def tag(self, texts: Sequence[str]) -> list[Tagged]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        disk = self._disk_cache() if missing else None
        if disk is not None:
            self._cache.update(disk.get(missing))
            missing = [t for t in missing if t not in self._cache]
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            tagged = dict(zip(batch, self._tag_batch(batch), strict=True))
            self._cache.update(tagged)
            if disk is not None:
                disk.put(tagged)
            self.tagged_texts += len(batch)
        return [self._cache[t] for t in texts]
