"""The soak at scale (issue 20, item 4): units at concurrency 64 through the real runner, run
store, response cache and ``openai:`` backend against a flaky loopback server (503s, 429s
with Retry-After, dropped connections, stalls past the client's timeout), under the local and
the Ray executor. The driver (``bench/soak.py``) runs as a subprocess and is SIGKILLed at
~1,200 and ~2,400 records of 4,000 and resumed each time; then every unit is recorded exactly
once with the server's answer, and the server saw no request for a unit finished before a
restart. Memory is watched over one uninterrupted run of 10,000 units (the 2,000th to the
10,000th). ``bench/soak.py`` runs the killed soak at 10,000 (bench/README.md, "Soak at
scale"); here 4,000 are enough for two kills that land mid-run, with every kind of failure
injected before each (issue 45: the killed soaks were 2 x ~45 s of CI's suite)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _flaky_server import FlakyServer, answer_for, start_flaky_server
from _ray import RayHead
from tests_paths import REPO

from creval.records import read_records
from creval.runner import ResponseCache, Runner, RunStore
from creval.runner.store import Record
from runner.test_group_commit import _Instant, _units

SOAK = REPO / "bench" / "soak.py"
UNITS = 10000  # the uninterrupted run whose memory is watched
KILLED_UNITS = 4000  # the soaks killed twice and resumed
KILLS = (1200, 2400)  # records on disk at each SIGKILL
TIMEOUT = 2.0  # the client's; a stall lasts a second longer
SEGMENT_TIMEOUT = 600.0  # seconds a segment may take before the test gives up on it

pytestmark = pytest.mark.slow


@pytest.fixture
def server() -> Iterator[FlakyServer]:
    flaky = start_flaky_server(seed=20, stall=TIMEOUT + 1.0)
    try:
        yield flaky
    finally:
        flaky.stop()


def _command(out: Path, url: str, executor: str, address: str | None = None,
             units: int = UNITS) -> list[str]:
    cmd = [sys.executable, str(SOAK), "--url", url, "--out", str(out), "--units", str(units),
           "--concurrency", "64", "--executor", executor, "--timeout", str(TIMEOUT)]
    return cmd + (["--ray-address", address] if address else [])


class _Lines:
    """Whole lines in a growing file, reading only what was added since the last call."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.count = path, 0, 0

    def __call__(self) -> int:
        if not self.path.exists():
            return 0
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            data = fh.read()
        self.offset += len(data)
        self.count += data.count(b"\n")
        return self.count


def _kill_at(cmd: list[str], records: Path, lines: int, env: dict[str, str] | None) -> None:
    """Start the driver and SIGKILL it once ``records`` holds ``lines`` lines."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + SEGMENT_TIMEOUT
    written = _Lines(records)
    try:
        while written() < lines:
            if proc.poll() is not None:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"the driver ended ({proc.returncode}) before {lines} records: {err[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the driver wrote {written.count} of {lines} records in {SEGMENT_TIMEOUT:g} s")
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _finished(records: Path) -> tuple[int, list[str]]:
    """Whole lines in ``records`` (a kill may leave a cut last line) and their ``ok`` keys."""
    lines = records.read_bytes().split(b"\n")[:-1]
    rows = [json.loads(line) for line in lines]
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)), "a record was duplicated"
    return len(rows), [r["key"] for r in rows if r["status"] == "ok"]


def _check_complete(out: Path, units: int = UNITS) -> None:
    """Every unit once, ok, with the server's answer to the very request it recorded."""
    records = read_records(out / "run" / "records.jsonl")
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys)) == units, f"{len(keys)} records, {len(set(keys))} keys"
    assert {r.status for r in records} == {"ok"}
    assert set(keys) == {f"u{i:05d}" for i in range(units)}
    for r in records:
        answers = [call["completions"][0]["text"] for call in r.calls]
        assert len(answers) == (2 if r.unit["index"] % 10 == 0 else 1), r.key
        assert answers == [answer_for(call["request"]["messages"]) for call in r.calls], r.key
        assert (r.output or {}).get("answers") == answers, r.key


