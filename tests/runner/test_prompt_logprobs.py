"""Prompt log-probabilities through the runner: cached by model, text, window and stride;
counted (a request per window, the tokens fed as input tokens); retried; a model that cannot
give them refused by name without a request; a dead endpoint trips the breaker."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from creval.models import ModelOptions, get_model
from creval.models.base import Model
from creval.runner import RetryPolicy, Runner, RunStore, Unit, UnitContext
from creval.runner.cache import ResponseCache
from creval.runner.engine import ModelRefused

TEXT = "A quiet harbour at dawn, gulls circling the fishing boats as they head out to sea."


def _units(texts: list[str], window: int | None = None, stride: int | None = None) -> list[Unit]:
    def make(i: int, text: str) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, Any]:
            try:
                scores = await ctx.prompt_logprobs(text, window=window, stride=stride)
            except ModelRefused as exc:
                return {"refused": str(exc)}
            return {"logprobs": scores.logprobs(), "windows": scores.windows}

        return Unit(key=f"t{i}", run=run)

    return [make(i, t) for i, t in enumerate(texts)]


def _run(tmp: Path, model: Model, units: list[Unit], cache: ResponseCache | None) -> tuple[list[Any], dict[str, int]]:
    runner = Runner(RunStore(tmp), {"target": model}, cache=cache, progress=False,
                    retry=RetryPolicy(attempts=3, base_delay=0.01))
    records = asyncio.run(runner.run(units))
    return sorted(records, key=lambda r: r.key), runner.counters.per_model.get(model.spec, {})


@pytest.mark.slow
def test_local_scores_are_counted_then_served_from_the_cache(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    model = get_model("local", ModelOptions(n_ctx=512, threads=1))
    cache = ResponseCache(tmp_path / "cache.sqlite")
    try:
        (first,), counted = _run(tmp_path / "a", model, _units([TEXT]), cache)
        (again,), cached = _run(tmp_path / "b", model, _units([TEXT]), cache)
        (windowed,), other = _run(tmp_path / "c", model, _units([TEXT], window=8, stride=4), cache)
    finally:
        cache.close()
        asyncio.run(model.aclose())
    n = len(first.output["logprobs"]) + 1  # SmolLM2 has no BOS: the first token is context only
    assert counted["requests"] == 1 and counted["input_tokens"] == n and counted["cache_hits"] == 0
    assert cached["requests"] == 0 and cached["cache_hits"] == 1 and cached["input_tokens"] == 0
    assert again.output == first.output
    # another window is another key: asked again, one request per window
    assert other["cache_hits"] == 0 and other["requests"] == windowed.output["windows"] > 1
    assert len(windowed.output["logprobs"]) == n - 1
    call = first.calls[0]
    assert call["prompt_request"]["text"] == TEXT and call["prompt_scores"]["windows"] == 1


def test_a_model_without_prompt_logprobs_is_refused_by_name_without_a_request(tmp_path: Path) -> None:
    from _servers import ChatServer

    server = ChatServer()
    try:
        model = get_model("openai:m", base_url=server.url, api_key="k")
        (record,), counts = _run(tmp_path, model, _units([TEXT]), None)
    finally:
        server.close()
    assert record.status == "ok" and server.seen == 0 and counts.get("requests", 0) == 0
    assert "gives no prompt log-probabilities" in record.output["refused"]
    assert "--prompt-logprobs vllm" in record.output["refused"] and "hf:NAME" in record.output["refused"]


@pytest.mark.slow
def test_server_errors_are_retried_and_counted(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    from _prompt_server import PromptServer

    server = PromptServer("vllm", script=[503, 429])
    try:
        model = get_model("openai:m", ModelOptions(base_url=server.url, api_key="k", prompt_logprobs="vllm"))
        (record,), counts = _run(tmp_path, model, _units([TEXT]), None)
    finally:
        server.close()
    assert record.status == "ok" and len(record.output["logprobs"]) > 10
    assert counts["retries"] == 2 and counts["requests"] == 3 and counts["errors"] == 0
    assert counts["input_tokens"] == len(record.output["logprobs"]) + 1


def test_a_dead_endpoint_trips_the_breaker_and_leaves_units_not_run(tmp_path: Path) -> None:
    from _servers import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    model = get_model("openai:m", ModelOptions(base_url=url, api_key="k", prompt_logprobs="vllm"))
    runner = Runner(RunStore(tmp_path), {"target": model}, progress=False,
                    retry=RetryPolicy(attempts=5, base_delay=0.01))
    records = asyncio.run(runner.run(_units([TEXT, TEXT + " Again."]), concurrency=1))
    assert records == [] and runner.counters.units_not_run == 2 and url.removesuffix("/v1") in str(runner.down)
