"""creval from Python: :func:`evaluate` and :func:`evaluate_async`.

They run exactly what ``creval run`` runs (the same run directories, cache, resume and
reports) and return an :class:`EvalResult` with typed scores. ``evaluate`` works in scripts
and inside a running event loop (a Jupyter cell); ``evaluate_async`` can be awaited.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, TypeVar

from creval.errors import CrevalError
from creval.evaluation.run.grid import plan_grid, run_grid
from creval.evaluation.run.runs import RunResult, RunSettings
from creval.models import ModelOptions
from creval.reader import Run, Runs, read_run
from creval.records import Scores
from creval.runner.cache import default_cache_path
from creval.runner.engine import RetryPolicy


@dataclass(frozen=True)
class BenchmarkResult:
    """One benchmark's run: where it is, its scores and this invocation's counters."""

    benchmark: str
    out: Path
    scores: Scores
    #: Endpoints that stopped answering mid-run (the rest of the units were not run).
    endpoints_down: dict[str, str]
    model: str = ""  # the target model's spec

    @property
    def ok(self) -> bool:
        """True when every unit finished without an error."""
        return not self.scores.units.errors and not self.scores.units.missing

    def run(self) -> Run:
        """The run directory, read-only (records, data frames)."""
        return read_run(self.out)


class EvalResult(list[BenchmarkResult]):
    """The results of :func:`evaluate`, one per benchmark, in the order asked."""

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            for result in self:
                if result.benchmark == key:
                    return result
            raise KeyError(f"no result for benchmark {key!r}; have {[r.benchmark for r in self]}")
        return super().__getitem__(key)

    def runs(self) -> Runs:
        """The run directories, read-only, to stack their data frames."""
        return Runs(r.run() for r in self)


def evaluate(
    benchmarks: str | Sequence[str],
    *,
    model: str = "local",
    models: Sequence[str] | None = None,
    judge: str | None = None,
    out: str | Path | None = None,
    base_url: str | None = None,
    judge_base_url: str | None = None,
    roles: Mapping[str, str] | None = None,
    role_base_urls: Mapping[str, str] | None = None,
    api_key: str | None = None,
    timeout: float = 120.0,
    concurrency: int | None = None,
    threads: int | None = None,
    replicas: int | None = None,
    retries: int = 5,
    cache: str | Path | bool = True,
    rescore: bool = False,
    progress: bool = False,
    preset: str | None = None,
    structured_output: Literal["off", "auto", "json_schema", "json_object"] = "off",
    prompt_logprobs: Literal["off", "auto", "vllm", "echo"] = "off",
    batch: bool = False,
    batch_poll: float = 30.0,
    reasoning_effort: Literal["low", "medium", "high"] | None = None,
    executor: Literal["local", "ray"] = "local",
    ray_address: str | None = None,
    workers: int | None = None,
    panel_aggregate: Literal["mean", "majority", "trimmed"] = "mean",
    allow_same_family_judge: bool = False,
    **options: Any,
) -> EvalResult:
    """Run ``benchmarks`` against ``model`` and score them, as ``creval run`` does.

    ``options`` are benchmark options by name (``trials=3``, ``lang="ja"``, ``limit=2``);
    each benchmark takes those it has. ``out`` is the run directory (one per benchmark below
    it when there are several; default ``runs/MODEL/BENCHMARK``): the same ``out`` resumes.
    ``cache``: True for the default response cache, a path for another, False for none.
    ``threads``, ``replicas``: CPU threads of an in-process ``local`` model and how many copies
    of it answer (each with ``threads`` threads), as ``--threads`` and ``--replicas``.
    ``preset="paper"``: each benchmark's judge and resources as its paper used them.
    ``prompt_logprobs``: how an ``openai:`` endpoint gives perplexity its prompt
    log-probabilities (``off``, ``auto``, ``vllm``, ``echo``), as ``--prompt-logprobs``.
    ``roles``: models of the benchmarks' own roles (``{"e1": SPEC, "e2": SPEC}`` for
    lotbench, ``{"rewriter": SPEC}`` for oogiri; see ``Benchmark.extra_roles``), each falling
    back to ``judge``, then ``model``; ``role_base_urls`` their endpoints, as ``judge_base_url``.
    ``models``: several model specs instead of ``model``, a grid of runs (one run directory
    per model and benchmark, ``out/SLUG/BENCHMARK``, default ``runs/SLUG/BENCHMARK``; see
    :mod:`creval.evaluation.run.grid`); results come model by model, each with its ``model``.
    ``executor="ray"``: heavy local work (sandbox executions, embedding batches, index
    queries) on Ray workers and, with several runs, each run a Ray task of its own;
    ``ray_address`` the cluster (default ``RAY_ADDRESS``, else a local Ray started for the
    call), ``workers`` how many at once. Scores are those of the default
    ``executor="local"``, and either resumes a run the other began.
    ``batch=True``: an ``openai:`` model's requests go through the OpenAI Batch API (half
    the price, answers within 24 h), polled every ``batch_poll`` seconds; the batches are
    recorded in the run directory (``batches.jsonl``) so that the same call resumes them.
    ``reasoning_effort``: ``low``, ``medium`` or ``high``, sent to an ``openai:`` tested
    model as ``reasoning_effort`` (``--reasoning-effort``); recorded with the run's options.
    ``judge="a,b,c"``: a judge panel (:mod:`creval.evaluation.panel.panels`), one run per judge
    below ``out/judges``, combined per item by ``panel_aggregate`` (``mean``, ``majority``,
    ``trimmed``), ``judge_base_url`` one URL or one per judge (comma-separated); judges of the
    tested model's family are left out unless ``allow_same_family_judge``.
    Bad input raises :class:`creval.errors.CrevalError` before anything is written.

    Inside a running event loop (a notebook) the work runs in a worker thread, since the
    runner needs an event loop of its own.
    """
    names = [benchmarks] if isinstance(benchmarks, str) else list(benchmarks)
    specs = [model] if models is None else [models] if isinstance(models, str) else list(models)
    grid = plan_grid(names, dict(options), Path(out) if out is not None else None, specs,
                     preset=preset, judge=judge, roles=roles, role_urls=role_base_urls)
    settings = run_settings(
        model, judge=judge, base_url=base_url, judge_base_url=judge_base_url,
        role_base_urls=role_base_urls, api_key=api_key, timeout=timeout,
        concurrency=concurrency, threads=threads, replicas=replicas, retries=retries, cache=cache,
        rescore=rescore, progress=progress, structured_output=structured_output,
        prompt_logprobs=prompt_logprobs, batch=batch, batch_poll=batch_poll,
        reasoning_effort=reasoning_effort, panel_aggregate=panel_aggregate,
        allow_same_family_judge=allow_same_family_judge)
    settings = replace(settings, executor=executor, ray_address=ray_address, workers=workers)

    def work() -> EvalResult:
        return EvalResult(_result(r) for r in run_grid(grid, settings))

    return in_own_loop(work)


T = TypeVar("T")


def in_own_loop(work: Callable[[], T]) -> T:
    """``work()`` here, or in a worker thread when an event loop runs here (a notebook):
    the runner needs an event loop of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return work()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(work).result()


