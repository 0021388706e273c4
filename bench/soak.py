"""The soak at scale (issue 20, item 4): 10,000 units through the real runner against a
flaky loopback server, stopped with SIGKILL and resumed, under the local or the Ray executor.

Each unit asks ``openai:soak`` (the real backend, the SDK's own retries off) once, every
tenth a second turn too, through the real :class:`~creval.runner.Runner`,
:class:`~creval.runner.RunStore` and :class:`~creval.runner.ResponseCache`. The server
(``tests/_flaky_server.py``, a process of its own) answers from the request and fails a
seeded share of attempts: 503, 429 with ``Retry-After``, a dropped connection, a stall past
the client's timeout. The runner retries them (:class:`~creval.runner.RetryPolicy` with a
small base delay).

Two modes:

* **a segment** (``--url`` given): one driver process. It runs the units not yet finished in
  ``OUT/run``, notes its resident memory (``VmRSS``) when the run's 1,000th, 2,000th, ...
  unit is finished (its record fsynced), then checks every record's answers against the
  answers expected from the unit alone in chunks of 500 on the executor's workers
  (``current_executor().map``), and writes ``OUT/summary.json``. A segment killed on the way
  writes nothing; the next one resumes the run.
* **the benchmark** (no ``--url``): starts the flaky server, runs segments as child
  processes, SIGKILLs each when ``records.jsonl`` holds the next ``--stop-at`` count of
  lines, resumes, and prints the figures (units/s, retries by kind, RSS, wall time)::

    .venv/bin/python bench/soak.py --units 10000 --concurrency 64 --executor local \
        --stop-at 3000,6000 --out /tmp/soak-local
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from creval.models import ModelOptions, get_model
from creval.models.base import GenerateRequest, Message
from creval.records import latest_records
from creval.runner import ResponseCache, RetryPolicy, Runner, RunStore, Unit, UnitContext
from creval.runner.store import Record, read_records, write_json_atomic

CHUNK = 500  # records per verification task
RSS_EVERY = 1000  # finished units between two memory readings


# -- units and their expected answers (pure: these run on the workers) ----------------------
def unit_key(i: int) -> str:
    """The key of unit ``i``.

    >>> unit_key(42)
    'u00042'
    """
    return f"u{i:05d}"


def turns(i: int) -> int:
    """How many model calls unit ``i`` makes: two for every tenth, one otherwise.

    >>> [turns(i) for i in (0, 1, 10)]
    [2, 1, 2]
    """
    return 2 if i % 10 == 0 else 1


def prompts(i: int) -> list[str]:
    """The user messages of unit ``i``, one per turn (the server counts ``unit=KEY``).

    >>> prompts(3)
    ['soak unit=u00003: name kitchen object number 3.']
    """
    first = f"soak unit={unit_key(i)}: name kitchen object number {i}."
    return [first, "Now one more, different."][: turns(i)]


def expected_answer(messages: list[tuple[str, str]]) -> str:
    """The flaky server's answer to ``messages`` (role, content), written here apart from
    the server's own code so each checks the other.

    >>> expected_answer([("user", "hi")])
    'ans-675b797826f34c78'
    """
    text = json.dumps([[role, content] for role, content in messages], ensure_ascii=False)
    return "ans-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def expected_answers(i: int) -> list[str]:
    """Unit ``i``'s answers, turn by turn, from ``i`` alone."""
    history: list[tuple[str, str]] = []
    answers = []
    for text in prompts(i):
        history.append(("user", text))
        answers.append(expected_answer(history))
        history.append(("assistant", answers[-1]))
    return answers


def verify_chunk(rows: list[tuple[int, list[str]]]) -> dict[str, Any]:
    """Check recorded answers ``(unit index, answers)`` against the expected ones; the
    worker's pid and a checksum of the answers come back with the count.

    >>> verify_chunk([(1, expected_answers(1)), (2, ["wrong"])])["bad"]
    ['u00002']
    """
    checksum = hashlib.sha256()
    bad = []
    for i, answers in rows:
        checksum.update("".join(answers).encode())
        if answers != expected_answers(i):
            bad.append(unit_key(i))
    return {"checked": len(rows), "bad": bad, "pid": os.getpid(), "sha256": checksum.hexdigest()}


def make_unit(i: int) -> Unit:
    async def run(ctx: UnitContext) -> dict[str, Any]:
        messages: list[Message] = []
        answers = []
        for text in prompts(i):
            messages.append(Message(role="user", content=text))
            request = GenerateRequest(messages=tuple(messages), temperature=0.0, max_tokens=8)
            (completion,) = await ctx.generate(request)
            answers.append(completion.text)
            messages.append(Message(role="assistant", content=completion.text))
        return {"answers": answers}

    return Unit(key=unit_key(i), run=run, meta={"index": i})


def rss_kb() -> int:
    """This process's resident memory (``VmRSS``), in KiB."""
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