def _soak_killed_twice(out: Path, server: FlakyServer, executor: str, address: str | None = None,
                       env: dict[str, str] | None = None) -> dict[str, Any]:
    """Kill the driver at ~1,200 and ~2,400 records of 4,000 (:data:`KILLS`), resume, and
    check the run; the last segment's summary."""
    cmd = _command(out, server.url, executor, address, units=KILLED_UNITS)
    records = out / "run" / "records.jsonl"
    snapshots: list[dict[str, int]] = []  # per kill: finished unit -> requests the server saw
    for stop in KILLS:
        _kill_at(cmd, records, stop, env)
        lines, finished = _finished(records)
        assert stop <= lines < KILLED_UNITS, f"the kill at {stop} landed at {lines}"
        seen = server.stats()["per_key"]
        snapshots.append({k: seen[k] for k in finished})
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=SEGMENT_TIMEOUT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    _check_complete(out, KILLED_UNITS)
    seen = server.stats()["per_key"]
    for n, snapshot in enumerate(snapshots, 1):
        again = {k: seen[k] - before for k, before in snapshot.items() if seen[k] != before}
        assert not again, f"after restart {n} the server was asked again for finished units: {again}"
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    assert summary["started_with"] >= KILLS[-1] and summary["finished"] == KILLED_UNITS
    assert summary["verify"]["checked"] == KILLED_UNITS and summary["verify"]["bad"] == []
    assert summary["counters"]["units_failed"] == 0
    return summary


def test_soak_local_executor_killed_twice_then_resumed(tmp_path: Path, server: FlakyServer) -> None:
    summary = _soak_killed_twice(tmp_path, server, "local")
    injected = server.stats()["injected"]
    assert all(injected[kind] > 0 for kind in ("503", "429", "drop", "stall")), injected
    assert summary["counters"]["models"]["openai:soak"]["retries"] > 0


def test_soak_local_executor_memory_stays_flat(tmp_path: Path, server: FlakyServer) -> None:
    """Resident memory of the driver grows less than 10% from the 2,000th to the 10,000th
    finished unit.

    Measured in one uninterrupted run: a killed run leaves no segment that
    spans both marks, and RSS of two processes cannot be compared. The local executor, so
    that the figure is the runner's own and not a Ray client's. Also: the client's retries
    cover every failure the server injected, and both count the same requests."""
    done = subprocess.run(_command(tmp_path, server.url, "local"), capture_output=True,
                          text=True, timeout=SEGMENT_TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    _check_complete(tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["started_with"] == 0
    at_2k, at_10k = summary["marks"]["2000"]["rss_kb"], summary["marks"]["10000"]["rss_kb"]
    assert at_10k < 1.10 * at_2k, f"RSS grew from {at_2k} KiB to {at_10k} KiB: {summary['marks']}"
    stats = server.stats()
    model = summary["counters"]["models"]["openai:soak"]
    assert model["requests"] == stats["requests"], (model, stats["requests"])
    assert model["retries"] >= sum(stats["injected"].values()), (model, stats["injected"])
    assert model["errors"] == 0


def test_soak_ray_executor_killed_twice_then_resumed(
    tmp_path: Path, server: FlakyServer, ray_head: RayHead
) -> None:
    """The drivers connect to a cluster that outlives them (as ``--ray-address`` does): each
    killed driver's Ray tasks (live checks of every 500 finished units) die with it."""
    summary = _soak_killed_twice(tmp_path, server, "ray", ray_head.address, ray_head.env)
    # the answers were checked on Ray's workers, not in the driver, while it ran and after
    assert summary["executor"]["executor"] == "ray" and summary["executor"]["tasks"] > 0
    for checks in (summary["verify"], summary["live_checks"]):
        assert checks["bad"] == [] and checks["worker_pids"], checks
        assert summary["pid"] not in checks["worker_pids"], checks
    assert summary["live_checks"]["checked"] == summary["ran"]


def test_runner_run_keep_false_holds_no_records_and_memory_stays_flat(tmp_path: Path) -> None:
    """The runner alone, with a model that answers at once: ``run(keep=False)`` returns no
    records and holds none (each kept record cost ~2-3 KB for the rest of the run: RSS +23%
    from the 2,000th to the 10,000th unit before), yet every record is in the store."""
    rss: dict[int, int] = {}

    class Marked(RunStore):
        finished = 0

        def queue(self, record: Record) -> asyncio.Future[None]:
            waiter = super().queue(record)
            waiter.add_done_callback(self._mark)
            return waiter

        def _mark(self, _: object) -> None:
            self.finished += 1
            if self.finished in (2000, UNITS):
                rss[self.finished] = _rss_kb()

    store = Marked(tmp_path / "run")
    cache = ResponseCache(tmp_path / "cache.sqlite")
    runner = Runner(store, {"target": _Instant()}, cache=cache, progress=False)
    assert asyncio.run(runner.run(_units(UNITS), concurrency=64, keep=False)) == []
    store.close()
    cache.close()
    keys = [r.key for r in read_records(tmp_path / "run" / "records.jsonl")]
    assert len(keys) == len(set(keys)) == UNITS == runner.counters.units_ok
    assert rss[UNITS] < 1.10 * rss[2000], rss


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")
