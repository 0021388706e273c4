"""How far creval's offline partitioners are from NoveltyBench's published partitions.

NoveltyBench published, for 8 models of its 2025-03-27 curated run, every prompt's 10
generations and the partition its DeBERTa similarity classifier made of them. This bench
re-partitions the same generations with each offline partitioner creval has (greedily, as
the paper: :mod:`creval.analyses.noveltybench_partitioners`) and prints the agreement table:
per model and partitioner, the mean adjusted Rand index with the published partition, the
mean error in the number of classes (ours - published), each with a 95% t interval over
prompts, the share of prompts with exactly the published class count, and the prompts used.

Partitioners:

* ``embedding:T``: cosine of the packaged English sentence embedder (``minilm``) at
  threshold T (``--thresholds``; creval's default is 0.85). Each text is embedded once and
  shared by every threshold.
* ``llm``: creval's NLI prompt answered by the offline ``local`` model (SmolLM2-135M), on
  ``--llm-prompts`` prompts of the first ``--llm-models`` models (default 0: skipped). A
  verdict is a ~430-token prompt, 5-6 CPU seconds; they are asked lazily (the second
  direction of a pair only when the first is entailment: the same partition, ~0.65x the
  verdicts), ``--llm-at-once`` prompts at a time, on every CPU with 8 sequences in flight.
  Each model's row is written to ``--json`` as it finishes.
* ``similarity``: the paper's classifier (``yimingzhang/deberta-v3-large-generation-
  similarity``), only when its weights are on this machine (the hub is not reachable here).

The published files are read in place from ``--site`` (default ``../shared/data/noveltybench/site``).

    PYTHONPATH=src .venv/bin/python bench/noveltybench_partitioners.py --prompts 50 \
        --thresholds 0.6 0.7 0.85 --json /tmp/nbp.json
    HF_HUB_OFFLINE=1 PYTHONPATH=src .venv/bin/python bench/noveltybench_partitioners.py \
        --prompts 3 --thresholds --llm-prompts 3 --llm-models 5 --json /tmp/nbp-llm.json
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from creval.analyses.noveltybench_partitioners import (
    agreement_markdown,
    partitioner_agreement,
    published_models,
    read_published,
)
from creval.errors import CrevalError
from creval.nli import Entailment, get_entailment

SITE = Path(__file__).resolve().parents[2] / "shared" / "data" / "noveltybench" / "site"
MODELS = ("gpt-4o-2024-11-20", "gpt-4o-mini-2024-07-18", "gemma-2-9b-it", "Llama-3.1-8B-Instruct",
          "claude-3-5-haiku@20241022", "gemini-1.5-pro", "Llama-3.2-1B-Instruct",
          "command-r7b-12-2024")


class MemoEmbedder:
    """An embedder that embeds each distinct text once (shared by every threshold)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.spec, self._vectors = inner, inner.spec, {}

    def identity(self) -> dict[str, Any]:
        return dict(self.inner.identity())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if todo:
            self._vectors.update(zip(todo, self.inner.embed(todo), strict=True))
        return np.stack([self._vectors[t] for t in texts]) if texts else self.inner.embed([])


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def load(site: Path, models: Sequence[str], n_prompts: int) -> dict[str, list[Any]]:
    """The first ``n_prompts`` prompt ids (by number) common to every model, per model."""
    files = published_models(site)
    unknown = [m for m in models if m not in files]
    if unknown:
        raise CrevalError(f"No scores.jsonl for {unknown} under {site}; have {sorted(files)}.")
    by_model = {m: read_published(files[m]) for m in models}
    common = set.intersection(*({p.id for p in ps} for ps in by_model.values()))
    ids = [p.id for p in by_model[models[0]] if p.id in common][:n_prompts]
    return {m: read_published(files[m], ids=ids) for m in models}


def similarity_backend() -> tuple[Entailment | None, str]:
    """The paper's classifier when its weights load here, else why not."""
    try:
        backend = get_entailment("similarity")
        backend.identity()  # loads the weights
    except CrevalError as exc:
        return None, str(exc)
    return backend, ""


