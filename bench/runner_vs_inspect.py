"""creval's runner beside the bare `openai` loop and Inspect AI's eval loop, one run.

All three send the same N distinct chat requests (temperature 0, 24 tokens) to one instant
OpenAI-compatible server on loopback (``bench/_server.py``: uvicorn in its own process,
no model, so only client-side time is measured), at each concurrency asked for:

* **bare**: ``AsyncOpenAI.chat.completions.create`` under a semaphore (the baseline);
* **post**: the same loop through the SDK's ``client.post`` with the body as creval's
  backend sends it (no per-request parameter transform, the answer left as JSON): what
  creval's HTTP path costs without the runner, so creval minus post is the runner's own;
* **creval**: the whole runner as ``creval run`` drives it, progress off (as from a pipe):
  a fresh response cache (lookups, writes), retries, the endpoint's limit, counters and one
  fsynced ``records.jsonl`` line per unit;
* **inspect**: ``inspect_ai.eval`` of a Task of N samples (``generate()``, no scorer, no
  sandbox) with ``openai/smollm2`` at ``model_base_url``, ``max_connections`` and
  ``max_samples`` = the concurrency, its log written to a temporary directory (needs the
  ``inspect`` extra; ``--sides bare post creval`` runs without it).

Every side runs in this process, timed from the call that starts it to its return (the
creval side includes opening its cache and store, Inspect's its task set-up and log); CPU
is this process's CPU time (threads included). Rounds interleave the sides (the order
rotates each round); medians are reported. creval's own CPU per request is creval's CPU
minus the bare loop's, divided by N.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _server import start_instant_server
from openai import AsyncOpenAI

from creval.models import get_model
from creval.models.base import GenerateRequest
from creval.runner import ResponseCache, Runner, RunStore, Unit, UnitContext

PROMPT = "In one short sentence, describe object number {i} you might find in a kitchen."
MAX_TOKENS = 24


def bare(url: str, n: int, concurrency: int, *, post: bool = False) -> None:
    async def go() -> None:
        client = AsyncOpenAI(base_url=url, api_key="x", max_retries=0)
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> str:
            body = {"model": "smollm2", "messages": [{"role": "user", "content": PROMPT.format(i=i)}],
                    "temperature": 0.0, "top_p": 1.0, "seed": 0, "max_tokens": MAX_TOKENS}
            async with gate:
                if post:  # the body as creval's backend posts it, the answer as plain JSON
                    d = await client.post("/chat/completions", body=body, cast_to=object)
                    return str(d["choices"][0]["message"]["content"] or "")  # type: ignore[index]
                r = await client.chat.completions.create(**body)  # type: ignore[call-overload]
                return r.choices[0].message.content or ""

        answers = await asyncio.gather(*(one(i) for i in range(n)))
        await client.close()
        assert len(answers) == n and all(answers)

    asyncio.run(go())


def creval(url: str, n: int, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        model = get_model("openai:smollm2", base_url=url, api_key="x", concurrency=concurrency)
        cache = ResponseCache(Path(tmp) / "cache.sqlite")
        store = RunStore(Path(tmp) / "run")

        def unit(i: int) -> Unit:
            request = GenerateRequest.chat(PROMPT.format(i=i), temperature=0.0,
                                           max_tokens=MAX_TOKENS, seed=0)

            async def run(ctx: UnitContext) -> dict[str, Any]:
                (c,) = await ctx.generate(request)
                return {"text": c.text}

            return Unit(key=f"u{i}", run=run)

        runner = Runner(store, {"target": model}, cache=cache, progress=False)

        async def go() -> None:
            await runner.run([unit(i) for i in range(n)], concurrency=concurrency, keep=False)
            await model.aclose()

        asyncio.run(go())
        assert runner.counters.per_model[model.spec]["requests"] == n
        assert runner.counters.units_ok == n
        store.close()
        cache.close()


def inspect(url: str, n: int, concurrency: int) -> None:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate

    task = Task(dataset=[Sample(input=PROMPT.format(i=i), id=i) for i in range(n)],
                solver=generate())
    with tempfile.TemporaryDirectory() as tmp:
        (log,) = eval(
            task, model="openai/smollm2", model_base_url=url, max_connections=concurrency,
            model_args={"responses_api": False},  # chat completions, as the other two
            max_samples=concurrency, log_dir=tmp, display="none", score=False, sandbox=None,
            temperature=0.0, max_tokens=MAX_TOKENS, seed=0, max_retries=0,
        )
    assert log.status == "success", log.error and log.error.message
    assert log.results is None or log.results.total_samples in (0, n)
    assert log.stats.model_usage["openai/smollm2"].input_tokens == 20 * n


def post(url: str, n: int, concurrency: int) -> None:
    bare(url, n, concurrency, post=True)


SIDES: dict[str, Callable[[str, int, int], None]] = {
    "bare": bare, "post": post, "creval": creval, "inspect": inspect,
}


def measure(side: str, url: str, n: int, concurrency: int) -> tuple[float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    SIDES[side](url, n, concurrency)
    return time.perf_counter() - start, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sides", nargs="+", choices=list(SIDES), default=list(SIDES))
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "x")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    n = args.requests
    load = os.getloadavg()[0]
    proc, url = start_instant_server()
    results: dict[tuple[str, int], list[tuple[float, float]]] = {}
    try:
        for side in args.sides:  # warm-up: imports, first connections
            measure(side, url, 16, 4)
        for r in range(args.rounds):
            order = args.sides[r % len(args.sides):] + args.sides[: r % len(args.sides)]
            for c in args.concurrency:
                for side in order:
                    results.setdefault((side, c), []).append(measure(side, url, n, c))
    finally:
        proc.terminate()
        proc.wait()
    print(f"requests={n} rounds={args.rounds} load average {load:.1f} -> {os.getloadavg()[0]:.1f} "
          "(1 min, 2 cores)")
    print("| concurrency | side | req/s (median) | CPU ms / request | throughput / bare | "
          "throughput / inspect | CPU ms / request minus bare's | minus post's |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in args.concurrency:
        wall = {s: statistics.median(t for t, _ in results[(s, c)]) for s in args.sides}
        cpu = {s: statistics.median(x for _, x in results[(s, c)]) for s in args.sides}
        for s in args.sides:
            vs_bare = f"{wall['bare'] / wall[s]:.3f}" if "bare" in wall else "-"
            vs_inspect = f"{wall['inspect'] / wall[s]:.3f}" if "inspect" in wall else "-"
            own = {b: f"{(cpu[s] - cpu[b]) / n * 1000:.3f}" if b in cpu else "-" for b in ("bare", "post")}
            print(f"| {c} | {s} | {n / wall[s]:.0f} | {cpu[s] / n * 1000:.3f} | {vs_bare} | "
                  f"{vs_inspect} | {own['bare']} | {own['post']} |")
        for s in args.sides:
            runs = results[(s, c)]
            print(f"  c={c} {s}: wall {[round(t, 2) for t, _ in runs]} cpu {[round(x, 2) for _, x in runs]}")


if __name__ == "__main__":
    main()
