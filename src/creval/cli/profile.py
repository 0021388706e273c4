"""``creval profile``: the battery of all five families against one model, in one report."""

from __future__ import annotations

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
    get_console,
)
from creval.cli._panel import AllowSameFamily, PanelAggregate, check_panel_flags, panel_plan_costs
from creval.cli.plan import PlanFlag, PriceFile, PriceFlags, ReasoningRatio
from creval.errors import CrevalError


def _overrides(values: list[str]) -> dict[str, dict[str, Any]]:
    """``--set BENCH.OPTION=VALUE`` flags -> ``{BENCH: {OPTION: VALUE}}`` (option names with
    dashes or underscores)."""
    out: dict[str, dict[str, Any]] = {}
    for value in values:
        target, sep, setting = value.partition("=")
        bench, dot, option = target.partition(".")
        if not sep or not dot or not bench or not option:
            raise CrevalError(f"--set takes BENCHMARK.OPTION=VALUE (e.g. --set dat.trials=10), got {value!r}.")
        out.setdefault(bench, {})[option.replace("-", "_")] = setting
    return out


def profile(
    model: Annotated[str, typer.Option("--model", "-m", help="Model spec (local, openai:NAME, hf:..., replay:PROFILE_DIR).")] = "local",
    size: Annotated[str, typer.Option(help="smoke (minutes, checks a set-up), standard (separates models as the papers do) or paper (each paper's full protocol).")] = "standard",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Profile directory (default runs/profiles/MODEL-SIZE); the same --out resumes.")] = None,
    lang: Annotated[str, typer.Option(help="en (TTCT in English) or ja (JCQ, Japanese DAT and SAT).")] = "en",
    preset: Annotated[str | None, typer.Option(help="'paper': each benchmark's judge and resources as its paper used them.")] = None,
    judge: Annotated[str | None, typer.Option(help="Judge model of every judged benchmark (default: the model itself, marked self-judged).")] = None,
    judge_base_url: JudgeBaseUrl = None,
    role: Annotated[list[str] | None, typer.Option("--role", help="NAME=SPEC: a benchmark's own role (lotbench: e1, e2; oogiri: rewriter).")] = None,
    family: Annotated[list[str] | None, typer.Option("--family", help="Run only these families (neocoder, open-ended, metric-validity, lotbench, ttct, beyond); repeatable.")] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Run only these benchmarks of the battery (e.g. --only jcq); repeatable.")] = None,
    set_option: Annotated[list[str] | None, typer.Option("--set", help="BENCHMARK.OPTION=VALUE: replace one option of the battery (e.g. dat.trials=10); repeatable.")] = None,
    base_url: BaseUrl = None,
    api_key: ApiKey = None,
    threads: Threads = None,
    replicas: Replicas = None,
    concurrency: Concurrency = None,
    timeout: Timeout = 120.0,
    retries: Retries = 5,
    cache: CacheFile = None,
    no_cache: NoCache = False,
    progress: RunProgress = True,
    reasoning_effort: ReasoningEffort = None,
    plan: PlanFlag = False,
    price: PriceFlags = None,
    prices: PriceFile = None,
    reasoning_ratio: ReasoningRatio = None,
    repeats: Annotated[int, typer.Option(min=1, help="Independent samples per item of dat, sat, ttct, jcq, noveltybench and aut: from 2 on, their reports split each measure's variance into items, samples and judge (the noise floor). Raising it later asks only the new samples.")] = 1,
    panel_aggregate: PanelAggregate = "mean",
    allow_same_family_judge: AllowSameFamily = False,
    allow_no_score: AllowNoScore = False,
) -> None:
    """Profile a model across all five papers: one run per benchmark, one report placing it
    beside published models only where the comparison is valid."""
    from creval.evaluation.profile.profiling import profile as run_profile
    from creval.evaluation.run.roles import parse_role_flags
    from creval.runner.counters import adaptation_lines, totals

    check_panel_flags(judge, panel_aggregate)
    if plan:
        _plan(model, size=size, out=out, lang=lang, preset=preset, judge=judge,
              allow_same_family=allow_same_family_judge,
              roles=parse_role_flags(role or []), families=family or [], only=only or [],
              options=_overrides(set_option or []), concurrency=concurrency,
              price=price or [], prices=prices, repeats=repeats,
              reasoning_ratio=reasoning_ratio)
        return
    result = run_profile(
        model, size=size, out=out, lang=lang, preset=preset, judge=judge,
        roles=parse_role_flags(role or []), families=family or None, only=only or None,
        options=_overrides(set_option or []), progress=progress, base_url=base_url,
        judge_base_url=judge_base_url, api_key=api_key, threads=threads, replicas=replicas,
        concurrency=concurrency, timeout=timeout, retries=retries,
        cache=False if no_cache else (cache or True), repeats=repeats,
        reasoning_effort=check_effort(reasoning_effort),
        panel_aggregate=panel_aggregate, allow_same_family_judge=allow_same_family_judge,
    )
    console = get_console()
    summary = result.document["summary"]
    console.print(f"[bold]creval profile of {model}[/] ({size}, battery {result.document['battery_version']})")
    for title, key in (("Where it stands", "standing"), ("Weak", "weak"), ("Next", "next")):
        console.print(f"[bold]{title}[/]")
        for line in summary[key] or ["(none)"]:
            console.print(f"  - {line}", soft_wrap=True, markup=False)
    requests = sum(totals(r.scores.usage.get("this_invocation", {}))["requests"]
                   for r in result.runs)
    console.print(f"{len(result.runs)} run(s), {requests} request(s) this time.")
    for line in adaptation_lines([r.scores.usage.get("this_invocation", {}) for r in result.runs]):
        console.print(line, soft_wrap=True, markup=False)
    console.print(f"Profile report: {result.html} (and profile.md, profile.json beside it)",
                  soft_wrap=True)
    from creval.cli.verify import say_unverified

    say_unverified([result.out], strict=False)  # a run whose scores its records do not vouch for
    if not result.ok:
        raise typer.Exit(1)
    _exit_without_score(result, allow_no_score)