def write_json(path: Path | None, frames: Sequence[pd.DataFrame]) -> None:
    if path is not None and frames:
        path.write_text(pd.concat(frames, ignore_index=True).to_json(orient="records", indent=1),
                        encoding="utf-8")  # fmt: skip


def run_llm(published: dict[str, list[Any]], args: argparse.Namespace,
            done: list[pd.DataFrame]) -> list[pd.DataFrame]:  # fmt: skip
    """The ``llm`` rows: the offline model as entailment judge, one model at a time (each
    written to ``--json`` as it finishes, so a run cut short keeps what it finished)."""
    from creval.models import get_model
    from creval.nli import CachingEntailment

    model = get_model("local")  # every CPU, 8 sequences in flight (the local defaults)
    llm = CachingEntailment(get_entailment("llm", generate=model.generate))
    log(f"llm: {llm.identity()['model']}, lookup {args.llm_lookup}, {args.llm_at_once} prompts at once")
    frames: list[pd.DataFrame] = []
    for name, prompts in list(published.items())[: args.llm_models]:
        before, failed = llm.calls, len(llm.failures())
        frames.append(partitioner_agreement({name: prompts[: args.llm_prompts]}, {"llm": llm},
                                            lookup=args.llm_lookup, at_once=args.llm_at_once))  # fmt: skip
        frames[-1]["verdicts"] = llm.calls - before
        frames[-1]["failed_verdicts"] = len(llm.failures()) - failed
        row = frames[-1].iloc[0]
        log(f"llm {name}: ARI {row['ari']:.2f}, {row['verdicts']} verdicts in {row['seconds']:.0f} s")
        write_json(args.json, [*done, *frames])
    return frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=SITE)
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--prompts", type=int, default=100, help="prompts per model")
    parser.add_argument("--thresholds", nargs="*", type=float, default=[0.6, 0.7, 0.85],
                        help="embedding thresholds (none: no embedding rows)")
    parser.add_argument("--llm-prompts", type=int, default=0, help="prompts per model for llm")
    parser.add_argument("--llm-models", type=int, default=5, help="models for llm")
    parser.add_argument("--llm-at-once", type=int, default=3, help="llm: prompts partitioned at once")
    parser.add_argument("--llm-lookup", choices=("lazy", "both"), default="lazy",
                        help="llm: ask a pair's second direction only when needed (lazy) or always")
    parser.add_argument("--json", type=Path, help="write the rows here as JSON (after each llm model too)")
    args = parser.parse_args()

    from creval.embed import get_embedder

    published = load(args.site, args.models, args.prompts)
    log(f"{len(published)} models x {len(next(iter(published.values())))} prompts")
    partitioners: dict[str, Entailment] = {}
    if args.thresholds:
        memo = MemoEmbedder(get_embedder("minilm"))
        partitioners = {f"embedding:{t:g}": get_entailment(f"embedding:{t:g}", embedder=memo)
                        for t in args.thresholds}  # fmt: skip
    frames: list[pd.DataFrame] = []
    for name, backend in partitioners.items():
        for model, prompts in published.items():
            frames.append(partitioner_agreement({model: prompts}, {name: backend}))
            log(f"{name} {model}: ARI {frames[-1]['ari'].iloc[0]:.2f} ({frames[-1]['seconds'].iloc[0]:.0f} s)")
    similarity, why = similarity_backend()
    if similarity is not None:
        frames.append(partitioner_agreement(published, {"similarity": similarity}))
    else:
        log(f"similarity: not run ({why})")
    if args.llm_prompts > 0:
        frames += run_llm(published, args, frames)
    frame = pd.concat(frames, ignore_index=True).sort_values(["model", "partitioner"], kind="stable")
    print(agreement_markdown(frame))
    if similarity is None:
        print(f"`similarity` (the paper's classifier): not run, {why}")
    write_json(args.json, [frame])


if __name__ == "__main__":
    main()