class _MarkedStore(RunStore):
    """The run store, noting time and RSS when the run's every RSS_EVERY-th unit is on disk,
    and handing each finished unit's answers to ``on_finished``."""

    def __init__(self, root: Path, on_finished: Callable[[int, list[str]], None]) -> None:
        super().__init__(root)
        self.finished = sum(r.status == "ok" for r in self.latest().values())
        self.started_with = self.finished
        self.marks: dict[str, dict[str, float]] = {}
        self.t0 = time.perf_counter()
        self._on_finished = on_finished

    def queue(self, record: Record) -> asyncio.Future[None]:
        waiter = super().queue(record)
        if record.status == "ok":
            row = (int(record.unit["index"]), list((record.output or {})["answers"]))
            waiter.add_done_callback(functools.partial(self._finished, row))
        return waiter

    def _finished(self, row: tuple[int, list[str]], waiter: asyncio.Future[None]) -> None:
        if waiter.cancelled() or waiter.exception() is not None:
            return
        self.finished += 1
        if self.finished % RSS_EVERY == 0:
            self.marks[str(self.finished)] = {
                "rss_kb": rss_kb(), "seconds": round(time.perf_counter() - self.t0, 3)}
        self._on_finished(*row)


class LiveChecks:
    """Answers of finished units checked while the run goes on: every CHUNK of them is one
    task on the executor's workers, sent from a thread of its own so the loop never waits."""

    def __init__(self, executor: Any) -> None:
        self.executor = executor
        self.rows: list[tuple[int, list[str]]] = []
        self.futures: list[asyncio.Future[list[dict[str, Any]]]] = []
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="soak-check")

    def add(self, index: int, answers: list[str]) -> None:
        self.rows.append((index, answers))
        if len(self.rows) >= CHUNK:
            self.send()

    def send(self) -> None:
        if not self.rows:
            return
        rows, self.rows = self.rows, []
        call = functools.partial(self.executor.map, verify_chunk, [rows], label="soak live check")
        self.futures.append(asyncio.get_running_loop().run_in_executor(self.pool, call))

    async def results(self) -> dict[str, Any]:
        self.send()
        results = [r for chunk in await asyncio.gather(*self.futures) for r in chunk]
        self.pool.shutdown()
        return {"checked": sum(r["checked"] for r in results),
                "bad": [k for r in results for k in r["bad"]], "chunks": len(results),
                "worker_pids": sorted({r["pid"] for r in results})}


def verify(records: list[Record], executor: Any) -> dict[str, Any]:
    """Every ``ok`` record's answers checked in chunks on the executor's workers."""
    rows = sorted((int(r.unit["index"]), list((r.output or {})["answers"]))
                  for r in latest_records(records).values() if r.status == "ok")
    chunks = [rows[k:k + CHUNK] for k in range(0, len(rows), CHUNK)]
    start = time.perf_counter()
    results = executor.map(verify_chunk, chunks, label="soak verify")
    return {
        "checked": sum(r["checked"] for r in results), "bad": [k for r in results for k in r["bad"]],
        "chunks": len(chunks), "worker_pids": sorted({r["pid"] for r in results}),
        "seconds": round(time.perf_counter() - start, 3),
    }


def segment(args: argparse.Namespace) -> dict[str, Any]:
    """Run what is left of the soak in ``args.out`` against ``args.url``; the summary."""
    from creval.runner.executors import current_executor, get_executor, using_executor

    out = Path(args.out)
    model = get_model("openai:soak", ModelOptions(base_url=args.url, api_key="x",
                                                  timeout=args.timeout, concurrency=args.concurrency))
    started = time.perf_counter()
    executor = get_executor(args.executor, address=args.ray_address, workers=args.workers)
    executor_start = time.perf_counter() - started
    cache = ResponseCache(out / "cache.sqlite")
    retry = RetryPolicy(attempts=args.attempts, base_delay=0.05, max_delay=1.0)
    units = [make_unit(i) for i in range(args.units)]

    async def go(store: _MarkedStore, runner: Runner, live: LiveChecks) -> dict[str, Any]:
        try:
            # keep=False: the records are in the store; kept, they grow the driver ~3 KB each
            await runner.run(units, concurrency=args.concurrency, keep=False)
        finally:
            await model.aclose()
        return await live.results()

    try:
        with using_executor(executor):
            live = LiveChecks(current_executor())
            store = _MarkedStore(out / "run", live.add)
            runner = Runner(store, {"target": model}, cache=cache, retry=retry, progress=False)
            start = time.perf_counter()
            live_checked = asyncio.run(go(store, runner, live))
            wall = time.perf_counter() - start
            store.close()
            cache.close()
            checked = verify(read_records(out / "run" / "records.jsonl"), current_executor())
            described = executor.describe()
    finally:
        executor.close()
    ran = store.finished - store.started_with
    summary = {
        "units": args.units, "concurrency": args.concurrency, "executor": described,
        "executor_start_s": round(executor_start, 3),
        "started_with": store.started_with, "finished": store.finished, "ran": ran,
        "wall_s": round(wall, 3), "units_per_s": round(ran / wall, 1) if wall else None,
        "marks": store.marks, "counters": runner.counters.as_dict(), "verify": checked,
        "live_checks": live_checked, "pid": os.getpid(),
    }
    write_json_atomic(out / "summary.json", summary)
    return summary


