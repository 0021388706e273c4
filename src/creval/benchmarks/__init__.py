"""Benchmarks, one package each, registered by name."""

from creval.benchmarks import (  # noqa: F401  (register)
    aut,
    dat,
    dieprobe,
    lotbench,
    metric_validity,
    neocoder,
    noveltybench,
    oogiri,
    openended,
    sat,
    slop,
    ttct,
    ttcw,
)
from creval.benchmarks.base import (
    Benchmark,
    BenchmarkOptions,
    get_benchmark,
    option,
    register_benchmark,
    registry,
)

__all__ = [
    "Benchmark",
    "BenchmarkOptions",
    "get_benchmark",
    "option",
    "register_benchmark",
    "registry",
]
