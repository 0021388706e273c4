"""One invocation of ``creval run``: open the run directory, run what is missing, score."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.benchmarks.base import Benchmark, BenchmarkOptions
from creval.errors import CrevalError
from creval.models import Model, ModelOptions, get_model
from creval.models.base import EndpointUnreachable, digest
from creval.runner.cache import ResponseCache, default_cache_path
from creval.runner.counters import Counters, sum_usage
from creval.runner.engine import RetryPolicy, Runner
from creval.runner.manifest import build_manifest
from creval.runner.store import RunStore

SCORES_FORMAT = 1


@dataclass
class RunSettings:
    """How to run, as opposed to what to run."""

    model: str = "local"
    model_options: ModelOptions = field(default_factory=ModelOptions)
    #: The judge of LLM-judged benchmarks; None means the target model judges itself.
    judge: str | None = None
    judge_options: ModelOptions | None = None
    cache: Path | None = field(default_factory=default_cache_path)  # None: no cache
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    progress: bool = True
    concurrency: int | None = None
    rescore: bool = False


@dataclass
class RunResult:
    benchmark: str
    out: Path
    scores: dict[str, Any]
    counters: Counters
    ran_units: int


def _check_compatible(
    old: dict[str, Any], new: dict[str, Any], out: Path
) -> None:
    for field_name, label in (("benchmark", "benchmark"), ("model_spec", "model")):
        if old.get(field_name) != new.get(field_name):
            raise CrevalError(
                f"{out} holds a run of {label} {old.get(field_name)!r}, not {new.get(field_name)!r}. "
                "Use another --out for a new run."
            )
    for role in ("model", "judge"):
        if old.get(role, {}).get("identity") != new.get(role, {}).get("identity"):
            raise CrevalError(
                f"{out} was run with a different {role} ({old.get(role, {}).get('identity')}). "
                "Use another --out for a new run."
            )
    old_gen, new_gen = old.get("generation", {}), new.get("generation", {})
    changed = sorted(k for k in set(old_gen) | set(new_gen) if old_gen.get(k) != new_gen.get(k))
    if changed:
        detail = ", ".join(f"--{k.replace('_', '-')}: {old_gen.get(k)!r} -> {new_gen.get(k)!r}" for k in changed)
        raise CrevalError(
            f"{out} was run with other generation options ({detail}). Resume with the same "
            "options, or use another --out for a new run."
        )


async def _preflight(model: Model) -> None:
    check = getattr(model, "check", None)
    if check is not None:
        await check()


def run_benchmark(
    benchmark: Benchmark, options: BenchmarkOptions, out: Path, settings: RunSettings
) -> RunResult:
    """Run ``benchmark`` into ``out`` (resuming what is there), score it, write the report."""
    units = benchmark.units(options)  # bad input stops here, before anything is written
    model = get_model(settings.model, settings.model_options)
    models: dict[str, Model] = {"target": model}
    if "judge" in benchmark.roles:
        same = settings.judge in (None, settings.model) and settings.judge_options is None
        models["judge"] = model if same else get_model(
            settings.judge or settings.model, settings.judge_options or settings.model_options
        )
    manifest = build_manifest(benchmark, options, models)
    store = RunStore(out)
    old = store.read_manifest()
    if old is not None:
        _check_compatible(old, manifest, out)
        manifest["created"] = old.get("created", manifest["created"])
    store.write_manifest(manifest)

    cache = ResponseCache(settings.cache) if settings.cache is not None else None
    runner = Runner(
        store, models, cache=cache, retry=settings.retry, progress=settings.progress,
        label=benchmark.name,
    )
    pending = runner.pending(units)
    started = time.time()
    try:
        if pending:
            asyncio.run(_run(runner, list(models.values()), units, settings.concurrency))
    finally:
        store.log_invocation(
            {"seconds": time.time() - started, "pending": len(pending), **runner.counters.as_dict()}
        )
        if cache is not None:
            cache.close()
    scores = _score(benchmark, options, store, [u.key for u in units], settings.rescore)
    usage_history = [
        {k: inv.get(k) for k in ("units_done", "units_failed", "models")}
        for inv in store.invocations()
    ]
    scores["usage"] = {
        "this_invocation": runner.counters.as_dict(),
        "all_invocations": sum_usage(usage_history),
        "invocations": len(usage_history),
    }
    artifacts = benchmark.write_artifacts(scores, options, out)
    if artifacts:
        scores["artifacts"] = artifacts
    store.write_scores(scores)
    from creval.report.markdown import write_report

    write_report(out, manifest, scores)
    store.close()
    return RunResult(benchmark.name, out, scores, runner.counters, len(pending))


async def _run(
    runner: Runner, models: list[Model], units: list[Any], concurrency: int | None
) -> None:
    unique = list({id(m): m for m in models}.values())
    try:
        try:
            for model in unique:
                await _preflight(model)
        except EndpointUnreachable as exc:
            raise CrevalError(str(exc)) from None
        await runner.run(units, concurrency=concurrency)
    finally:
        for model in unique:
            with contextlib.suppress(Exception):
                await model.aclose()


def _score(
    benchmark: Benchmark, options: BenchmarkOptions, store: RunStore, keys: list[str], force: bool
) -> dict[str, Any]:
    """Score the records of ``keys``; reuse scores.json when nothing it depends on changed."""
    inputs = {
        "format": SCORES_FORMAT,
        "records": store.records_digest(),
        "keys": digest(keys),
        "options": options.model_dump(mode="json"),
    }
    inputs_digest = digest(inputs)
    previous = store.read_scores()
    if not force and previous is not None and previous.get("inputs_digest") == inputs_digest:
        previous.pop("usage", None)
        return previous
    latest = store.latest()
    records = [latest[k] for k in keys if k in latest]
    scores = benchmark.score(records, options)
    errors = [r for r in records if r.status == "error"]
    scores.setdefault("notes", [])
    scores["benchmark"] = benchmark.name
    scores["units"] = {
        "total": len(keys),
        "finished": sum(r.status == "ok" for r in records),
        "errors": len(errors),
        "missing": len(keys) - len(records),
    }
    scores["errors"] = [{"key": r.key, "error": (r.error or "")[:500]} for r in errors[:20]]
    scores["inputs_digest"] = inputs_digest
    return scores
