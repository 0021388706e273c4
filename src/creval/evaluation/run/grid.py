"""A grid of runs: several models x several benchmarks in one command.

Each (model, benchmark) is one run directory with its one writer. With the local executor the
runs go one after the other in this process; with ``--executor ray`` and more than one run,
each run is a Ray task that calls :func:`creval.evaluation.run.runs.run_benchmark` in a worker
process (whose heavy work goes to Ray in turn), so runs proceed side by side and a run whose
worker dies is retried by Ray and resumes its own directory.

Run directories: one model keeps ``creval run``'s layout (``runs/SLUG/BENCH``, or ``--out``
for one benchmark, ``--out/BENCH`` for several); several models give ``ROOT/SLUG/BENCH``
with ``ROOT`` the ``--out`` (default ``runs``). A ``replay:ROOT`` whose ``ROOT`` holds one
folder per benchmark (an earlier grid or multi-benchmark run) replays ``ROOT/BENCH`` for
each benchmark.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.run.plans import Plan, plan_runs, slug
from creval.evaluation.run.runs import RunResult, RunSettings, run_benchmark
from creval.records import RECORDS


@dataclass(frozen=True)
class GridRun:
    """One cell of the grid: the model spec and the benchmark's plan (options, directory)."""

    model: str
    plan: Plan


def replay_for(model: str, benchmark: str) -> str:
    """The model spec of ``benchmark``: a ``replay:ROOT`` of several benchmarks' runs (one
    folder each, no ``records.jsonl`` of its own) becomes ``replay:ROOT/BENCHMARK``; every
    other spec is returned as given.

    >>> replay_for("openai:gpt-4o", "dat")
    'openai:gpt-4o'
    """
    if not model.startswith("replay:"):
        return model
    root = Path(model.removeprefix("replay:"))
    if root.is_dir() and not (root / RECORDS).is_file() and (root / benchmark / RECORDS).is_file():
        return f"replay:{root / benchmark}"
    return model


def plan_grid(
    names: list[str], values: dict[str, Any], out: Path | None, models: Sequence[str],
    *, preset: str | None = None, judge: str | None = None,
    roles: Mapping[str, str] | None = None, role_urls: Mapping[str, str] | None = None,
) -> list[GridRun]:
    """Every (model, benchmark) run with its validated options and directory, model by model,
    before anything runs (see the module docstring for the directories)."""
    models = list(models)
    if not models:
        raise CrevalError("Name at least one model: --model SPEC (repeat it for several).")
    repeated = sorted({m for m in models if models.count(m) > 1})
    if repeated:
        raise CrevalError(f"--model {repeated[0]} is given twice; name each model once.")
    slugs = [slug(m) for m in models]
    clash = sorted({s for s in slugs if slugs.count(s) > 1})
    if clash:
        raise CrevalError(
            f"Models {', '.join(m for m in models if slug(m) == clash[0])} would share the run "
            f"folder {clash[0]}; run them into separate --out folders.")
    runs = []
    for model in models:
        plans = plan_runs(names, values, out if len(models) == 1 else None, model,
                          preset=preset, judge=judge, roles=roles, role_urls=role_urls)
        for plan in plans:
            if len(models) > 1:
                plan = dataclasses.replace(
                    plan, out=(out or Path("runs")) / slug(model) / plan.benchmark.name)
            runs.append(GridRun(replay_for(model, plan.benchmark.name), plan))
    return runs


def settings_for(run: GridRun, settings: RunSettings) -> RunSettings:
    """``settings`` with the run's model, judge and role models."""
    return dataclasses.replace(settings, model=run.model, judge=run.plan.judge,
                               roles=run.plan.roles)


def _run_one(job: tuple[GridRun, RunSettings, str, list[str]]) -> RunResult:
    """One grid cell, in a Ray worker: the whole run, its own directory's only writer.

    The worker works in the driver's folder, so relative paths (``--out``, ``replay:``,
    ``local:PATH``, the cache) mean what they mean to the driver: the cluster's workers must
    see the driver's file system (one machine, or a shared one). The manifest records the
    driver's command, not the worker's."""
    import os
    import sys

    run, settings, folder, argv = job
    if not Path(folder).is_dir():
        raise CrevalError(f"This Ray worker cannot see the driver's folder {folder}: grid runs "
                          "need a file system shared by the driver and the workers.")
    os.chdir(folder)
    sys.argv = list(argv)
    return run_benchmark(run.plan.benchmark, run.plan.options, run.plan.out, settings)


def run_grid(runs: Sequence[GridRun], settings: RunSettings) -> list[RunResult]:
    """Run every cell of the grid (see the module docstring); results in the order of ``runs``.

    ``settings.model`` is replaced by each run's model. Under ``executor="ray"`` with more
    than one run, each run is a Ray task (progress bars off).
    """
    if settings.panel is not None:  # --judge a,b,c: one run per judge, one cell after the other
        from creval.evaluation.panel.panels import run_plan

        return [run_plan(r.plan, settings_for(r, settings)) for r in runs]
    if settings.executor != "ray" or len(runs) < 2:
        return [run_benchmark(r.plan.benchmark, r.plan.options, r.plan.out, settings_for(r, settings))
                for r in runs]
    import os
    import sys

    from creval.runner.executors import get_executor

    executor = get_executor("ray", address=settings.ray_address, workers=settings.workers)
    try:
        quiet = dataclasses.replace(settings, progress=False)
        jobs = [(r, settings_for(r, quiet), os.getcwd(), list(sys.argv)) for r in runs]
        return executor.map(_run_one, jobs, label="grid")
    finally:
        executor.close()
