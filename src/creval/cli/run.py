"""``creval list`` and ``creval run``: the registered benchmarks, and running them against a model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from creval.cli._common import (
    OPTION_KINDS,
    AllowNoScore,
    CacheFile,
    Concurrency,
    NoCache,
    ReasoningEffort,
    Replicas,
    Timeout,
    check_effort,
    check_own_options,
    flag_options,
    get_console,
    options_table,
    parse_extra_options,
    role_values,
    roles_table,
)
from creval.cli._panel import AllowSameFamily, PanelAggregate, check_panel_flags, panel_plan_costs
from creval.cli.plan import PlanFlag, PriceFile, PriceFlags, ReasoningRatio
from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.evaluation.run.runs import RunResult


def list_benchmarks(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show every option with its kind and default.")] = False,
) -> None:
    """The registered benchmarks and their options."""
    from rich.table import Table

    from creval.benchmarks.base import registry

    console = get_console()
    if not verbose:
        table = Table("benchmark", "seed", "what it measures")
        for name, cls in registry().items():
            table.add_row(name, cls.seed_paper, cls.description)
        console.print(table)
        console.print("Options of each: `creval list --verbose` or `creval run NAME --help`.")
        return
    console.print(OPTION_KINDS + "\n")
    for name, cls in registry().items():
        seed = f" (seed {cls.seed_paper})" if cls.seed_paper else ""
        console.print(f"[bold]{name}[/]{seed}: {cls.description}")
        console.print(options_table(cls))
        if cls.extra_roles:
            console.print(roles_table(cls))
        console.print()


def run(
    ctx: typer.Context,
    benchmarks: Annotated[list[str] | None, typer.Argument(help="Benchmark names (see `creval list`).")] = None,
    model: Annotated[list[str] | None, typer.Option("--model", "-m", help="Model spec: local, local:PATH.gguf, openai:NAME, hf:NAME_OR_PATH, replay:RUN_DIR. Repeat it for a grid of runs: one run directory per model and benchmark, --out/SLUG/BENCHMARK.")] = None,
    judge: Annotated[str | None, typer.Option(help="Judge model spec for LLM-judged benchmarks (default: the --model itself). Several, comma-separated (a,b,c): a judge panel, one run per judge below --out/judges, combined by --panel-aggregate; judges of the tested model's family are left out (docs/judges.md).")] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="Endpoint of the judge, when it differs from --base-url; for a panel, one URL per judge, comma-separated, in the order of --judge.")] = None,
    panel_aggregate: PanelAggregate = "mean",
    allow_same_family_judge: AllowSameFamily = False,
    role: Annotated[list[str] | None, typer.Option("--role", help="NAME=SPEC: the model of a benchmark's own role (lotbench: e1, e2; oogiri: rewriter), as --NAME SPEC does; it falls back to --judge, then --model. --NAME-base-url URL gives its endpoint.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory (the same --out resumes). With several benchmarks, one subfolder each.")] = None,
    limit: Annotated[int | None, typer.Option(help="Use only the first N items.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of an OpenAI-compatible server.")] = None,
    api_key: Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY).", envvar="CREVAL_API_KEY")] = None,
    concurrency: Concurrency = None,
    timeout: Timeout = 120.0,
    threads: Annotated[int | None, typer.Option(help="CPU threads per copy of an in-process model (local). Default: the CPUs shared out among the copies (docs/usage.md).")] = None,
    replicas: Replicas = None,
    structured_output: Annotated[str, typer.Option(help="OpenAI-compatible endpoints: how judges ask for their answer's shape: off, auto (probe the server once), json_schema or json_object (llama-cpp-python's server).")] = "off",
    prompt_logprobs: Annotated[str, typer.Option(help="OpenAI-compatible endpoints: how perplexity gets prompt log-probabilities: off, auto (probe the server once), vllm (prompt_logprobs) or echo (/completions echo).")] = "off",
    reasoning_effort: ReasoningEffort = None,
    allow_no_score: AllowNoScore = False,
    batch: Annotated[bool, typer.Option("--batch", help="openai: models: send the requests through the OpenAI Batch API (half the price, answers within 24 h); the batches are recorded in --out, and the same command resumes them.")] = False,
    batch_poll: Annotated[float, typer.Option(help="With --batch: seconds between polls of a submitted batch; lines a batch did not answer go again after 1, 2, 4... polls (at most 16).")] = 30.0,
    retries: Annotated[int, typer.Option(help="Attempts per request on rate limits, timeouts and server errors.")] = 5,
    cache: CacheFile = None,
    no_cache: NoCache = False,
    rescore: Annotated[bool, typer.Option(help="Score again even if nothing changed.")] = False,
    progress: Annotated[bool, typer.Option(help="Show a live progress bar.")] = True,
    preset: Annotated[str | None, typer.Option(help="'paper': each benchmark's judge, models and resources as its paper used them (checked before the run).")] = None,
    executor: Annotated[str, typer.Option(help="Where heavy local work runs: local (this process) or ray (sandbox executions and other batches on Ray workers; several runs as Ray tasks side by side). Needs pip install 'creval[ray]'.")] = "local",
    ray_address: Annotated[str | None, typer.Option(help="Ray cluster to use with --executor ray (default: $RAY_ADDRESS, else a local Ray started for the run).")] = None,
    workers: Annotated[int | None, typer.Option(help="Ray workers to use at once (default: the cluster's CPUs).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List every unit's first prompt; call no model, write nothing.")] = False,
    plan: PlanFlag = False,
    price: PriceFlags = None,
    prices: PriceFile = None,
    reasoning_ratio: ReasoningRatio = None,
    show_help: Annotated[bool, typer.Option("--help", "-h", help="Show this message and the options of the named benchmarks.")] = False,
) -> None:
    """Run benchmarks against a model, resuming what an earlier run in --out finished.

    Benchmark options follow, e.g. `creval run dat --model local --trials 20 --lang ja`.
    """
    from creval.evaluation.run.grid import plan_grid, run_grid
    from creval.evaluation.run.runs import RunSettings
    from creval.models import ModelOptions
    from creval.runner.cache import default_cache_path
    from creval.runner.engine import RetryPolicy

    tokens = [*(benchmarks or []), *ctx.args]  # unknown options land among the positional names
    split = next((i for i, t in enumerate(tokens) if t.startswith("--")), len(tokens))
    if show_help or "--help" in tokens[split:]:
        _run_help(ctx, tokens[:split])
        return
    check_own_options(ctx, tokens[split:], tokens[:split])
    values: dict[str, Any] = parse_extra_options(tokens[split:], _flags(tokens[:split]))
    if limit is not None:
        values["limit"] = limit
    values, roles, role_urls = role_values(tokens[:split], values, role or [])
    models = model or ["local"]
    from creval.evaluation.panel.panels import is_panel, parse_panel

    check_panel_flags(judge, panel_aggregate)
    given_judge = judge

    panel = parse_panel(str(judge), judge_base_url, aggregate=panel_aggregate,
                        allow_same_family=allow_same_family_judge) if is_panel(judge) else None
    if panel is not None:
        judge, judge_base_url = panel.judges[0], None  # checked as a judge; each judge runs below
    grid = plan_grid(tokens[:split], values, out, models, preset=preset, judge=judge,
                     roles=roles, role_urls=role_urls)  # bad input stops here
    if dry_run:
        _print_dry_run([g.plan for g in grid])
        return
    if plan:
        from creval.cli.plan import checked_prices, show_plan
        from creval.evaluation.run.plans import slug

        checked = checked_prices(price or [], prices)
        costs = [c for g in grid for c in panel_plan_costs(
            [(g.model, g.plan)], judge=given_judge, model=g.model, allow_same_family=allow_same_family_judge,
            roles=roles, concurrency=concurrency, prices=checked, progress=True,
            reasoning_ratio=reasoning_ratio)]
        show_plan(costs, (out or Path("runs") / slug(models[0])) / "plan.json")
        return
    if executor not in ("local", "ray"):
        raise CrevalError(f"--executor takes local or ray, not {executor!r}.")
    if prompt_logprobs not in ("off", "auto", "vllm", "echo"):
        raise CrevalError("--prompt-logprobs takes off, auto, vllm or echo.")
    if structured_output not in ("off", "auto", "json_schema", "json_object"):
        raise CrevalError("--structured-output takes off, auto, json_schema or json_object.")
    model_options = ModelOptions(
        base_url=base_url, api_key=api_key, timeout=timeout, concurrency=concurrency,
        threads=threads, replicas=replicas,
        structured_output=structured_output,  # type: ignore[arg-type]
        prompt_logprobs=prompt_logprobs,  # type: ignore[arg-type]
        batch=batch, batch_poll=batch_poll,
        reasoning_effort=check_effort(reasoning_effort),  # type: ignore[arg-type]
    )
    settings = RunSettings(
        model=models[0],
        model_options=model_options,
        judge=judge,
        judge_options=None if judge_base_url is None else model_options.model_copy(
            update={"base_url": judge_base_url}
        ),
        cache=None if no_cache else (cache or default_cache_path()),
        retry=RetryPolicy(attempts=max(1, retries)),
        progress=progress,
        concurrency=None,
        rescore=rescore,
        role_options={r: model_options.model_copy(update={"base_url": u}) for r, u in role_urls.items()},
        executor=executor, ray_address=ray_address, workers=workers, panel=panel,
    )
    for cell in grid:
        who = f" ({cell.model})" if len(models) > 1 else ""
        get_console(stderr=True).print(f"[bold]{cell.plan.benchmark.name}[/]{who} -> {cell.plan.out}")
    results = run_grid(grid, settings)
    _print_results(results)
    if any(r.scores.units.errors or r.endpoints_down for r in results):
        raise typer.Exit(1)
    from creval.evaluation.run.unscored import EXIT_NO_SCORE, unscored

    if not allow_no_score and results and all(
            ((u := unscored(r.scores)) is not None and u.no_score) or _panel_unscored(r)
            for r in results):
        raise typer.Exit(EXIT_NO_SCORE)  # finished, but without a score (the warning says why)


def _panel_unscored(result: RunResult) -> bool:
    """Whether ``result`` is a judge panel none of whose judges produced a score (said on
    stderr: each judge's own run says why)."""
    panel = result.scores.extra("panel")
    if not isinstance(panel, dict) or any(panel.get("per_judge", {}).values()):
        return False
    get_console(stderr=True).print(
        f"[yellow]warning:[/] {result.benchmark}: no judge of the panel produced a score "
        "(each judge's run in --out/judges says why); pass --allow-no-score to exit 0 anyway.",
        soft_wrap=True)
    return True


def _print_dry_run(plans: list[Any]) -> None:
    """Each unit's first prompt, as ``creval run --dry-run`` shows it."""
    from creval.benchmarks.offline import dry_run

    for plan in plans:
        requests = dry_run(plan.benchmark, plan.options)
        typer.echo(f"== {plan.benchmark.name}: {len(requests)} unit(s) -> {plan.out} (dry run: nothing sent)")
        for item in requests:
            last = item["messages"][-1]["content"] if item["messages"] else "(no model call)"
            text = last if isinstance(last, str) else " ".join(
                p.get("text", "[image]") for p in last)
            what = "scores the text" if item.get("kind") == "score text" else f"n={item['n']}"
            typer.echo(f"-- {item['key']} [{item['role']}, {what}]\n{text}")


def _run_help(ctx: typer.Context, names: list[str]) -> None:
    """``creval run [BENCH...] --help``: the command's help, then each benchmark's options."""
    from rich.markup import escape

    from creval.benchmarks.base import get_benchmark

    typer.echo(ctx.get_help())
    console = get_console()
    if not names:
        console.print("\nName benchmarks to see their options: creval run dat --help")
        return
    console.print("\n" + OPTION_KINDS)
    for name in names:
        cls = type(get_benchmark(name))
        console.print(f"\n[bold]{name} options[/]: {escape(cls.description)}")
        console.print(options_table(cls))
        if cls.extra_roles:
            console.print(f"[bold]{name} model roles[/] (each falls back to --judge, then --model):")
            console.print(roles_table(cls))


def _print_results(results: list[RunResult]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from creval.report.headline import headline_rows
    from creval.report.markdown import fmt
    from creval.runner.counters import adaptation_lines

    table = Table("benchmark", "metric", "value", "95% interval", "n", title="creval results")
    several = len({r.model for r in results}) > 1  # a grid: say whose row it is
    for result in results:
        name = f"{result.benchmark} ({result.model})" if several else result.benchmark
        for row in headline_rows(result.scores):
            table.add_row(name, row["metric"], fmt(row["value"]), escape(row["95% interval"]),
                          fmt(row["n"]))
    console = get_console()
    console.print(table)
    err = get_console(stderr=True)
    for result in results:
        console.print(run_summary(result), soft_wrap=True, markup=False)
        for line in adaptation_lines([result.scores.usage.get("this_invocation", {})]):
            console.print(line, soft_wrap=True, markup=False)
        if result.scores.extra("panel"):  # --judge a,b,c: each judge, agreement, who was left out
            from creval.evaluation.panel.scores import console_lines

            for line in console_lines(result.scores):
                console.print(line, soft_wrap=True, markup=False)
        for warning in [*result.scores.warnings, *result.scores.run_warnings]:
            err.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
        if result.scores.units.errors:
            again = ("a replay answers only with the replayed run's answers, so running it "
                     "again cannot mend them (replay the units that run has, e.g. fewer "
                     "--trials or --limit, or run the model itself)"
                     if result.model.startswith("replay:") else
                     "run the same command again to retry them")
            err.print(
                f"[yellow]{result.benchmark}: {result.scores.units.errors} unit(s) ended in "
                f"errors; {escape(again)}. Causes:[/]", soft_wrap=True,
            )
            for cause in result.scores.error_causes[:3]:
                err.print(f"  {cause.count} x {escape(cause.cause)}", soft_wrap=True)


def run_summary(result: RunResult) -> str:
    """What this invocation did, in a line: units and calls, or that the run was already
    complete, and answers replayed apart from models called."""
    from creval.runner.counters import totals

    usage = result.scores.usage.get("this_invocation", {})
    t = totals(usage)
    report = f"report: {result.out / 'report.md'}"
    if t["ok"] == t["failed"] == t["not_run"] == 0:
        return (f"{result.benchmark}: already complete: {result.scores.units.finished} ok, "
                f"nothing to run; {report}")
    models = usage.get("models") or {}
    replays = {k for k in models if k.startswith("replay:")}
    replayed = sum(int(models[k].get("requests") or 0) - int(models[k].get("errors") or 0)
                   + int(models[k].get("cache_hits") or 0)  # a request it had no answer for: none
                   for k in replays)
    called = totals({"models": {k: m for k, m in models.items() if k not in replays}})
    asked = called["requests"] or called["cache_hits"]
    parts = [f"units {t['ok']} ok, {t['failed']} failed, {t['not_run']} not run"]
    if replays:
        parts.append(f"replayed {replayed} answer{'' if replayed == 1 else 's'}"
                     + ("" if asked else ", no model called"))
    if asked or not replays:
        parts.append(f"{called['requests']} request(s) ({called['retries']} retries), "
                     f"{called['cache_hits']} cache hit(s); tokens {called['input_tokens']} in / "
                     f"{called['output_tokens']} out"
                     + (f" ({called['reasoning_tokens']} reasoning)" if called.get("reasoning_tokens") else ""))
    return f"{result.benchmark}: {'; '.join(parts)}; {usage.get('seconds', 0):.1f} s; {report}"


def _flags(names: list[str]) -> set[str]:
    """The yes/no options of the named benchmarks (unknown names are reported later)."""
    from creval.benchmarks.base import get_benchmark

    known = []
    for name in names:
        try:
            known.append(get_benchmark(name))
        except CrevalError:
            continue
    return flag_options(known)
