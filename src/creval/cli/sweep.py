"""``creval sweep``: a benchmark (or the profile battery) at several values of one generation
option, as curves of a divergent measure against a quality measure; and ``creval sweep
compare A B``: two sweeps at matched quality and at each shared value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.cli._common import (
    AllowNoScore,
    ApiKey,
    BaseUrl,
    CacheFile,
    Concurrency,
    JudgeBaseUrl,
    NoCache,
    ReasoningEffort,
    Replicas,
    Retries,
    RunProgress,
    Threads,
    Timeout,
    check_effort,
    check_own_options,
    get_console,
    parse_extra_options,
    role_values,
)
from creval.cli._panel import AllowSameFamily, PanelAggregate, check_panel_flags, panel_plan_costs
from creval.cli.plan import PlanFlag, PriceFile, PriceFlags
from creval.errors import CrevalError

USAGE = ("creval sweep BENCHMARK... --values OPTION=V1,V2,... [--model SPEC] [benchmark "
         "options] --out DIR | creval sweep profile --values ... [--size S] [--family F] "
         "[--set BENCH.OPTION=VALUE] | creval sweep compare DIR_A DIR_B [--at-quality Q]")


def sweep_command(
    ctx: typer.Context,
    names: Annotated[list[str] | None, typer.Argument(help="Benchmarks to sweep (dat, sat, ttct, jcq, macgyver, hypogen, bookmia, neocoder, noveltybench, aut); 'profile' for the profile battery; 'compare DIR_A DIR_B' to compare two sweeps.")] = None,
    values: Annotated[str | None, typer.Option("--values", help="OPTION=V1,V2,...: the generation option and its values (e.g. temperature=0.2,0.7,1.0).")] = None,
    model: Annotated[str, typer.Option("--model", "-m", help="Model spec (local, openai:NAME, hf:..., replay:SWEEP_DIR).")] = "local",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Sweep directory (one folder per value, one run per benchmark inside); the same --out resumes. For compare: also write compare.json, compare.md and compare.html here.")] = None,
    judge: Annotated[str | None, typer.Option(help="Judge model of judged benchmarks (default: the model itself).")] = None,
    judge_base_url: JudgeBaseUrl = None,
    role: Annotated[list[str] | None, typer.Option("--role", help="NAME=SPEC: a benchmark's own role model.")] = None,
    preset: Annotated[str | None, typer.Option(help="'paper': each benchmark's judge and resources as its paper used them.")] = None,
    size: Annotated[str, typer.Option(help="profile: smoke, standard or paper.")] = "standard",
    lang: Annotated[str, typer.Option(help="profile: en or ja.")] = "en",
    family: Annotated[list[str] | None, typer.Option("--family", help="profile: only these families; repeatable.")] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="profile: only these benchmarks; repeatable.")] = None,
    set_option: Annotated[list[str] | None, typer.Option("--set", help="profile: BENCHMARK.OPTION=VALUE; repeatable.")] = None,
    quality: Annotated[float | None, typer.Option("--at-quality", help="compare: the quality at which to compare (default: the middle of the range both curves reach); `--quality Q` still works after `compare`. (A benchmark's own --quality, such as noveltybench's, passes to the benchmark.)")] = None,
    confidence: Annotated[float, typer.Option(help="Level of the bootstrap intervals.")] = 0.95,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="Print sweep.json (compare: the comparison) instead of tables.")] = False,
    base_url: BaseUrl = None,
    api_key: ApiKey = None,
    threads: Threads = None,
    replicas: Replicas = None,
    structured_output: Annotated[str, typer.Option(help="OpenAI-compatible endpoints: off, auto, json_schema or json_object (as creval run).")] = "off",
    concurrency: Concurrency = None,
    timeout: Timeout = 120.0,
    retries: Retries = 5,
    cache: CacheFile = None,
    no_cache: NoCache = False,
    progress: RunProgress = True,
    reasoning_effort: ReasoningEffort = None,
    allow_no_score: AllowNoScore = False,
    plan: PlanFlag = False,
    price: PriceFlags = None,
    prices: PriceFile = None,
    panel_aggregate: PanelAggregate = "mean",
    allow_same_family_judge: AllowSameFamily = False,
) -> None:
    """Run benchmarks at several values of one generation option and draw each divergent
    measure against a quality measure of the same run, with bootstrap intervals
    (sweep.json, sweep.md, sweep.html in --out). `creval sweep compare A B` compares two
    sweeps at matched quality and at each shared value.

    Benchmark options follow, e.g. `creval sweep dat --values temperature=0.2,0.7,1.0 --trials 20`.
    """
    tokens = [*(names or []), *ctx.args]
    split = next((i for i, t in enumerate(tokens) if t.startswith("--")), len(tokens))
    positional, extra = tokens[:split], tokens[split:]
    if not positional:
        raise CrevalError(f"Name what to sweep: {USAGE}")
    if not 0 < confidence < 1:
        raise CrevalError("--confidence takes a level between 0 and 1, such as 0.95.")
    if resamples < 1:
        raise CrevalError("--resamples takes a positive number.")
    if positional[0] == "compare":
        quality, extra = _compare_quality(quality, extra)
        if len(positional) != 3 or extra:
            raise CrevalError("creval sweep compare takes two sweep directories: "
                              "creval sweep compare DIR_A DIR_B [--at-quality Q] [--json].")
        _compare(Path(positional[1]), Path(positional[2]), quality, confidence, resamples,
                 out, as_json)
        return
    if structured_output not in ("off", "auto", "json_schema", "json_object"):
        raise CrevalError("--structured-output takes off, auto, json_schema or json_object.")
    if values is None:
        raise CrevalError(f"Give the option and its values with --values, e.g. --values "
                          f"temperature=0.2,0.7,1.0 ({USAGE}).")
    settings = {"base_url": base_url, "judge_base_url": judge_base_url, "api_key": api_key,
                "threads": threads, "replicas": replicas, "concurrency": concurrency,
                "structured_output": structured_output, "timeout": timeout,
                "retries": retries, "cache": False if no_cache else (cache or True),
                "reasoning_effort": check_effort(reasoning_effort),
                "panel_aggregate": panel_aggregate,
                "allow_same_family_judge": allow_same_family_judge}
    check_panel_flags(judge, panel_aggregate)
    common: dict[str, Any] = {"values": values, "model": model, "out": out, "judge": judge,
                              "preset": preset, "confidence": confidence,
                              "resamples": resamples,
                              "progress": progress and not as_json,  # stdout holds the JSON
                              "settings": settings}
    if plan:
        common = {"plan": (price or [], prices, concurrency, allow_same_family_judge), "values": values, "model": model,
                  "out": out, "judge": judge, "preset": preset}
    if positional[0] == "profile":
        from creval.cli.profile import _overrides
        from creval.evaluation.run.roles import parse_role_flags

        if len(positional) > 1 or extra:
            raise CrevalError("creval sweep profile takes its benchmarks' options as --set "
                              f"BENCHMARK.OPTION=VALUE, not {' '.join(tokens[1:])!r}.")
        result = _sweep(profile=True, size=size, lang=lang, families=family or None,
                        only=only or None, roles=parse_role_flags(role or []),
                        **_overrides(set_option or []), **common)
    else:
        from creval.cli.run import _flags

        check_own_options(ctx, extra, positional)
        options = parse_extra_options(extra, _flags(positional))
        options, roles, role_urls = role_values(positional, options, role or [])
        result = _sweep(positional, roles=roles, role_base_urls=role_urls, **options, **common)
    if result is None:  # --plan: printed and written, nothing run
        return
    _print_sweep(result, as_json)
    if not result.ok:
        raise typer.Exit(1)
    from rich.markup import escape

    from creval.evaluation.run.unscored import EXIT_NO_SCORE, unscored

    found = [unscored(r.scores) for r in result.runs]
    if found and all(u is not None and u.no_score for u in found):
        for message in dict.fromkeys(u.message(r.benchmark) for u, r in zip(found, result.runs,
                                                                            strict=True) if u):
            get_console(stderr=True).print(f"warning: {escape(message)}", soft_wrap=True)
        if not allow_no_score:
            raise typer.Exit(EXIT_NO_SCORE)  # every run finished without a score: sweep.md says so


def _compare_quality(quality: float | None, extra: list[str]) -> tuple[float | None, list[str]]:
    """``compare``'s ``--quality Q`` (its name before ``--at-quality``; outside ``compare``
    ``--quality`` is a benchmark's option, such as noveltybench's): the value, the rest."""
    rest = list(extra)
    for i, token in enumerate(rest):
        if token == "--quality" or token.startswith("--quality="):
            text = token.partition("=")[2] if "=" in token else (rest[i + 1] if i + 1 < len(rest) else "")
            del rest[i: i + (1 if "=" in token else 2)]
            try:
                value = float(text)
            except ValueError:
                raise CrevalError(f"--quality of creval sweep compare takes a number (the quality "
                                  f"at which to compare), not {text!r}.") from None
            if quality is not None and quality != value:
                raise CrevalError("Give the quality once: --at-quality (or --quality) Q.")
            return value, rest
    return quality, rest


def _sweep(*args: Any, **kwargs: Any) -> Any:
    from creval.evaluation.sweep.sweeping import sweep

    if "plan" in kwargs:
        _plan(*args, **kwargs)
        return None
    return sweep(*args, **kwargs)


def _plan(*args: Any, plan: tuple[list[str], Path | None, int | None, bool], out: Path | None,
          **kwargs: Any) -> None:
    """``creval sweep ... --plan``: every point's requests, tokens, time and cost, unsent."""
    import dataclasses

    from creval.cli.plan import checked_prices, show_plan
    from creval.evaluation.sweep.sweeping import sweep_out, sweep_request

    price, prices, concurrency, allow_same_family = plan
    checked = checked_prices(price, prices)
    request = sweep_request(*args, **kwargs)
    costs = []
    for point, cells in _sweep_cells(request, out):  # each row says its point
        costs += [dataclasses.replace(c, benchmark=f"{c.benchmark} {point}") for c in panel_plan_costs(
            cells, judge=request.judge, model=request.model, allow_same_family=allow_same_family,
            roles=request.roles, concurrency=concurrency, prices=checked)]
    show_plan(costs, sweep_out(request, out) / "plan.json")


