"""NoveltyBench's published per-prompt results as references for paired tests, declared for
``compare --published`` and ``compare --homogeneity`` (which read them through the benchmark's
hooks), and its ``creval data fetch`` source.

The site ``novelty-bench/novelty-bench.github.io`` (no licence stated: read at run time from
the user's copy, never shipped) holds, per model, ``eval/03-27-2025/curated/<family>/<model>/
scores.jsonl``: per prompt the 10 generations, their partition, ``distinct`` (stored as
``max(partition)``, one less than the number of classes) and ``utility``. Each model becomes a
:class:`~creval.records.references.Published` source with two per-prompt measures:
``distinct`` (the number of classes: the stored value plus one, as a run reports it) and
``utility``. A run's own values are its ``scores.json`` table rows, by prompt id.

Comparability: the same data (the paper's prompts, by item digest), k = 10, the default
sampling at temperature 1 and 512 tokens, patience 0.8, the packaged wording. The published
partitions come from the paper's similarity classifier and its utility from its reward model;
a run partitioned and rated by an LLM judge (the paper's ``gpt4`` equivalence protocol) is
placed beside them with that difference of instruments said in the protocol. ``--quality
reward`` with the paper's reward model measures utility as the paper did.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.reader import Run
from creval.records.references import (
    DataSource,
    ItemValues,
    PaperData,
    Protocol,
    Published,
    PublishedItems,
)

RELEASE = ("eval", "03-27-2025")
MEASURES = ("distinct", "utility")
#: Partitioners placed beside the published partitions: the paper's own classifier (the
#: ``similarity`` entailment spec, by name or by the hub id of its weights) and the paper's
#: LLM-judge protocol (v1.1). Offline stand-ins are not (docs: noveltybench-partitioners).
PARTITIONERS: tuple[str, ...] = (
    "similarity", "similarity:yimingzhang/deberta-v3-large-generation-similarity", "judge")
INSTRUMENTS = ("the published partitions come from the paper's similarity classifier and its "
               "utility from its reward model (Skywork-Reward-Gemma-2-27B, mapped to 1-10); "
               "this run's from its --partitioner and --quality: a difference mixes the model "
               "and the instruments")


def protocol() -> Protocol:
    return Protocol(
        id="noveltybench-published-03-27-2025", benchmark="noveltybench",
        data="novelty-bench/novelty-bench data (curated and WildChat prompts)", items=None,
        judge=None,
        description="NoveltyBench, the site's published per-prompt results (03-27-2025, "
        "curated): 10 answers per prompt at temperature 1, partitioned and scored by the "
        "paper's code; " + INSTRUMENTS,
        options={"subset": (None, "curated", "both"), "k": 10, "sampling": "default",
                 "max_tokens": 512, "temperature": 1.0, "partitioner": PARTITIONERS,
                 "quality": ("reward", "judge"), "patience": 0.8,
                 "reward_model": "Skywork/Skywork-Reward-Gemma-2-27B-v0.2", "judge_prompt_file": None,
                 "quality_prompt_file": None, "system_prompt_file": None,
                 "again_prompt_file": None,
                 # a run's per-prompt value is the mean over its sets of k (one set per repeat),
                 # an estimate of what the published single set of k measures
                 "repeats": tuple(range(1, 101))})


def run_values(run: Run) -> ItemValues:
    """The run's per-prompt distinct (classes) and utility, by prompt id."""
    out: ItemValues = {m: {} for m in MEASURES}
    for row in run.scores.table if run.scores is not None else []:
        if "id" in row and "distinct" in row:
            out["distinct"][str(row["id"])] = float(row["distinct"])
            if row.get("utility") is not None:
                out["utility"][str(row["id"])] = float(row["utility"])
    return out


