"""How far an offline partitioner is from NoveltyBench's: re-partition published generations.

NoveltyBench (Zhang et al. 2025) published, per prompt and model, the 10 generations and the
partition its similarity classifier made of them (``scores.jsonl`` under
``eval/03-27-2025/curated/<family>/<model>/`` of ``novelty-bench/novelty-bench.github.io``).
:func:`partitioner_agreement` re-partitions those same generations with any creval entailment
backend (a :func:`creval.nli.get_entailment` spec: ``embedding:THRESHOLD``, ``llm``, ``hf``,
``similarity``), greedily as the paper does (:func:`creval.nli.partition_texts`: each answer
joins the first class whose first member it is equivalent to), and measures the agreement
with the published partition per prompt (:mod:`creval.metrics.partition_agreement`: adjusted
Rand index, distinct-count error) with means and intervals over prompts.

The published files are read in place (they carry no licence; creval never ships them).
``bench/noveltybench_partitioners.py`` runs this on the published models and writes the table
in ``bench/README.md`` and ``docs/benchmarks/noveltybench-partitioners.md``.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.metrics.intervals import MIN_ITEMS
from creval.metrics.partition_agreement import partition_agreement

if TYPE_CHECKING:
    import pandas as pd

    from creval.nli.base import Entailment

__all__ = [
    "PublishedPrompt",
    "agreement_markdown",
    "partitioner_agreement",
    "published_models",
    "read_published",
    "repartition",
]

#: Where the per-prompt files of the 2025-03-27 curated run sit in the site repository.
CURATED_DIR = ("eval", "03-27-2025", "curated")


@dataclass(frozen=True)
class PublishedPrompt:
    """One prompt of a published run: its generations and the paper's partition of them."""

    id: str
    prompt: str
    generations: tuple[str, ...]
    partition: tuple[int, ...]


def _id_key(prompt_id: str) -> tuple[str, int]:
    """``curated-12`` sorts before ``curated-100``."""
    match = re.fullmatch(r"(.*?)(\d+)", prompt_id)
    return (match.group(1), int(match.group(2))) if match else (prompt_id, -1)


def published_models(site: str | Path) -> dict[str, Path]:
    """Model name -> its ``scores.jsonl``, for every curated model of the site with one.

    ``site`` is a checkout of the site repository (or its ``eval/03-27-2025/curated``).
    """
    root = Path(site).expanduser()
    curated = root if root.name == "curated" else root.joinpath(*CURATED_DIR)
    if not curated.is_dir():
        raise CrevalError(
            f"{curated} is not a directory: pass the NoveltyBench site repository "
            "(novelty-bench/novelty-bench.github.io) or its eval/03-27-2025/curated folder."
        )
    files = sorted(curated.glob("*/*/scores.jsonl"))
    return {path.parent.name: path for path in files}


def read_published(path: str | Path, *, ids: Sequence[str] | None = None) -> list[PublishedPrompt]:
    """The prompts of a published ``scores.jsonl``, sorted by id (or those of ``ids``, in
    that order). Every line needs ``id``, ``prompt``, ``generations`` and one ``partition``
    label per generation."""
    file = Path(path)
    if not file.is_file():
        raise CrevalError(f"{file} does not exist: pass a NoveltyBench scores.jsonl.")
    prompts: dict[str, PublishedPrompt] = {}
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            gens, part = row["generations"], row["partition"]
            item = PublishedPrompt(str(row["id"]), str(row["prompt"]), tuple(map(str, gens)),
                                   tuple(int(c) for c in part))
        except (ValueError, KeyError, TypeError) as exc:
            raise CrevalError(f"{file}:{number}: not a NoveltyBench scores line ({exc}).") from exc
        if len(item.generations) != len(item.partition) or not item.generations:
            raise CrevalError(
                f"{file}:{number}: {len(item.generations)} generations but "
                f"{len(item.partition)} partition labels; they must match."
            )
        prompts[item.id] = item
    if ids is None:
        return [prompts[k] for k in sorted(prompts, key=_id_key)]
    missing = [k for k in ids if k not in prompts]
    if missing:
        raise CrevalError(f"{file} has no prompt {missing[0]!r} ({len(missing)} missing).")
    return [prompts[k] for k in ids]