def _print_sweep(result: Any, as_json: bool) -> None:
    from creval.runner.counters import totals

    if as_json:
        typer.echo(json.dumps(result.document, indent=2))
        return
    typer.echo((result.path / "sweep.md").read_text(encoding="utf-8"))
    requests = sum(totals(r.scores.usage.get("this_invocation", {}))["requests"]
                   for r in result.runs)
    console = get_console()
    console.print(f"{len(result.runs)} run(s), {requests} request(s) this time.")
    console.print(f"Sweep report: {result.html} (and sweep.md, sweep.json beside it)",
                  soft_wrap=True)


def _compare(a: Path, b: Path, quality: float | None, confidence: float, resamples: int,
             out: Path | None, as_json: bool) -> None:
    from creval.evaluation.sweep.sweeping import compare_sweeps
    from creval.report.sweep import render_compare_markdown

    comparison = compare_sweeps(a, b, target=quality, confidence=confidence,
                                resamples=resamples, out=out)
    if as_json:
        typer.echo(json.dumps(comparison.document, indent=2))
        return
    typer.echo(render_compare_markdown(comparison.document))
    if out is not None:
        get_console().print(f"Comparison: {out / 'compare.html'} (and compare.md, compare.json)",
                            soft_wrap=True)


def _sweep_cells(request: Any, out: Path | None) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Every (model, plan) the sweep would run, per point (``temperature=0.7``), validated,
    nothing written (``--plan``)."""
    from creval.evaluation.sweep.sweeping import planned_sweep, sweep_out

    _, profiles, plans = planned_sweep(request, sweep_out(request, out))
    points = [(f"{request.option}={value!r}", [(run.model, run.plan) for run in runs])
              for value, runs in plans]
    if profiles:
        from creval.evaluation.profile.profiling import plan_profile

        points += [(point.name.replace("-", "=", 1), [(profile.model, plan) for _, plan in
                                                      plan_profile(profile, point)])
                   for point, profile in profiles]
    return points
