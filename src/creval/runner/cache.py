"""SQLite response cache (WAL), one row per sample.

The key covers the model's identity, every generation parameter, the messages and the
sample index, so the ``n`` samples of one request stay distinct and one model's answers are
never served for another model.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from creval._util.paths import cache_root
from creval.models.base import Completion, GenerateRequest, digest
from creval.models.prompt_scoring import PromptRequest, PromptScores


def default_cache_path() -> Path:
    """``responses.sqlite`` in :func:`creval._util.paths.cache_root`."""
    return cache_root() / "responses.sqlite"


def cache_key(model_identity: dict[str, Any], request: GenerateRequest, sample_index: int) -> str:
    """The cache key of sample ``sample_index`` of ``request`` from the model ``model_identity``.

    ``request.n`` is not part of the key: sample 3 is the same sample whether it was asked
    for alone or as part of a batch of five.

    >>> r = GenerateRequest.chat("hi", temperature=0.7, seed=1)
    >>> k0 = cache_key({"provider": "local"}, r, 0)
    >>> k0 == cache_key({"provider": "local"}, r.with_n(4), 0)
    True
    >>> k0 == cache_key({"provider": "local"}, r, 1)
    False
    >>> k0 == cache_key({"provider": "openai"}, r, 0)
    False
    """
    return digest(
        {
            "model": model_identity,
            "params": request.params(),
            "messages": [m.model_dump(mode="json") for m in request.messages],
            "sample": sample_index,
        }
    )


def prompt_cache_key(model_identity: dict[str, Any], request: PromptRequest) -> str:
    """The cache key of the prompt log-probabilities of ``request`` (text, window, stride).

    >>> a = prompt_cache_key({"provider": "local"}, PromptRequest(text="hi"))
    >>> a == prompt_cache_key({"provider": "local"}, PromptRequest(text="hi", window=64))
    False
    """
    return digest({"kind": "prompt_logprobs", "model": model_identity, "request": request.model_dump(mode="json")})


class ResponseCache:
    """A persistent map from :func:`cache_key` to :class:`Completion`."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses ("
            " key TEXT PRIMARY KEY, model TEXT NOT NULL, created REAL NOT NULL,"
            " completion TEXT NOT NULL)"
        )

    def _row(self, key: str) -> str | None:
        row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def get(self, key: str) -> Completion | None:
        row = self._row(key)
        return None if row is None else Completion.model_validate_json(row)

    def get_prompt_scores(self, key: str) -> PromptScores | None:
        """The prompt log-probabilities stored under :func:`prompt_cache_key`."""
        row = self._row(key)
        return None if row is None else PromptScores.model_validate_json(row)

    def put(self, key: str, model: str, completion: BaseModel) -> None:
        """Store a :class:`Completion` (or :class:`PromptScores`) under ``key``."""
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, model, created, completion) VALUES (?,?,?,?)",
            (key, model, time.time(), completion.model_dump_json()),
        )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def open_cache(path: Path | None = None, *, enabled: bool = True) -> ResponseCache | None:
    """The response cache at ``path`` (default: the one ``creval run`` uses), or None when
    ``enabled`` is False (``--no-cache``); the caller closes it."""
    return ResponseCache(path or default_cache_path()) if enabled else None


def cached_generate(model: Any, store: ResponseCache | None) -> Callable[[GenerateRequest], Awaitable[list[Completion]]]:
    """``model.generate`` answering one-sample requests from ``store`` when they were asked
    before (and storing new answers), for instruments called outside a run (``None``: no cache).
    Requests for several samples go to the model each time."""

    async def generate(request: GenerateRequest) -> list[Completion]:
        if store is None or request.n != 1:
            return list(await model.generate(request))
        key = cache_key(model.identity(), request, 0)
        hit = store.get(key)
        if hit is not None:
            return [hit]
        out: list[Completion] = await model.generate(request)
        if out:
            store.put(key, model.spec, out[0])
        return out

    return generate
