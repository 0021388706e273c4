"""``creval score ppl TEXTS.jsonl``: perplexity of each text under a model, through the runner.

Each text is one unit of a small in-memory run: its prompt log-probabilities come from the
response cache when an earlier call scored the same text with the same model, window and
stride, and every request is counted, retried and behind the endpoint's breaker, as in
``creval run``. One JSON line per text (its perplexity, tokens, window, stride and windows,
or ``excluded`` with the reason); the summary line gives the requests and cache hits.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from creval.cli._common import CacheFile, NoCache, Out, TextField, TextsFile, read_texts, write_rows
from creval.errors import CrevalError


def _unit(key: str, text: str, window: int | None, stride: int | None) -> Any:
    from creval.metrics.perplexity import perplexity
    from creval.runner.engine import ModelRefused, Unit, UnitContext

    async def run(ctx: UnitContext) -> dict[str, Any]:
        if not text.strip():
            return {"excluded": "empty text"}
        try:
            scores = await ctx.prompt_logprobs(text, window=window, stride=stride)
        except ModelRefused as exc:
            return {"excluded": str(exc)}
        if not scores.tokens:
            return {"excluded": "no scored token (the text has fewer than two tokens)"}
        return {"tokens": len(scores.tokens), "ppl": perplexity(scores.logprobs()),
                "window": scores.window, "stride": scores.stride, "windows": scores.windows,
                "logprobs": scores.logprobs()}

    return Unit(key=key, run=run)


def _check(backend: Any) -> None:
    """Reach an endpoint (and probe it when asked) before any text is scored."""
    import asyncio

    from creval.models.base import EndpointUnreachable

    async def check() -> None:
        try:
            await backend.check()
        finally:
            await backend.aclose()

    try:
        asyncio.run(check())
    except EndpointUnreachable as exc:
        raise CrevalError(str(exc)) from None


def score_ppl(
    file: TextsFile,
    model: Annotated[str, typer.Option("--model", "-m", help="local, local:PATH.gguf, hf:NAME, or openai:NAME with --prompt-logprobs.")] = "local",
    base_url: Annotated[str | None, typer.Option(help="Endpoint of an openai: model.")] = None,
    prompt_logprobs: Annotated[str, typer.Option(help="openai: how the endpoint gives prompt log-probabilities: off, auto (probe once), vllm (prompt_logprobs) or echo (/completions echo).")] = "off",
    window: Annotated[int | None, typer.Option(help="Tokens per window for long texts (default: the model's context).", min=2)] = None,
    stride: Annotated[int | None, typer.Option(help="Tokens between window starts (default: half the window).", min=1)] = None,
    cache: CacheFile = None,
    no_cache: NoCache = False,
    text_field: TextField = "text",
    out: Out = None,
) -> None:
    """Perplexity of each text under a model (token-weighted), and over all texts pooled."""
    import asyncio
    import tempfile

    from creval.metrics.perplexity import corpus_perplexity
    from creval.models import ModelOptions, get_model
    from creval.models.prompt_scoring import SCORING_BACKENDS
    from creval.runner.cache import open_cache
    from creval.runner.engine import Runner
    from creval.runner.store import RunStore

    if prompt_logprobs not in ("off", "auto", "vllm", "echo"):
        raise CrevalError("--prompt-logprobs takes off, auto, vllm or echo.")
    texts = read_texts(file, text_field)
    backend = get_model(model, ModelOptions(base_url=base_url, prompt_logprobs=prompt_logprobs))  # type: ignore[arg-type]
    refusal = f"{model} gives no prompt log-probabilities; backends that do: {SCORING_BACKENDS}."
    if prompt_logprobs != "auto" and not backend.capabilities.prompt_logprobs:
        raise CrevalError(refusal)  # nothing to ask the endpoint
    if getattr(backend, "check", None) is not None:
        _check(backend)  # reachable, and probed under auto
    if not backend.capabilities.prompt_logprobs:
        raise CrevalError(refusal.replace("gives no", "was probed and gives no"))
    store_cache = open_cache(cache, enabled=not no_cache)
    units = [_unit(f"text-{i}", text, window, stride) for i, (_, text) in enumerate(texts)]
    with tempfile.TemporaryDirectory(prefix="creval-ppl-") as tmp:
        runner = Runner(RunStore(tmp), {"target": backend}, cache=store_cache, progress=False)

        async def run() -> None:
            try:
                await runner.run(units)
            finally:
                await backend.aclose()

        try:
            asyncio.run(run())
        finally:
            if store_cache is not None:
                store_cache.close()
        records = runner.store.latest()
        runner.store.close()
    rows: list[dict[str, Any]] = []
    pooled: list[list[float]] = []
    for i, (text_id, _) in enumerate(texts):
        record = records.get(f"text-{i}")
        if record is None:
            rows.append({"id": text_id, "excluded": f"not run: the endpoint stopped answering ({runner.down})"})
        elif record.status != "ok":
            rows.append({"id": text_id, "excluded": f"error: {record.error}"})
        elif "excluded" in record.output:
            rows.append({"id": text_id, "excluded": record.output["excluded"]})
        else:
            output = dict(record.output)
            pooled.append(output.pop("logprobs"))
            rows.append({"id": text_id, **output})
    total = corpus_perplexity(pooled) if pooled else None
    counts = runner.counters.per_model.get(backend.spec, {})
    write_rows(rows, out, f"ppl: {len(pooled)} scored, {len(rows) - len(pooled)} excluded; pooled "
                      f"perplexity {total if total is None else round(total, 4)} under {model} "
                      f"({counts.get('requests', 0)} requests, {counts.get('cache_hits', 0)} cache hits)")