# -- the benchmark: server, segments, kills ---------------------------------------------------
class LineCounter:
    """Whole lines in a growing file, reading only what was added since the last call."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.lines = path, 0, 0

    def __call__(self) -> int:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return 0
        self.offset += len(data)
        self.lines += data.count(b"\n")
        return self.lines


def run_segment(cmd: list[str], records: Path, stop_at: int | None, timeout: float,
                env: dict[str, str] | None = None) -> dict[str, Any]:
    """Start a segment; SIGKILL it once ``records`` has ``stop_at`` lines (None: let it end)."""
    proc = subprocess.Popen(cmd, env=env)
    start = time.perf_counter()
    lines = LineCounter(records)
    try:
        while proc.poll() is None:
            if stop_at is not None and lines() >= stop_at:
                proc.send_signal(signal.SIGKILL)
                break
            if time.perf_counter() - start > timeout:
                proc.kill()
                raise RuntimeError(f"a soak segment ran past {timeout:g} s")
            time.sleep(0.01)
        code = proc.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return {"returncode": code, "killed": code == -signal.SIGKILL,
            "lines": LineCounter(records)(), "wall_s": round(time.perf_counter() - start, 3)}


def benchmark(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from _flaky_server import start_flaky_server
    from _ray import RayHead

    out = Path(args.out)
    ours = {"run", "cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm", "summary.json", "soak.json"}
    if out.exists():
        others = sorted(p.name for p in out.iterdir() if p.name not in ours)
        if others:
            raise SystemExit(f"{out} holds other files ({', '.join(others[:3])}): pass a new --out")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    server = start_flaky_server(seed=args.seed, stall=args.timeout + 1.0)
    head = None
    try:
        cmd = [sys.executable, __file__, "--url", server.url, *sys.argv[1:]]
        if args.executor == "ray" and not args.ray_address:
            # a cluster that outlives the killed drivers (one started by a driver would leave
            # Ray's agents behind when the driver is SIGKILLed)
            head = RayHead(cpus=args.workers or 2)
            cmd += ["--ray-address", head.address]
        segments = []
        start = time.perf_counter()
        for stop in [*args.stop_at, None]:
            segments.append(run_segment(cmd, out / "run" / "records.jsonl", stop, 1800,
                                        head.env if head else None))
            print(f"segment {len(segments)}: {segments[-1]}", flush=True)
        wall = time.perf_counter() - start
        stats = server.stats()
    finally:
        server.stop()
        if head is not None:
            head.stop()
    summary = json.loads((out / "summary.json").read_text())
    per_key = stats.pop("per_key")
    result = {"wall_s": round(wall, 3), "units_per_s": round(args.units / wall, 1),
              "segments": segments, "server": stats, "last_segment": summary,
              "server_requests_per_unit_max": max(per_key.values())}
    write_json_atomic(out / "soak.json", result)
    totals = summary["counters"]["models"]["openai:soak"]
    print(json.dumps({
        "executor": summary["executor"], "units": args.units, "concurrency": args.concurrency,
        "wall_s (all segments, starts included)": result["wall_s"],
        "units/s (all segments)": result["units_per_s"],
        "units/s (last segment)": summary["units_per_s"],
        "server requests": stats["requests"], "injected failures by kind": stats["injected"],
        "retries (last segment)": totals["retries"], "rss_kb at marks (last segment)":
        {k: v["rss_kb"] for k, v in summary["marks"].items()},
        "verify": {k: summary["verify"][k] for k in ("checked", "chunks", "worker_pids", "seconds")},
        "live checks": summary["live_checks"], "executor start (s)": summary["executor_start_s"],
    }, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--units", type=int, default=10000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--executor", choices=["local", "ray"], default="local")
    parser.add_argument("--ray-address", default=None,
                        help="a running Ray cluster (default: the benchmark starts one for all "
                        "segments; a segment alone starts its own)")
    parser.add_argument("--workers", type=int, default=None,
                        help="Ray tasks at once (default: the cluster's CPUs); --executor ray only")
    parser.add_argument("--out", required=True, help="directory of the run, cache and summary")
    parser.add_argument("--stop-at", default="",
                        help="benchmark mode: SIGKILL the driver at these records.jsonl line "
                        "counts (e.g. 3000,6000) and resume it each time")
    parser.add_argument("--timeout", type=float, default=2.0, help="the client's timeout (s)")
    parser.add_argument("--attempts", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--url", default=None,
                        help="segment mode: the flaky server's base URL (.../v1)")
    args = parser.parse_args()
    try:
        args.stop_at = [int(x) for x in args.stop_at.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--stop-at takes line counts separated by commas, not {args.stop_at!r}")
    if args.url:
        segment(args)
    else:
        benchmark(args)


if __name__ == "__main__":
    main()
