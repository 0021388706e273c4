"""Records share fsyncs and cache rows share transactions, and still: a unit counts as
finished only once its record is on disk, and kill -9 at any moment loses at most the units
in flight and never duplicates a record."""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from creval.models.base import Capabilities, Completion, GenerateRequest, Usage
from creval.runner import ResponseCache, Runner, RunStore, Unit, UnitContext
from creval.runner import store as store_module
from creval.runner.store import Record, read_records


class _Instant:
    """A model that answers at once (no server), so units finish many to a turn of the loop."""

    spec = "instant"
    capabilities = Capabilities()
    max_concurrency = 64

    def identity(self) -> dict[str, Any]:
        return {"provider": "instant"}

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        await asyncio.sleep(0)
        text = request.messages[-1].content
        return [Completion(text=f"answer to {text}", usage=Usage(output_tokens=2))] * request.n

    async def aclose(self) -> None:
        pass


def _units(n: int) -> list[Unit]:
    def make(i: int) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, Any]:
            (c,) = await ctx.generate(GenerateRequest.chat(f"q{i}"))
            return {"text": c.text}

        return Unit(key=f"u{i}", run=run)

    return [make(i) for i in range(n)]


def test_records_share_fsyncs_and_each_is_on_disk_before_it_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RunStore(tmp_path / "run")
    synced: set[str] = set()  # keys whose line was in the file when an fsync ran
    fsyncs = 0
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        nonlocal fsyncs
        fsyncs += 1
        real_fsync(fd)
        synced.update(r.key for r in read_records(store.records_path))

    monkeypatch.setattr(store_module.os, "fsync", fsync)
    cache = ResponseCache(tmp_path / "cache.sqlite")
    runner = Runner(store, {"target": _Instant()}, cache=cache, progress=False)
    counted: list[str] = []
    real_queue = store.queue

    def queue(record: Record) -> asyncio.Future[None]:
        waiter = real_queue(record)
        # when the runner learns the record is durable, its fsync has run
        waiter.add_done_callback(lambda _: counted.append(record.key) if record.key in synced else None)
        return waiter

    monkeypatch.setattr(store, "queue", queue)
    written = asyncio.run(runner.run(_units(200), concurrency=32))
    assert len(written) == 200 == runner.counters.units_ok
    assert sorted(counted) == sorted(r.key for r in written), "a unit counted before its fsync"
    assert fsyncs < 100, f"{fsyncs} fsyncs for 200 records: no group commit"
    keys = [r.key for r in read_records(store.records_path)]
    assert sorted(keys) == sorted(f"u{i}" for i in range(200)) and len(set(keys)) == 200
    # every answer's cache row is committed, seen by another connection
    other = sqlite3.connect(str(tmp_path / "cache.sqlite"))
    assert other.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 200
    other.close()
    store.close()
    cache.close()


def test_cache_rows_are_readable_at_once_and_committed_together(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    other = sqlite3.connect(str(tmp_path / "c.sqlite"))

    def committed() -> int:
        return int(other.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    async def go() -> None:
        for i in range(5):
            cache.put(f"k{i}", "m", Completion(text=str(i)))
        hit = cache.get("k3")
        assert hit is not None and hit.text == "3"  # before any commit
        assert committed() == 0
        await cache.flushed()
        assert committed() == 5
        cache.put("late", "m", Completion(text="late"))  # the loop ends before its commit

    asyncio.run(go())
    cache.close()  # commits what is left
    assert committed() == 6
    other.close()
    again = ResponseCache(tmp_path / "c.sqlite")
    late = again.get("late")
    assert late is not None and late.text == "late"
    again.close()


def test_a_failed_group_commit_fails_its_units_not_silently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = RunStore(tmp_path)

    def broken(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.os, "fsync", broken)

    async def go() -> None:
        with pytest.raises(OSError, match="No space left"):
            await asyncio.gather(*(store.commit(Record(key=f"k{i}", status="ok")) for i in range(3)))

    asyncio.run(go())
    store.close()


@pytest.mark.slow
def test_kill_minus_nine_during_group_commits_then_resume(tmp_path: Path) -> None:
    """Many runs killed at random moments; every record a kill left is whole and unique,
    every unit the runner had counted finished is in the file, and resuming completes the
    set exactly once."""
    n = 20000
    run, cache = tmp_path / "run", tmp_path / "cache.sqlite"
    child = tmp_path / "child.py"
    child.write_text(textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(Path(__file__).parents[1])!r})
        from runner.test_group_commit import _Instant, _units
        from creval.runner import ResponseCache, Runner, RunStore

        store = RunStore({str(run)!r})
        runner = Runner(store, {{"target": _Instant()}}, cache=ResponseCache({str(cache)!r}),
                        progress=False)
        real_queue = store.queue

        def queue(record):
            waiter = real_queue(record)
            # the runner counts the unit finished when this is done: say so on stdout
            waiter.add_done_callback(lambda _: print(record.key, flush=True))
            return waiter

        store.queue = queue
        asyncio.run(runner.run(_units({n}), concurrency=64))
        """
    ))
    reported: set[str] = set()
    cut = []  # records on disk after each kill
    for delay in (0.0, 0.1, 0.2, 0.35, 0.5):
        proc = subprocess.Popen([sys.executable, str(child)], stdout=subprocess.PIPE, text=True)
        # the kill is timed from the child's first finished unit, not from its start: on a
        # loaded machine importing creval alone can take seconds
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 300)
        first = proc.stdout.readline() if ready else ""
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        reported.update((first + out).split())
        lines = (run / "records.jsonl").read_bytes().split(b"\n") if (run / "records.jsonl").exists() else []
        keys = [json.loads(line)["key"] for line in lines[:-1]]  # the last may be cut
        assert len(keys) == len(set(keys)), "a record was duplicated"
        assert reported <= set(keys), "a unit counted as finished lost its record"
        cut.append(len(keys))
    assert sum(0 < k < n for k in cut) >= 2, f"kills did not land mid-run: {cut}"
    done = subprocess.run([sys.executable, str(child)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    keys = [r.key for r in read_records(run / "records.jsonl")]
    assert len(keys) == len(set(keys)) == n
