"""``creval novelty RUN_DIR...``: rank the final solutions of several runs by novelty.

For every problem solved in at least two of the given open-ended runs (macgyver, hypogen,
bookmia; typically one per model), the pairwise novelty judge of seed 001 (appendix K)
ranks the final solutions, each comparison asked in both orders. Reported: each run's mean
rank (1 = most novel) and the Spearman correlation between a solution's semantic entropy
and its novelty (the paper's Figure 4d).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.errors import CrevalError

OPEN_ENDED = ("macgyver", "hypogen", "bookmia")


def read_solutions(run_dir: Path) -> tuple[str, dict[str, dict[str, Any]]]:
    """The domain of an open-ended run and, per problem id, its judge text, final solution and
    solution-level semantic entropy."""
    from creval.benchmarks.openended.data import Problem
    from creval.runner.store import RunStore

    if not (run_dir / "manifest.json").is_file():
        raise CrevalError(f"{run_dir} is not a run directory (no manifest.json).")
    store = RunStore(run_dir)
    try:
        manifest = store.read_manifest() or {}
        domain = manifest.get("benchmark")
        if domain not in OPEN_ENDED:
            raise CrevalError(f"{run_dir} is a {domain} run; novelty ranks {', '.join(OPEN_ENDED)} runs.")
        scores = store.read_scores() or {}
        entropy = {row["id"]: row.get("se_length_normalised", row.get("se_discrete"))
                   for row in scores.get("table", [])}
        out = {}
        for record in store.latest().values():
            if record.status != "ok" or not record.output.get("solution_steps"):
                continue
            problem = Problem(id=record.unit["id"], domain=domain, fields=record.unit["fields"])
            out[problem.id] = {"problem": problem.judge_text(),
                               "solution": problem.full_solution(record.output["solution_steps"]),
                               "entropy": entropy.get(problem.id)}
    finally:
        store.close()
    return domain, out


async def rank_runs(runs: dict[str, dict[str, dict[str, Any]]], generate: Any, method: str
                    ) -> list[dict[str, Any]]:
    """Per problem shared by at least two runs: the novelty order of the runs' solutions."""
    from creval.judges.novelty import NoveltyItem, PairwiseNoveltyJudge

    judge = PairwiseNoveltyJudge.create(generate)
    problems = sorted({pid for sols in runs.values() for pid in sols})
    results = []
    for pid in problems:
        items = [NoveltyItem(id=label, problem=sols[pid]["problem"], solution=sols[pid]["solution"])
                 for label, sols in runs.items() if pid in sols]
        if len(items) < 2:
            continue
        ranking = await judge.evaluate(items, method=method)  # type: ignore[arg-type]
        results.append({"problem": pid, "order": ranking.order, "comparisons": ranking.n_comparisons,
                        "model_calls": ranking.n_model_calls, "failures": len(ranking.failures),
                        "tokens": ranking.usage.input_tokens + ranking.usage.output_tokens})
    return results


def summarise(runs: dict[str, dict[str, dict[str, Any]]], results: list[dict[str, Any]]
              ) -> dict[str, Any]:
    from creval.metrics.stats import spearman

    ranks: dict[str, list[int]] = {label: [] for label in runs}
    entropy, novelty = [], []
    for result in results:
        for rank, label in enumerate(result["order"], start=1):
            ranks[label].append(rank)
            value = runs[label][result["problem"]]["entropy"]
            if value is not None:
                entropy.append(float(value))
                novelty.append(float(len(result["order"]) - rank))  # higher = more novel
    rows = [{"run": label, "problems": len(r), "mean_rank": sum(r) / len(r) if r else None}
            for label, r in ranks.items()]
    corr = spearman(entropy, novelty) if len(entropy) >= 3 else None
    return {"runs": rows, "per_problem": results,
            "spearman_entropy_novelty": None if corr is None else corr.r,
            "spearman_p": None if corr is None else corr.p}


def novelty(
    run_dirs: Annotated[list[Path], typer.Argument(help="Open-ended run directories (one per model).")],
    judge: Annotated[str, typer.Option(help="Judge model spec.")] = "local",
    base_url: Annotated[str | None, typer.Option(help="Endpoint of the judge.")] = None,
    method: Annotated[str, typer.Option(help="merge (O(n log n) comparisons) or bubble (upstream).")] = "merge",
    out: Annotated[Path | None, typer.Option(help="Also write the result as JSON here.")] = None,
) -> None:
    """Rank the final solutions of several runs by novelty (pairwise judge, both orders)."""
    from creval.models import ModelOptions, get_model
    from creval.report.markdown import markdown_table

    if method not in ("merge", "bubble"):
        raise CrevalError("--method takes merge or bubble.")
    if len(run_dirs) < 2:
        raise CrevalError("Give at least two run directories to rank against each other.")
    runs: dict[str, dict[str, dict[str, Any]]] = {}
    domains = set()
    for run_dir in run_dirs:
        domain, solutions = read_solutions(run_dir)
        domains.add(domain)
        runs[str(run_dir)] = solutions
    if len(domains) > 1:
        raise CrevalError(f"The runs mix benchmarks ({', '.join(sorted(domains))}); rank one at a time.")
    model = get_model(judge, ModelOptions(base_url=base_url))

    async def go() -> list[dict[str, Any]]:
        try:
            return await rank_runs(runs, model.generate, method)
        finally:
            await model.aclose()

    summary = summarise(runs, asyncio.run(go()))
    if not summary["per_problem"]:
        raise CrevalError("No problem has a final solution in at least two of the runs.")
    typer.echo(markdown_table(summary["runs"]))
    typer.echo(f"Spearman(semantic entropy, novelty) = {summary['spearman_entropy_novelty']}")
    if out is not None:
        out.write_text(json.dumps(summary, indent=2), encoding="utf-8")
