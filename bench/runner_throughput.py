"""Runner throughput vs a bare asyncio `openai` loop at the same concurrency.

Both send the same N distinct chat requests (temperature 0, so both get the same answers
and the same token counts) to one OpenAI-compatible server on loopback: llama.cpp's, or an
instant one (uvicorn in its own process, no model: only client-side time is measured). The
creval side goes through the whole runner: response cache lookups and writes (a fresh,
empty cache), retry wrapper, per-endpoint limit, run store appends with fsync, counters and
the progress bar (live when stderr is a terminal: run under ``script -qc "..." /dev/null``
to time it from a pipe). Rounds alternate between the two sides; the ratio is baseline time
/ creval time (1.0 = no overhead; goal >= 0.97).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _server import start_instant_server, start_server
from openai import AsyncOpenAI

from creval.models import get_model
from creval.models.base import GenerateRequest
from creval.runner import ResponseCache, Runner, RunStore, Unit, UnitContext

PROMPT = "In one short sentence, describe object number {i} you might find in a kitchen."


async def baseline(url: str, n: int, concurrency: int, max_tokens: int) -> tuple[float, float]:
    client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> str:
        async with gate:
            r = await client.chat.completions.create(
                model="smollm2", messages=[{"role": "user", "content": PROMPT.format(i=i)}],
                temperature=0.0, max_tokens=max_tokens, seed=0,
            )
            return r.choices[0].message.content or ""

    start, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(i) for i in range(n)))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    await client.close()
    return elapsed, cpu


def creval_run(url: str, n: int, concurrency: int, max_tokens: int, workdir: Path) -> tuple[float, float]:
    model = get_model("openai:smollm2", base_url=url, api_key="x", concurrency=concurrency)
    cache = ResponseCache(workdir / "cache.sqlite")
    store = RunStore(workdir / "run")

    def unit(i: int) -> Unit:
        request = GenerateRequest.chat(PROMPT.format(i=i), temperature=0.0,
                                       max_tokens=max_tokens, seed=0)

        async def run(ctx: UnitContext) -> dict[str, Any]:
            (c,) = await ctx.generate(request)
            return {"text": c.text}

        return Unit(key=f"u{i}", run=run)

    runner = Runner(store, {"target": model}, cache=cache, progress=True)

    async def go() -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        await runner.run([unit(i) for i in range(n)], concurrency=concurrency)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        await model.aclose()
        return elapsed, cpu

    result = asyncio.run(go())
    assert runner.counters.per_model[model.spec]["requests"] == n
    assert len(store.latest()) == n and len(cache) == n
    store.close()
    cache.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--server", choices=["llama", "instant"], default="llama",
                        help="llama: SmolLM2 on llama.cpp's server; instant: a loopback server "
                        "that answers at once, so only client-side overhead is timed")
    args = parser.parse_args()
    proc, url = start_instant_server() if args.server == "instant" else start_server()
    try:
        asyncio.run(baseline(url, 4, args.concurrency, args.max_tokens))  # warm-up
        base_runs, creval_runs = [], []
        for _ in range(args.rounds):
            base_runs.append(asyncio.run(baseline(url, args.requests, args.concurrency, args.max_tokens)))
            with tempfile.TemporaryDirectory() as tmp:
                creval_runs.append(creval_run(url, args.requests, args.concurrency, args.max_tokens, Path(tmp)))
    finally:
        proc.terminate()
        proc.wait()
    base_times, creval_times = [t for t, _ in base_runs], [t for t, _ in creval_runs]
    b, c = statistics.median(base_times), statistics.median(creval_times)
    # CPU time of this (client) process, worker threads included: steadier than wall time
    # on a shared machine
    bc, cc = statistics.median(x for _, x in base_runs), statistics.median(x for _, x in creval_runs)
    print(f"progress bar live: {sys.stderr.isatty()}")
    print(f"server={args.server} requests={args.requests} concurrency={args.concurrency} rounds={args.rounds}")
    print(f"bare openai loop: median {b:.2f}s  ({args.requests / b:.2f} req/s)  all {[round(x, 2) for x in base_times]}")
    print(f"creval runner:    median {c:.2f}s  ({args.requests / c:.2f} req/s)  all {[round(x, 2) for x in creval_times]}")
    print(f"throughput ratio creval/baseline = {b / c:.3f} (goal >= 0.97)")
    print(f"runner overhead per request: {(c - b) / args.requests * 1000:.2f} ms")
    print(f"client CPU per request: bare {bc / args.requests * 1000:.3f} ms, creval "
          f"{cc / args.requests * 1000:.3f} ms (ratio {bc / cc:.3f}, creval's own "
          f"{(cc - bc) / args.requests * 1000:.3f} ms)")


if __name__ == "__main__":
    main()
