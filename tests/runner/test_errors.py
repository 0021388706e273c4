"""Failures that survive their retries become error records; transient ones are retried."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from creval.models import get_model
from creval.models.base import GenerateRequest
from creval.runner import RetryPolicy, Runner, RunStore, Unit, UnitContext


class ScriptedServer:
    """A real HTTP server on loopback that answers chat completions from a script.

    ``script`` is a list of status codes consumed one per request; when it runs out every
    request gets 200 with a small completion.
    """

    def __init__(self, script: list[int]) -> None:
        self.script = list(script)
        self.seen = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.seen += 1
                status = owner.script.pop(0) if owner.script else 200
                if status != 200:
                    payload = json.dumps({"error": {"message": f"scripted {status}"}}).encode()
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("retry-after", "0")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                text = "echo: " + body["messages"][-1]["content"]
                payload = json.dumps({
                    "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
                }).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server_factory() -> Iterator[Any]:
    servers: list[ScriptedServer] = []

    def make(script: list[int]) -> ScriptedServer:
        servers.append(ScriptedServer(script))
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
