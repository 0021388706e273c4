"""``creval novelty RUN_DIR...``: rank final solutions of open-ended runs by novelty.

The pairwise novelty judge of seed 001 (appendix K) compares two problem-solution pairs,
each comparison asked in both orders. Two modes:

* ``--mode pool`` (default, the paper: appendix C.7, Table 12, Figure 4d): for each run (one
  model), its problem-solution pairs are ranked together, across problems, and one Spearman
  correlation between solution-level semantic entropy and novelty is reported per model;
  ``--pool-size N`` ranks a seeded random sample of N pairs instead of all of them.
* ``--mode runs``: for every problem solved in at least two of the runs, the runs' final
  solutions are ranked against each other; each run's mean rank (1 = most novel) and one
  Spearman correlation over all ranked solutions are reported.

The sort is the paper's bubble sort by default (``n (n - 1) / 2`` comparisons);
``--method merge`` needs at most ``n ceil(log2 n)``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.cli._common import CacheFile, NoCache
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


async def rank_runs(runs: dict[str, dict[str, dict[str, Any]]], generate: Any, method: str,
                    structured: bool = False) -> list[dict[str, Any]]:
    """Per problem shared by at least two runs: the novelty order of the runs' solutions
    (``structured``: the judge's answers constrained to their JSON shape)."""
    from creval.judges.novelty import NoveltyItem, PairwiseNoveltyJudge

    judge = PairwiseNoveltyJudge.create(generate, structured=structured)
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
                        "tokens": ranking.usage.input_tokens + ranking.usage.output_tokens,
                        "constrained": structured})
    return results


async def rank_pools(runs: dict[str, dict[str, dict[str, Any]]], generate: Any, method: str,
                     pool_size: int | None = None, seed: int = 0,
                     structured: bool = False) -> list[dict[str, Any]]:
    """Per run: its problem-solution pairs (those with a semantic entropy) ranked across
    problems, and Spearman(semantic entropy, novelty) over them (Table 12)."""
    import random

    from creval.judges.novelty import NoveltyItem, PairwiseNoveltyJudge

    judge = PairwiseNoveltyJudge.create(generate, structured=structured)
    rows = []
    for label, solutions in runs.items():
        pool = sorted(pid for pid, sol in solutions.items() if sol["entropy"] is not None)
        if pool_size is not None and pool_size < len(pool):
            pool = sorted(random.Random(seed).sample(pool, pool_size))
        items = [NoveltyItem(id=pid, problem=solutions[pid]["problem"], solution=solutions[pid]["solution"])
                 for pid in pool]
        row: dict[str, Any] = {"run": label, "pairs": len(items), "method": method, "constrained": structured,
                               "without_entropy": len(solutions) - len([s for s in solutions.values()
                                                                        if s["entropy"] is not None])}
        if len(items) >= 2:
            ranking = await judge.evaluate(items, method=method)  # type: ignore[arg-type]
            row.update(order=ranking.order, comparisons=ranking.n_comparisons,
                       model_calls=ranking.n_model_calls, failures=len(ranking.failures),
                       ties=len(ranking.ties),
                       tokens=ranking.usage.input_tokens + ranking.usage.output_tokens,
                       **pool_correlation(solutions, ranking.order))
        rows.append(row)
    return rows


def pool_correlation(solutions: dict[str, dict[str, Any]], order: list[str]) -> dict[str, Any]:
    """Spearman between each pair's semantic entropy and its novelty (``n - rank``, higher =
    more novel) for one ranked pool; None with fewer than three pairs."""
    from creval.metrics.stats import spearman

    if len(order) < 3:
        return {"spearman": None, "spearman_p": None}
    entropy = [float(solutions[pid]["entropy"]) for pid in order]
    novelty = [float(len(order) - rank) for rank in range(1, len(order) + 1)]
    corr = spearman(entropy, novelty)
    return {"spearman": corr.r, "spearman_p": corr.p}


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
    mode: Annotated[str, typer.Option(
        help="pool: each run's pairs ranked across problems, one Spearman per model (the paper, "
             "Table 12); runs: per problem, the runs' solutions ranked against each other.")] = "pool",
    method: Annotated[str, typer.Option(
        help="bubble (the paper, n(n-1)/2 comparisons) or merge (at most n log2 n).")] = "bubble",
    pool_size: Annotated[int | None, typer.Option(
        help="pool mode: rank a seeded random sample of this many pairs per run (default all).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of the --pool-size sample.")] = 0,
    out: Annotated[Path | None, typer.Option(help="Also write the result as JSON here.")] = None,
    cache: CacheFile = None,
    no_cache: NoCache = False,
) -> None:
    """Rank final solutions by novelty (pairwise judge, both orders) and correlate with SE.
    The judge's answers are kept in the response cache: a rerun asks only what it has not."""
    from creval.models import ModelOptions, get_model
    from creval.report.markdown import markdown_table
    from creval.runner.cache import cached_generate, open_cache

    if method not in ("merge", "bubble"):
        raise CrevalError("--method takes bubble or merge.")
    if mode not in ("pool", "runs"):
        raise CrevalError("--mode takes pool or runs.")
    if pool_size is not None and pool_size < 3:
        raise CrevalError("--pool-size must be at least 3 (a Spearman correlation needs three pairs).")
    if mode == "runs" and len(run_dirs) < 2:
        raise CrevalError("Give at least two run directories to rank against each other "
                          "(--mode runs), or rank each run's own pairs with --mode pool.")
    runs: dict[str, dict[str, dict[str, Any]]] = {}
    domains = set()
    for run_dir in run_dirs:
        domain, solutions = read_solutions(run_dir)
        domains.add(domain)
        runs[str(run_dir)] = solutions
    if len(domains) > 1:
        raise CrevalError(f"The runs mix benchmarks ({', '.join(sorted(domains))}); rank one at a time.")
    model = get_model(judge, ModelOptions(base_url=base_url))
    structured = model.capabilities.structured_output  # the answer's shape when it can be asked
    store = open_cache(cache, enabled=not no_cache)
    generate = cached_generate(model, store)

    async def go() -> list[dict[str, Any]]:
        try:
            if mode == "pool":
                return await rank_pools(runs, generate, method, pool_size, seed, structured)
            return await rank_runs(runs, generate, method, structured)
        finally:
            await model.aclose()
            if store is not None:
                store.close()

    if mode == "pool":
        rows = asyncio.run(go())
        if not any(row["pairs"] >= 2 for row in rows):
            raise CrevalError("No run has two final solutions with a semantic entropy to rank.")
        typer.echo(markdown_table([{k: row.get(k) for k in ("run", "pairs", "method", "comparisons",
                                                            "failures", "spearman", "spearman_p")}
                                   for row in rows]))
        if out is not None:
            out.write_text(json.dumps({"mode": "pool", "models": rows}, indent=2), encoding="utf-8")
        return
    summary = summarise(runs, asyncio.run(go()))
    if not summary["per_problem"]:
        raise CrevalError("No problem has a final solution in at least two of the runs.")
    typer.echo(markdown_table(summary["runs"]))
    typer.echo(f"Spearman(semantic entropy, novelty) = {summary['spearman_entropy_novelty']}")
    if out is not None:
        out.write_text(json.dumps({"mode": "runs", **summary}, indent=2), encoding="utf-8")
