"""The run store: a directory with ``manifest.json``, ``records.jsonl`` and ``scores.json``.

``records.jsonl`` is append-only: one line each time a unit of work finishes, written whole
(one ``write`` call) and fsynced before the unit counts as finished. :meth:`RunStore.commit`
is the runner's way: the records of units that finish while an fsync is under way are
written together and share the next fsync (a group commit); write and fsync run in a worker
thread, so the event loop keeps sending requests meanwhile. A unit is reported finished only once the fsync that
covers its line has returned, so a kill at any moment loses at most the units in flight, and
a line that reached the file is never written again (resume skips its key). A unit that
ended in an error and was retried has a later line too; readers take the last line per key (:mod:`creval.records`). A process killed mid-write can leave at most one
partial last line; opening the store cuts it off, so a resumed run never appends to a
broken line and never duplicates a record.

Each line carries a digest chained to the line before (:func:`creval.records.chained_line`);
the head digest and the number of lines go to ``invocations.jsonl`` at the end of each
invocation and to ``scores.json``. Opening a store whose records were changed outside creval
(a line whose digest does not follow, lines removed, a chain that is not the one logged)
raises :class:`CrevalError` naming the first changed line (:func:`creval.records.changed_outside`),
so an edited run is refused, never resumed or re-scored.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.records import (
    HEAD,
    RECORDS,
    Record,
    chained_line,
    changed_outside,
    latest_records,
    read_chain,
    read_records,
)

__all__ = ["RECORDS", "Record", "RunStore", "read_manifest", "read_records", "write_json_atomic"]

MANIFEST = "manifest.json"
SCORES = "scores.json"
INVOCATIONS = "invocations.jsonl"


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _umask_mode()


def write_json_atomic(path: Path, value: Any) -> None:
    """Write JSON to ``path`` through a temporary file and a rename (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(value, fh, ensure_ascii=False, indent=2, default=str)
        fh.write("\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, _FILE_MODE)  # mkstemp makes 0600; the rest of the run is 0644 (umask)
    os.replace(tmp, path)


def read_manifest(root: Path) -> dict[str, Any] | None:
    """The manifest of the run directory ``root``, or None; read-only."""
    path = Path(root) / MANIFEST
    if not path.exists():
        return None
    try:
        value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CrevalError(f"{path} is not valid JSON ({exc}).") from None
    return value


class RunStore:
    """A run directory. Open it, read what is finished, append what finishes next."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.records_path = self.root / RECORDS
        self._repair_tail()
        # records changed outside creval are refused, never resumed or re-scored
        if (problem := changed_outside(self.root)) is not None:
            raise CrevalError(problem)
        chain = read_chain(self.records_path)
        #: the digest of the last line written, and how many lines there are
        self.head, self.lines = chain.head, len(chain.heads)
        self._fh = open(self.records_path, "ab")  # noqa: SIM115 - kept open for the run
        #: lines waiting for the group commit under way, each with its unit's waiter
        self._queued: list[tuple[bytes, asyncio.Future[None]]] = []
        self._committer: asyncio.Task[None] | None = None

    def _repair_tail(self) -> None:
        """Cut a partial last line left by a killed process."""
        if not self.records_path.exists():
            return
        with open(self.records_path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                cut = data.rfind(b"\n") + 1
                fh.truncate(cut)
                fh.flush()
                os.fsync(fh.fileno())

    # -- manifest ---------------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.root / MANIFEST

    def read_manifest(self) -> dict[str, Any] | None:
        return read_manifest(self.root)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_json_atomic(self.manifest_path, manifest)

    # -- records ----------------------------------------------------------------------------
    def records(self) -> list[Record]:
        return read_records(self.records_path)

    def latest(self) -> dict[str, Record]:
        """The last record per unit key (a retried error is replaced by its success)."""
        return latest_records(self.records())

    def append(self, record: Record) -> None:
        """Write ``record`` and fsync it before returning."""
        self._write(self._chained(record))
        os.fsync(self._fh.fileno())

    def _chained(self, record: Record) -> bytes:
        """``record``'s line, its digest chained to the line queued before it."""
        line, self.head = chained_line(record, self.head)
        self.lines += 1
        return line

    def _write(self, data: bytes) -> None:
        # whole lines in one write call: a kill leaves at most one partial last line
        self._fh.write(data)
        self._fh.flush()

    def _write_and_sync(self, data: bytes) -> None:
        self._write(data)
        os.fsync(self._fh.fileno())

    def queue(self, record: Record) -> asyncio.Future[None]:
        """Queue ``record`` for the group commit (see the module); the future is done once
        its line is written and fsynced.

        Lines reach the file in the order they were queued: with the next batch, written as
        soon as no fsync is under way. Cancelling a waiter does not take back its line.
        """
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queued.append((self._chained(record), waiter))
        if self._committer is None:
            self._committer = asyncio.create_task(self._group_commit())
        return waiter

    async def commit(self, record: Record) -> None:
        """Append ``record``; return once it is fsynced (shares fsyncs, see :meth:`queue`)."""
        await asyncio.shield(self.queue(record))

    async def _group_commit(self) -> None:
        """Write and fsync queued lines, batch after batch, until none is left."""
        try:
            while self._queued:
                batch, self._queued = self._queued, []
                try:
                    await asyncio.to_thread(self._write_and_sync, b"".join(line for line, _ in batch))
                except asyncio.CancelledError:
                    for _, waiter in [*batch, *self._queued]:
                        waiter.cancel()
                    self._queued = []
                    raise
                except Exception as exc:  # each unit's commit raises it (e.g. disk full)
                    for _, waiter in [*batch, *self._queued]:
                        if not waiter.done():
                            waiter.set_exception(exc)
                    self._queued = []
                    return
                for _, waiter in batch:
                    if not waiter.done():
                        waiter.set_result(None)
        finally:
            self._committer = None

    # -- scores and invocations -------------------------------------------------------------
    def write_scores(self, scores: dict[str, Any]) -> None:
        write_json_atomic(self.root / SCORES, scores)

    def read_scores(self) -> dict[str, Any] | None:
        path = self.root / SCORES
        if not path.exists():
            return None
        try:
            value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            return None
        return value

    def log_invocation(self, entry: dict[str, Any]) -> None:
        path = self.root / INVOCATIONS
        # a line cut by a kill is closed first, so this entry starts on a line of its own
        cut = path.exists() and path.stat().st_size > 0 and not path.read_bytes().endswith(b"\n")
        with open(path, "a", encoding="utf-8") as fh:
            chain = read_chain(self.records_path)  # as on disk (queued lines may have been cancelled)
            line = json.dumps({"time": time.time(), **entry, HEAD: chain.head,
                               "records_lines": len(chain.heads)}, ensure_ascii=False)
            fh.write(("\n" if cut else "") + line + "\n")

    def invocations(self) -> list[dict[str, Any]]:
        path = self.root / INVOCATIONS
        if not path.exists():
            return []
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by a kill
        return out

    def records_digest(self) -> str:
        import hashlib

        h = hashlib.sha256()
        if self.records_path.exists():
            with open(self.records_path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
        return h.hexdigest()

    def close(self) -> None:
        self._fh.close()
