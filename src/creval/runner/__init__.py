"""Orchestration: concurrency, response cache, run store, resume and progress."""

from creval.runner.cache import ResponseCache, cache_key, default_cache_path
from creval.runner.counters import Counters
from creval.runner.engine import RetryPolicy, Runner, Unit, UnitContext, UnitFailed
from creval.runner.store import Record, RunStore

__all__ = [
    "Counters",
    "Record",
    "ResponseCache",
    "RetryPolicy",
    "RunStore",
    "Runner",
    "Unit",
    "UnitContext",
    "UnitFailed",
    "cache_key",
    "default_cache_path",
]
