"""SQLite response cache (WAL), one row per sample.

The key covers the model's identity, every generation parameter, the messages and the
sample index, so the ``n`` samples of one request stay distinct and one model's answers are
never served for another model.

Writes made inside an event loop are written behind: :meth:`ResponseCache.put` keeps the
row in memory (where :meth:`~ResponseCache.get` finds it at once) and the rows put in the
same turn of the loop are committed together, in one transaction, instead of one commit per
answer. (Not in a worker thread: SQLite there fights the loop for the GIL, which cost more
than the commits, measured in ``bench/runner_throughput.py``.) :meth:`~ResponseCache.flushed` returns once every row put before
it is committed (the runner awaits it before a unit counts as finished, so a kill never
loses the cached answers of a finished unit); :meth:`~ResponseCache.close` commits what is
left. Outside an event loop a put is committed before it returns, as before.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable
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
    return cache_keys(model_identity, request, [sample_index])[0]


#: :func:`creval.models.base.canonical_json`'s encoder, made once
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: The fields of a dumped request that are not generation parameters (see ``params()``).
_NOT_PARAMS = ("messages", "n", "first_sample")


def cache_keys(
    model_identity: dict[str, Any], request: GenerateRequest, samples: Iterable[int],
    *, dumped: dict[str, Any] | None = None,
) -> list[str]:
    """:func:`cache_key` of each of ``samples``, from one dump of ``request`` (``dumped``:
    ``request.model_dump(mode="json")`` when the caller has it, as the runner has for the
    record) and one hash of what the samples share.

    The same keys as the digest of ``{"model", "params", "messages", "sample"}``: canonical
    JSON sorts those keys, so the samples' texts differ only in their ends.

    >>> r = GenerateRequest.chat("hi", stop=("x",), logprobs=True, top_logprobs=2, seed=3)
    >>> ident = {"provider": "openai", "model": "m"}
    >>> whole = [digest({"model": ident, "params": r.params(), "sample": i,
    ...                  "messages": [m.model_dump(mode="json") for m in r.messages]})
    ...          for i in range(3)]
    >>> cache_keys(ident, r, range(3)) == whole
    True
    """
    dumped = request.model_dump(mode="json") if dumped is None else dumped
    params = {k: v for k, v in dumped.items() if k not in _NOT_PARAMS}
    if request.logprob_source == "model" or not request.logprobs:
        params.pop("logprob_source", None)
    if request.response_schema is None:
        params.pop("response_schema", None)
    # "sample" sorts last: the text of sample 0 ends in '0}', the rest is what all share
    whole = _CANONICAL.encode(
        {"messages": dumped["messages"], "model": model_identity, "params": params, "sample": 0}
    )
    shared = hashlib.sha256(whole[:-2].encode())
    keys = []
    for sample in samples:
        h = shared.copy()
        h.update(f"{int(sample)}}}".encode())
        keys.append(h.hexdigest())
    return keys


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
        self._db = self._connect()
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses ("
            " key TEXT PRIMARY KEY, model TEXT NOT NULL, created REAL NOT NULL,"
            " completion TEXT NOT NULL)"
        )
        #: rows put and not yet committed: key -> (model, created, completion JSON)
        self._pending: dict[str, tuple[str, float, str]] = {}
        self._flusher: asyncio.Task[None] | None = None
        #: callers of :meth:`flushed` waiting for the next batch to be committed
        self._waiters: list[asyncio.Future[None]] = []

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def _row(self, key: str) -> str | None:
        pending = self._pending.get(key)
        if pending is not None:
            return pending[2]
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
        """Store a :class:`Completion` (or :class:`PromptScores`) under ``key`` (inside an
        event loop: written behind, see the module)."""
        row = (model, time.time(), completion.model_dump_json())
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._insert(self._db, {key: row})
            return
        self._pending[key] = row
        self._start_flusher()

    async def flushed(self) -> None:
        """Return once every row put before this call is committed (raises what the
        commit raised)."""
        if not self._pending and self._flusher is None:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._start_flusher()
        await asyncio.shield(waiter)

    def _start_flusher(self) -> None:
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._write_behind())

    async def _write_behind(self) -> None:
        """Commit the pending rows in one transaction per turn of the loop until none is
        left, then wake the callers of :meth:`flushed`."""
        try:
            while self._pending or self._waiters:
                await asyncio.sleep(0)  # the units finishing in this turn put theirs first
                waiters, self._waiters = self._waiters, []
                try:
                    if self._pending:
                        self._insert(self._db, self._pending)
                        self._pending = {}
                except Exception as exc:  # e.g. the database stayed locked: each waiter raises it
                    for waiter in waiters:
                        if not waiter.done():
                            waiter.set_exception(exc)
                    return  # the rows stay pending: the next put, flushed() or close() tries again
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(None)
        except asyncio.CancelledError:
            for waiter in self._waiters:
                waiter.cancel()
            self._waiters = []
            raise
        finally:
            self._flusher = None

    @staticmethod
    def _insert(db: sqlite3.Connection, rows: dict[str, tuple[str, float, str]]) -> None:
        """Insert ``rows`` in one transaction."""
        db.execute("BEGIN")
        try:
            db.executemany(
                "INSERT OR REPLACE INTO responses (key, model, created, completion) VALUES (?,?,?,?)",
                [(key, *row) for key, row in rows.items()],
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def __len__(self) -> int:
        self._commit_pending()
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def _commit_pending(self) -> None:
        """Commit the rows still pending (say, of a loop that ended before its write behind
        ran)."""
        if self._pending:
            self._insert(self._db, self._pending)
            self._pending = {}

    def close(self) -> None:
        self._commit_pending()
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
