"""creval: measure the creativity of language models.

The public surface is small, and nothing heavy loads until it is used::

    import creval

    result = creval.evaluate(["dat"], model="local", trials=3, out="runs/dat")
    run = creval.read_run("runs/dat")          # read-only, safe beside a live run
    run.samples_df()                            # pandas: one row per unit
    creval.read_runs("runs/*/dat").scores_df()  # one row per run, to compare models

Lower layers stay importable on their own (``creval.models``, ``creval.metrics``,
``creval.embed``, ``creval.benchmarks``, ``creval.judges``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "CrevalError",
    "EvalResult",
    "Manifest",
    "Record",
    "Run",
    "Scores",
    "compare_published",
    "evaluate",
    "evaluate_async",
    "list_benchmarks",
    "plan",
    "profile",
    "read_profile",
    "read_run",
    "read_runs",
    "read_sweep",
    "sweep",
]

_WHERE = {
    "CrevalError": "creval.errors",
    "EvalResult": "creval.evaluation",
    "compare_published": "creval.evaluation.compare.paired",
    "evaluate": "creval.evaluation",
    "evaluate_async": "creval.evaluation",
    "Manifest": "creval.records",
    "Record": "creval.records",
    "Scores": "creval.records",
    "plan": "creval.evaluation.run.cost",
    "profile": "creval.evaluation.profile.profiling",
    "read_profile": "creval.reader",
    "Run": "creval.reader",
    "read_run": "creval.reader",
    "read_runs": "creval.reader",
    "sweep": "creval.evaluation.sweep.sweeping",
    "read_sweep": "creval.evaluation.sweep.sweeping",
}

if TYPE_CHECKING:
    from creval.errors import CrevalError
    from creval.evaluation.api import EvalResult, evaluate, evaluate_async
    from creval.evaluation.compare.paired import compare_published
    from creval.evaluation.profile.profiling import profile
    from creval.evaluation.run.cost import plan
    from creval.evaluation.sweep.sweeping import read_sweep, sweep
    from creval.reader import Run, read_profile, read_run, read_runs
    from creval.records import Manifest, Record, Scores


def list_benchmarks() -> dict[str, str]:
    """Registered benchmark names and what each measures."""
    from creval.benchmarks.base import registry

    return {name: cls.description for name, cls in registry().items()}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'creval' has no attribute {name!r}")