def run_settings(
    model: str, *, judge: str | None = None, base_url: str | None = None,
    judge_base_url: str | None = None, role_base_urls: Mapping[str, str] | None = None,
    api_key: str | None = None, timeout: float = 120.0, concurrency: int | None = None,
    threads: int | None = None, replicas: int | None = None, retries: int = 5,
    cache: str | Path | bool = True, rescore: bool = False, progress: bool = False,
    structured_output: Literal["off", "auto", "json_schema", "json_object"] = "off",
    prompt_logprobs: Literal["off", "auto", "vllm", "echo"] = "off",
    batch: bool = False, batch_poll: float = 30.0,
    reasoning_effort: Literal["low", "medium", "high"] | None = None,
    panel_aggregate: Literal["mean", "majority", "trimmed"] = "mean",
    allow_same_family_judge: bool = False,
) -> RunSettings:
    """The :class:`RunSettings` of the Python API's keyword arguments (``judge="a,b,c"``: a
    judge panel, ``judge_base_url`` then one URL or one per judge)."""
    if reasoning_effort not in (None, "low", "medium", "high"):
        raise CrevalError(f"reasoning_effort takes low, medium or high, not {reasoning_effort!r}.")
    from creval.evaluation.panel.panels import is_panel, parse_panel

    panel = parse_panel(judge, judge_base_url, aggregate=panel_aggregate,  # type: ignore[arg-type]
                        allow_same_family=allow_same_family_judge) if is_panel(judge) else None
    if panel is not None:
        judge, judge_base_url = panel.judges[0], None  # each judge's endpoint is the panel's
    model_options = ModelOptions(base_url=base_url, api_key=api_key, timeout=timeout,
                                 concurrency=concurrency, threads=threads, replicas=replicas,
                                 structured_output=structured_output,
                                 prompt_logprobs=prompt_logprobs, batch=batch,
                                 batch_poll=batch_poll, reasoning_effort=reasoning_effort)
    return RunSettings(
        model=model, model_options=model_options, judge=judge,
        judge_options=None if judge_base_url is None else model_options.model_copy(
            update={"base_url": judge_base_url}),
        cache=_cache_path(cache), retry=RetryPolicy(attempts=max(1, retries)),
        progress=progress, rescore=rescore,
        role_options={r: model_options.model_copy(update={"base_url": u})
                      for r, u in (role_base_urls or {}).items()},
        panel=panel,
    )


async def evaluate_async(benchmarks: str | Sequence[str], **kwargs: Any) -> EvalResult:
    """:func:`evaluate`, awaitable: it runs in a worker thread and leaves the loop free."""
    return await asyncio.to_thread(evaluate, benchmarks, **kwargs)


def _cache_path(cache: str | Path | bool) -> Path | None:
    if cache is True:
        return default_cache_path()
    if cache is False:
        return None
    return Path(cache)


def _result(run: RunResult) -> BenchmarkResult:
    return BenchmarkResult(run.benchmark, run.out, run.scores, dict(run.endpoints_down),
                           run.model)
