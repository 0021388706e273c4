"""The runner starts an endpoint gently (issue 44): a few requests, more while the answers
come as fast as the first did. A one-slot server is not sent eight requests at once (it works
through abandoned ones), so it sees few timeouts; an endpoint that answers many at once
still gets the requested concurrency within a few rounds. Real loopback servers."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from _servers import ChatServer

from creval.models import get_model
from creval.models.base import GenerateRequest
from creval.runner import RetryPolicy, Runner, RunStore, Unit, UnitContext
from creval.runner.limits import START, AdaptiveLimit


def test_slow_start_doubles_per_round_while_latency_holds() -> None:
    limit = AdaptiveLimit(16, slow_start=True)
    assert limit.allowed == START == 1 and limit.ramping
    rounds = 0
    while limit.allowed < 16:
        tickets = [limit.start() for _ in range(limit.allowed)]
        for t in tickets:
            limit.finish(t, "ok", latency=0.1)
        rounds += 1
    assert rounds == 4  # 1 -> 2 -> 4 -> 8 -> 16 (the first answer grows it, latency or not)
    assert not limit.ramping and not limit.adapted()  # growing from a few is not news


def test_slow_start_ends_when_answers_queue() -> None:
    limit = AdaptiveLimit(8, slow_start=True)
    limit.finish(limit.start(), "ok", latency=3.0)  # the first: its set-up, not the server
    assert limit.allowed == 2 and limit.fastest is None
    a, b = limit.start(), limit.start()
    limit.finish(a, "ok", latency=1.0)  # 2 -> 3
    assert limit.allowed == 3
    limit.finish(b, "ok", latency=2.0)  # sent among 2, waited behind a: one at a time
    assert limit.allowed == 1 and not limit.ramping and limit.queues
    for _ in range(4):  # answers at one in flight hold: it grows again
        limit.finish(limit.start(), "ok", latency=1.0)
    assert limit.allowed >= 2
    t1, t2 = limit.start(), limit.start()
    before = limit.limit
    limit.finish(t1, "ok", latency=1.0)
    limit.finish(t2, "ok", latency=2.0)  # queued: no growth
    assert limit.limit == before + 1 / 2


def _units(n: int) -> list[Unit]:
    def unit(i: int) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, str]:
            (answer,) = await ctx.generate(GenerateRequest.chat(f"q{i}", max_tokens=5))
            return {"text": answer.text}

        return Unit(key=f"u{i}", run=run)

    return [unit(i) for i in range(n)]


def _run(tmp_path: Path, url: str, units: int, *, timeout: float, concurrency: int = 8,
         ) -> tuple[Runner, list[Any], float]:
    model = get_model("openai:m", base_url=url, api_key="k", concurrency=concurrency,
                      timeout=timeout)
    runner = Runner(RunStore(tmp_path), {"target": model}, progress=False,
                    retry=RetryPolicy(attempts=5, base_delay=0.01))
    start = time.monotonic()
    records = asyncio.run(runner.run(_units(units)))
    return runner, records, time.monotonic() - start


def test_a_one_slot_server_sees_few_timeouts(tmp_path: Path) -> None:
    """One slot, 0.3 s an answer, a 1.0 s timeout, 8 requested: all eight at once timed out
    the back of the queue again and again (11 retries for 12 answers in the issue)."""
    server = ChatServer(slots=1, delay=0.3)
    try:
        runner, records, seconds = _run(tmp_path / "one", server.url, 12, timeout=1.0)
    finally:
        server.close()
    assert [r.status for r in records] == ["ok"] * 12
    retries = runner.counters.per_model["openai:m"]["retries"]
    assert retries <= 2 and server.abandoned <= 2, (retries, server.abandoned)
    assert server.most_waiting <= 3
    assert seconds < 12 * 0.3 * 2 + 4  # near the server's pace (+ the client's first set-up)


def test_http_501_is_not_retried(tmp_path: Path) -> None:
    """Not Implemented: asking again cannot mend it (it was retried 8 times as transient)."""
    server = ChatServer(script=[501] * 10)
    try:
        runner, records, _ = _run(tmp_path / "501", server.url, 1, timeout=5.0)
    finally:
        server.close()
    assert [r.status for r in records] == ["error"]
    assert server.seen == 1 and runner.counters.per_model["openai:m"]["retries"] == 0


def test_a_fast_endpoint_reaches_the_requested_concurrency(tmp_path: Path) -> None:
    lock = threading.Lock()
    now = {"in": 0, "most": 0}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        with lock:
            now["in"] += 1
            now["most"] = max(now["most"], now["in"])
        time.sleep(0.1)  # any number at once, each 0.1 s
        with lock:
            now["in"] -= 1
        return 200, "ok"

    server = ChatServer(reply=reply)
    try:
        runner, records, _ = _run(tmp_path / "fast", server.url, 48, timeout=5.0)
    finally:
        server.close()
    assert [r.status for r in records] == ["ok"] * 48
    (gate,) = runner._limits.values()
    assert gate.state.allowed == 8 and gate.state.backoffs == 0 and not gate.state.queues
    assert now["most"] >= 6  # the server did see them at once (thread timing aside)