async def repartition(
    prompts: Sequence[PublishedPrompt], entailment: Entailment, *, mode: str = "strict",
    lookup: str = "both", at_once: int = 1,
) -> list[tuple[int, ...]]:
    """Each prompt's generations partitioned greedily by ``entailment`` (cached per call).

    ``lookup`` is :func:`creval.nli.partition_texts`'s (``"lazy"`` asks the second direction
    of a pair only when the first leaves it open: the same partition, fewer verdicts).
    ``at_once`` prompts are partitioned concurrently, so that a backend that answers several
    pairs together (the ``local`` model's parallel sequences) is kept busy while one
    prompt's next batch waits for its last; the partitions do not depend on it.
    """
    import asyncio

    from creval.nli import CachingEntailment, partition_texts

    if at_once < 1:
        raise CrevalError(f"at_once must be at least 1, got {at_once}.")
    cache = entailment if isinstance(entailment, CachingEntailment) else CachingEntailment(entailment)
    gate = asyncio.Semaphore(at_once)

    async def one(item: PublishedPrompt) -> tuple[int, ...]:
        async with gate:
            result = await partition_texts(list(item.generations), cache, mode=mode, lookup=lookup)
        return result.class_ids

    return list(await asyncio.gather(*(one(item) for item in prompts)))


def _row(model: str, partitioner: str, prompts: Sequence[PublishedPrompt],
         ours: Sequence[Sequence[int]], seconds: float, confidence: float,
         min_items: int) -> dict[str, Any]:  # fmt: skip
    reference = [p.partition for p in prompts]
    summary = partition_agreement(ours, reference, confidence=confidence, min_items=min_items)
    return {
        "model": model, "partitioner": partitioner, "n_prompts": summary.n,
        "ari": summary.ari.mean, "ari_low": summary.ari.low, "ari_high": summary.ari.high,
        "distinct_error": summary.distinct_error.mean, "distinct_error_low": summary.distinct_error.low,
        "distinct_error_high": summary.distinct_error.high, "exact_distinct": summary.exact_distinct,
        "classes_published": sum(len(set(r)) for r in reference) / summary.n,
        "classes_ours": sum(len(set(r)) for r in ours) / summary.n,
        "seconds": seconds,
    }


def partitioner_agreement(
    published: Mapping[str, Sequence[PublishedPrompt]],
    partitioners: Mapping[str, Entailment],
    *,
    mode: str = "strict",
    lookup: str = "both",
    at_once: int = 1,
    confidence: float = 0.95,
    min_items: int = MIN_ITEMS,
) -> pd.DataFrame:
    """One row per (model, partitioner): the agreement of the re-partition with the published
    partitions over the model's prompts.

    Columns: ``model``, ``partitioner``, ``n_prompts``, ``ari`` (mean adjusted Rand index) with
    ``ari_low``/``ari_high``, ``distinct_error`` (mean classes ours - published) with its
    interval, ``exact_distinct`` (share of prompts with the published class count),
    ``classes_published``/``classes_ours`` (mean classes per prompt; NoveltyBench's stored
    per-prompt ``distinct`` is one less) and ``seconds`` spent partitioning. ``lookup`` and
    ``at_once`` go to :func:`repartition`; neither changes a partition.
    """
    import asyncio

    import pandas as pd

    if not published or not partitioners:
        raise CrevalError("Give at least one published model and one partitioner.")
    rows = []
    for name, backend in partitioners.items():
        for model, prompts in published.items():
            if not prompts:
                raise CrevalError(f"Model {model!r} has no prompts to re-partition.")
            start = time.perf_counter()
            ours = asyncio.run(repartition(prompts, backend, mode=mode, lookup=lookup, at_once=at_once))
            rows.append(_row(model, name, prompts, ours, time.perf_counter() - start,
                             confidence, min_items))
    return pd.DataFrame(rows)


def _interval(mean: float, low: float | None, high: float | None, digits: int) -> str:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def agreement_markdown(frame: pd.DataFrame) -> str:
    """The agreement table as Markdown (mean [95% interval]; no interval below 10 prompts)."""
    lines = [
        "| model | partitioner | mean ARI [95% CI] | distinct error [95% CI] | exact distinct "
        "| classes published / ours | n prompts |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in frame.to_dict("records"):
        lines.append(
            f"| {r['model']} | `{r['partitioner']}` | {_interval(r['ari'], r['ari_low'], r['ari_high'], 2)} "
            f"| {_interval(r['distinct_error'], r['distinct_error_low'], r['distinct_error_high'], 2)} "
            f"| {r['exact_distinct']:.0%} | {r['classes_published']:.2f} / {r['classes_ours']:.2f} "
            f"| {r['n_prompts']} |"
        )
    return "\n".join(lines) + "\n"
