"""Slow start against starting at the requested concurrency (issue 44), on two loopback
servers: one slot answering in ``--work`` seconds with a timeout of ``--timeout`` (a
llama.cpp server with one slot, which finishes the requests whose clients gave up), and a
server answering any number at once in ``--work`` seconds (a fast API).

"all at once" is the runner as it was: the requested concurrency from the first request,
backing off on timeouts (``AdaptiveLimit(requested)``); "slow start" is the default now
(:func:`creval.runner.limits.learned_limit`). Rounds alternate; medians are compared. The
ratio is all-at-once time / slow-start time (above 1: slow start is faster).

    PYTHONPATH=src:tests .venv/bin/python bench/slow_start.py
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _servers import ChatServer  # noqa: E402

from creval.models import get_model  # noqa: E402
from creval.models.base import GenerateRequest  # noqa: E402
from creval.runner import RetryPolicy, Runner, RunStore, Unit, UnitContext, engine, limits  # noqa: E402


def _units(n: int) -> list[Unit]:
    def unit(i: int) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, str]:
            (answer,) = await ctx.generate(GenerateRequest.chat(f"q{i}", max_tokens=5))
            return {"text": answer.text}

        return Unit(key=f"u{i}", run=run)

    return [unit(i) for i in range(n)]


def _once(url: str, units: int, timeout: float, concurrency: int, gentle: bool) -> dict[str, Any]:
    limits._LEARNED.clear()
    engine.learned_limit = (limits.learned_limit if gentle  # type: ignore[attr-defined]
                            else lambda endpoint, requested: limits.AdaptiveLimit(requested))
    model = get_model("openai:m", base_url=url, api_key="k", concurrency=concurrency,
                      timeout=timeout)
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(RunStore(Path(tmp)), {"target": model}, progress=False,
                        retry=RetryPolicy(attempts=8, base_delay=0.01))
        start = time.monotonic()
        records = asyncio.run(runner.run(_units(units)))
        seconds = time.monotonic() - start
    counts = runner.counters.per_model["openai:m"]
    return {"seconds": seconds, "retries": int(counts.get("retries", 0)),
            "ok": sum(r.status == "ok" for r in records)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=12)
    parser.add_argument("--fast-units", type=int, default=160)
    parser.add_argument("--work", type=float, default=0.3)
    parser.add_argument("--timeout", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    lock, now = threading.Lock(), {"in": 0, "most": 0}

    def busy(body: dict[str, Any]) -> tuple[int, str]:
        with lock:
            now["in"] += 1
            now["most"] = max(now["most"], now["in"])
        time.sleep(args.work)
        with lock:
            now["in"] -= 1
        return 200, "ok"

    one_slot = ChatServer(slots=1, delay=args.work)
    fast = ChatServer(reply=busy)
    try:
        _once(fast.url, 2, 5.0, 2, True)  # the client's imports and first set-up, not timed
        rows = []
        for name, server, units, timeout in (("one slot", one_slot, args.units, args.timeout),
                                             ("any number at once", fast, args.fast_units, 30.0)):
            seen: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
            for _ in range(args.rounds):
                for gentle in (False, True):
                    before, now["most"] = getattr(server, "abandoned", 0), 0
                    result = _once(server.url, units, timeout, args.concurrency, gentle)
                    result["abandoned"] = server.abandoned - before
                    result["most"] = now["most"]
                    seen[gentle].append(result)
            med = {g: statistics.median(r["seconds"] for r in seen[g]) for g in seen}
            rows.append((name, units, seen, med))
        print("| server | units | start | median s | retries (per round) | abandoned | ok | ratio |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, units, seen, med in rows:
            for gentle in (False, True):
                rs = seen[gentle]
                print(f"| {name} | {units} | {'slow start' if gentle else 'all at once'} | "
                      f"{med[gentle]:.2f} | {', '.join(str(r['retries']) for r in rs)} | "
                      f"{', '.join(str(r['abandoned']) for r in rs)} | "
                      f"{min(r['ok'] for r in rs)}/{units} | "
                      f"{'' if not gentle else f'**{med[False] / med[True]:.2f}**'} |")
    finally:
        one_slot.close()
        fast.close()


if __name__ == "__main__":
    main()
