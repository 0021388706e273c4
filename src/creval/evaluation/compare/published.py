"""Published per-item results, and a run's own values on the same items, read through each
benchmark's declarations.

A paper that released results item by item lets a run be compared with each published model
on the very items both measured (:mod:`creval.evaluation.compare.paired`). Which results, under
which protocol, from where and with which licence: the benchmark declares it
(:meth:`~creval.benchmarks.base.Benchmark.published_items`,
:meth:`~creval.benchmarks.base.Benchmark.read_published_items`,
:meth:`~creval.benchmarks.base.Benchmark.item_values`); this module asks the registered
benchmark and names none. A run is compared with a source only when it measured the same
way (:func:`creval.evaluation.compare.paired.comparable`).
"""

from __future__ import annotations

from pathlib import Path

from creval.reader import Run
from creval.records.references import ItemValues, Protocol, Published
from creval.report.references import registered_benchmark


def benchmark_of(run: Run) -> str:
    return run.manifest.benchmark


def run_item_values(run: Run) -> ItemValues:
    """Per-item values of ``run`` keyed by item id, as its benchmark declares them (per
    question for the rubric benchmarks, ``pass@1@t`` per problem for NeoCoder...); empty for
    a benchmark without item ids."""
    bench = registered_benchmark(benchmark_of(run))
    return {} if bench is None else bench.item_values(run)


def source_protocol(benchmark: str) -> Protocol | None:
    """The protocol of the published per-item results of ``benchmark`` (None: there are none)."""
    bench = registered_benchmark(benchmark)
    items = None if bench is None else bench.published_items()
    return None if items is None else items.protocol


def find_published(run: Run, published: Path | None = None) -> tuple[list[Published], str | None]:
    """The published per-item results for ``run`` and, when there are none, why not.

    Call it only for a run comparable with :func:`source_protocol` (a benchmark may judge
    released answers here, NeoCoder's codes in the sandbox)."""
    name = benchmark_of(run)
    bench = registered_benchmark(name)
    if bench is None:
        return [], f"no paper released per-item results of {name}"
    return bench.read_published_items(run, published)


__all__ = ["ItemValues", "Published", "benchmark_of", "find_published", "run_item_values",
           "source_protocol"]