def _exit_without_score(result: Any, allow: bool) -> None:
    """Exit 3 (after saying why per run) when no measure of the profile has a value."""
    from rich.markup import escape

    from creval.evaluation.run.unscored import EXIT_NO_SCORE, profile_scored, unscored

    if profile_scored(result.document):
        return
    err = get_console(stderr=True)
    for run in result.runs:
        u = unscored(run.scores)
        if u is not None:
            err.print(f"warning: {escape(u.message(run.benchmark))}", soft_wrap=True)
    err.print("warning: the profile finished without a score: no measure has a value "
              "(Weak above says why per benchmark).", soft_wrap=True)
    if not allow:
        raise typer.Exit(EXIT_NO_SCORE)


def _plan(model: str, *, size: str, out: Path | None, lang: str, preset: str | None,
          judge: str | None, roles: dict[str, str], families: list[str], only: list[str],
          options: dict[str, dict[str, Any]], concurrency: int | None, price: list[str],
          prices: Path | None, repeats: int = 1, reasoning_ratio: float | None = None,
          allow_same_family: bool = False) -> None:
    """``creval profile --plan``: the battery's requests, tokens, time and cost, unsent."""
    from creval.cli.plan import checked_prices, show_plan
    from creval.evaluation.profile.profiling import ProfileRequest, default_out, plan_profile

    checked = checked_prices(price, prices)  # before the battery is planned
    request = ProfileRequest(model=model, size=size, lang=lang, preset=preset, judge=judge,
                             roles=roles, families=tuple(families), only=tuple(only),
                             overrides=options, repeats=repeats)
    root = out or default_out(request)
    planned = plan_profile(request, root)
    costs = panel_plan_costs([(request.model, p) for _, p in planned], judge=judge, model=model,
                             allow_same_family=allow_same_family, roles=roles,
                             concurrency=concurrency, prices=checked, progress=True,
                             reasoning_ratio=reasoning_ratio)
    show_plan(costs, root / "plan.json")
