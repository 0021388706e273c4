"""Published reference values, gathered from every registered benchmark, and when a run may
stand beside them.

Each benchmark declares its papers' values through its hooks
(:meth:`creval.benchmarks.base.Benchmark.published_references`), typed in
:mod:`creval.records.references`; the seed papers' values live as data, one JSON file per
paper in ``creval/data/references/`` (our own transcription of the papers' tables; see the
README there). Each value names the **protocol** it was measured under: the benchmark, the
data, how many items, the judge and other evaluator models, and the benchmark options that
change the number. Whether a run's measurement may stand beside a published one is decided
by :mod:`creval.evaluation.compare.comparability`, the one set of rules; this module gathers
the data.

>>> refs = references_for("jcq", "mean")
>>> ref, protocol = next((r, p) for r, p in refs if r.subject == "GPT-4o")
>>> ref.value, ref.source, protocol.judge
(3.64, 'Table 3, section 4.2', ('gpt-4o',))
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.records.references import (
    DATA_IDENTITIES,
    Kind,
    PaperReferences,
    Protocol,
    Reference,
    parse_references,
)

if TYPE_CHECKING:
    from creval.benchmarks.base import Benchmark


def registered_benchmark(benchmark: str) -> Benchmark[Any] | None:
    """The registered benchmark ``benchmark`` (an instance, to ask its declarations), or None."""
    from creval.benchmarks.base import registry

    cls = registry().get(benchmark)
    return None if cls is None else cls()


def declaring() -> list[Benchmark[Any]]:
    """Every registered benchmark (built-in and plug-in), as instances to ask."""
    from creval.benchmarks.base import registry

    return [cls() for cls in registry().values()]


def load_references(directory: Path | None = None) -> list[PaperReferences]:
    """Every paper's references, sorted by file name: those every registered benchmark
    declares (default), or the JSON files of ``directory``; a malformed file raises
    :class:`CrevalError` naming the file and the field."""
    if directory is not None:
        if not directory.is_dir():
            raise CrevalError(f"References folder {directory} does not exist.")
        return [parse_references(p.name, p.read_text(encoding="utf-8"))
                for p in sorted(directory.glob("*.json"))]
    papers: dict[str, PaperReferences] = {}
    for bench in declaring():
        for paper in bench.published_references():
            papers.setdefault(paper.file, paper)
    return [papers[name] for name in sorted(papers)]


def references_for(benchmark: str, measure: str,
                   refs: Sequence[PaperReferences] | None = None) -> list[tuple[Reference, Protocol]]:
    """The published values of ``measure`` of ``benchmark``, each with its protocol."""
    papers = load_references() if refs is None else refs
    return [(v, p.protocols[v.protocol]) for p in papers for v in p.values
            if v.benchmark == benchmark and v.measure == measure]


__all__ = ["DATA_IDENTITIES", "Kind", "PaperReferences", "Protocol", "Reference", "registered_benchmark",
           "declaring", "load_references", "references_for"]
