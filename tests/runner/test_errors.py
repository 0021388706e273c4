"""Failures that survive their retries become error records; transient ones are retried."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _servers import ChatServer

from creval.models import get_model
from creval.models.base import GenerateRequest
from creval.runner import RetryPolicy, Runner, RunStore, Unit, UnitContext


@pytest.fixture
def server_factory() -> Iterator[Any]:
    servers: list[ChatServer] = []

    def make(script: list[int]) -> ChatServer:
        servers.append(ChatServer(script))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def _units(prompts: list[str]) -> list[Unit]:
    def make(p: str) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, Any]:
            (c,) = await ctx.generate(GenerateRequest.chat(p, max_tokens=5))
            return {"text": c.text}

        return Unit(key=p, run=run)

    return [make(p) for p in prompts]


def test_rate_limits_and_server_errors_are_retried(tmp_path: Path, server_factory: Any) -> None:
    server = server_factory([429, 503, 500])
    model = get_model("openai:scripted", base_url=server.url, api_key="k", concurrency=1)
    runner = Runner(RunStore(tmp_path), {"target": model}, progress=False,
                    retry=RetryPolicy(attempts=5, base_delay=0.01))
    (record,) = asyncio.run(runner.run(_units(["hello"])))
    assert record.status == "ok"
    assert record.output["text"] == "echo: hello"
    row = runner.counters.per_model[model.spec]
    assert row["retries"] == 3 and row["requests"] == 4 and row["errors"] == 0
    assert row["input_tokens"] == 3 and row["output_tokens"] == 2


def test_a_failure_that_survives_retries_is_an_error_record(tmp_path: Path, server_factory: Any) -> None:
    server = server_factory([503] * 3)  # the first unit's three attempts all fail
    model = get_model("openai:scripted", base_url=server.url, api_key="k", concurrency=1)
    store = RunStore(tmp_path)
    runner = Runner(store, {"target": model}, progress=False,
                    retry=RetryPolicy(attempts=3, base_delay=0.01))
    records = asyncio.run(runner.run(_units(["first"]), concurrency=1))
    assert [r.status for r in records] == ["error"]
    assert "503" in (records[0].error or "") or "Transient" in (records[0].error or "")
    # the rest of the run goes on; the errored unit is retried on the next invocation
    records = asyncio.run(runner.run(_units(["first", "second"]), concurrency=1))
    assert sorted((r.key, r.status) for r in records) == [("first", "ok"), ("second", "ok")]
    latest = store.latest()
    assert latest["first"].status == "ok" and len(store.records()) == 3
    store.close()


def test_a_permanent_error_is_not_retried(tmp_path: Path, server_factory: Any) -> None:
    server = server_factory([400])
    model = get_model("openai:scripted", base_url=server.url, api_key="k", concurrency=1)
    runner = Runner(RunStore(tmp_path), {"target": model}, progress=False,
                    retry=RetryPolicy(attempts=5, base_delay=0.01))
    (record,) = asyncio.run(runner.run(_units(["x"])))
    assert record.status == "error"
    assert server.seen == 1
