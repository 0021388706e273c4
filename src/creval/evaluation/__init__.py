"""The application layer: run benchmarks against models, from the CLI or from Python.

``runs`` wires one invocation (models and roles, resume checks, the runner, scoring,
reports); ``plans`` what an invocation will run; ``api`` is :func:`evaluate` and :func:`evaluate_async` on top of it; ``roles``
chooses each role's model and ``presets`` holds the papers' own settings. The command line
and ``creval.evaluate`` both come through here; nothing below imports it.
"""

from __future__ import annotations

from creval.evaluation.api import BenchmarkResult, EvalResult, evaluate, evaluate_async
from creval.evaluation.run.plans import Plan, plan_runs
from creval.evaluation.run.runs import SELF_JUDGED, RunResult, RunSettings, run_benchmark

__all__ = [
    "SELF_JUDGED",
    "BenchmarkResult",
    "EvalResult",
    "Plan",
    "RunResult",
    "RunSettings",
    "evaluate",
    "evaluate_async",
    "plan_runs",
    "run_benchmark",
]