def site_folder(run: Run, published: Path | None) -> Path | None:
    """The site's copy: ``published`` when given (the site or its ``eval`` folder), else a
    ``site`` folder beside or above the run's ``--data``."""
    candidates = [published] if published is not None else []
    data = run.manifest.options.get("data")
    if published is None and data not in (None, ""):
        base = Path(str(data))
        candidates += [base / "site", base.parent / "site", base.parent.parent / "site"]
    for base in candidates:
        for folder in (base, base.parent):
            if (folder / Path(*RELEASE)).is_dir():
                return folder
    if published is not None:
        raise CrevalError(f"{published} holds no {'/'.join(RELEASE)} folder: point "
                          "--published-data at a copy of novelty-bench/novelty-bench.github.io.")
    return None


def published_sources(site: Path) -> list[tuple[str, str, ItemValues]]:
    """(model, file, values) of every published ``scores.jsonl`` of the curated subset."""
    out = []
    for path in sorted((site / Path(*RELEASE) / "curated").glob("*/*/scores.jsonl")):
        stat = path.stat()
        out.append((path.parent.name, str(path),
                    _scores_file(str(path.resolve()), stat.st_mtime_ns, stat.st_size)))
    return out


@lru_cache(maxsize=64)
def _scores_file(path: str, mtime_ns: int, size: int) -> ItemValues:
    values: ItemValues = {m: {} for m in MEASURES}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row: dict[str, Any] = json.loads(line)
            values["distinct"][str(row["id"])] = float(row["distinct"]) + 1  # stored: max index
            values["utility"][str(row["id"])] = float(row["utility"])
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise CrevalError(f"{path}:{number}: not a NoveltyBench scores line ({exc}); each "
                              "needs id, distinct and utility.") from None
    return values


def reference_generations(run: Run) -> list[tuple[str, str, dict[str, list[str]]]]:
    """(model, file, answers by the run's unit key) of each published model's generations on
    the prompts ``run`` answered, for ``compare --homogeneity``; [] when the site is not beside
    the run's data."""
    site = site_folder(run, None)
    if site is None:
        return []
    keys = {str(r.unit.get("id")): r.key for r in run.records if r.status == "ok"}
    out = []
    for path in sorted((site / Path(*RELEASE) / "curated").glob("*/*/scores.jsonl")):
        answers: dict[str, list[str]] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if str(row.get("id")) in keys:
                answers[keys[str(row["id"])]] = [g.strip() for g in row.get("generations", [])
                                                 if isinstance(g, str) and g.strip()]
        out.append((path.parent.name, str(path), answers))
    return out


#: The paper's data: the prompts by their digests (``creval/data/paper_items/noveltybench.json``).
PAPER_DATA = PaperData("data", items="noveltybench.json")


def published_items() -> PublishedItems:
    return PublishedItems(
        protocol(), MEASURES, item_identity="the prompt's id in novelty-bench/novelty-bench data",
        licence="none stated (novelty-bench/novelty-bench.github.io): read at run time from "
        "your copy, never shipped",
        fetched_from="site/ of `creval data fetch noveltybench`, beside the run's --data, or "
        "--published-data")


def read_published(run: Run, published: Path | None) -> tuple[list[Published], str | None]:
    site = site_folder(run, published)
    if site is None:
        return [], ("the site's published results were not found beside the run's --data; "
                    "pass --published-data with a copy of novelty-bench.github.io")
    return [Published(model, "noveltybench", protocol(), file, values)
            for model, file, values in published_sources(site)], None


def data_source() -> DataSource:
    from creval.benchmarks.noveltybench.data import CODE_COMMIT, FETCHED_SHA256, SITE_COMMIT

    return DataSource(
        "noveltybench",
        "NoveltyBench prompts (novelty-bench/novelty-bench, MIT) and eight models' published "
        "per-prompt scores (its site, no licence stated: for your own comparisons)",
        "creval.benchmarks.noveltybench.data:fetch_noveltybench",
        url="https://github.com/novelty-bench/novelty-bench",
        commit=f"{CODE_COMMIT} (site {SITE_COMMIT})", digests=dict(FETCHED_SHA256),
        licence="MIT (prompts); none stated (the site's scores)")
