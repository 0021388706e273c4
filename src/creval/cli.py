"""The ``creval`` command line."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from creval.cli_common import flag_options, parse_extra_options
from creval.cli_roles import role_values, roles_table
from creval.errors import CrevalError


class _Group(TyperGroup):
    """Bad input (a :class:`CrevalError`) exits with its code and a message, no traceback,
    however the app is invoked: ``creval``, ``python -m creval.cli`` or Typer's test runner."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except CrevalError as exc:
            from rich.markup import escape

            from creval.redact import redact_text

            message = escape(redact_text(str(exc)))
            _console(stderr=True).print(f"[bold red]error:[/] {message}", soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None


app = typer.Typer(
    name="creval",
    cls=_Group,
    help="Measure the creativity of language models.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, emoji=False)  # "openai:m:" is no emoji


def _register_subcommands() -> None:
    from creval.cli_analyze import register_all
    from creval.cli_data import data_app
    from creval.cli_index import index_app
    from creval.cli_novelty import novelty
    from creval.cli_play import play_app
    from creval.cli_sandbox import sandbox_app
    from creval.cli_score import score_app
    from creval.cli_train import train_app

    app.add_typer(score_app, name="score")
    app.add_typer(data_app, name="data")
    app.add_typer(sandbox_app, name="sandbox")
    app.add_typer(index_app, name="index")
    app.add_typer(play_app, name="play")
    app.command("novelty")(novelty)
    app.add_typer(register_all(), name="analyze")
    app.add_typer(train_app, name="train")


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


def _options_table(cls: Any) -> Any:
    """A benchmark's options with their kinds, readable in an 80-column terminal."""
    from rich.table import Table

    table = Table("option", "kind", "default", "what it does", box=None, pad_edge=False)
    for name, info in cls.Options.model_fields.items():
        table.add_row(
            "--" + name.replace("_", "-"), cls.Options.kind_of(name), repr(info.default),
            info.description or "",
        )
    return table


OPTION_KINDS = (
    "Option kinds: generation options must match to resume a run directory; scale options "
    "(--limit, --trials) may grow or shrink it; scoring options re-score the same answers."
)


@app.command("list")
def list_benchmarks(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show every option with its kind and default.")] = False,
) -> None:
    """The registered benchmarks and their options."""
    from rich.table import Table

    from creval.benchmarks.base import registry

    console = _console()
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
        console.print(_options_table(cls))
        if cls.extra_roles:
            console.print(roles_table(cls))
        console.print()


@app.command(
    "run",
    context_settings={
        "allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": [],
    },
)
def run(
    ctx: typer.Context,
    benchmarks: Annotated[list[str] | None, typer.Argument(help="Benchmark names (see `creval list`).")] = None,
    model: Annotated[str, typer.Option("--model", "-m", help="Model spec: local, local:PATH.gguf, openai:NAME, hf:NAME_OR_PATH, replay:RUN_DIR.")] = "local",
    judge: Annotated[str | None, typer.Option(help="Judge model spec for LLM-judged benchmarks (default: the --model itself).")] = None,
    judge_base_url: Annotated[str | None, typer.Option(help="Endpoint of the judge, when it differs from --base-url.")] = None,
    role: Annotated[list[str] | None, typer.Option("--role", help="NAME=SPEC: the model of a benchmark's own role (lotbench: e1, e2; oogiri: rewriter), as --NAME SPEC does; it falls back to --judge, then --model. --NAME-base-url URL gives its endpoint.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Run directory (the same --out resumes). With several benchmarks, one subfolder each.")] = None,
    limit: Annotated[int | None, typer.Option(help="Use only the first N items.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of an OpenAI-compatible server.")] = None,
    api_key: Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY).", envvar="CREVAL_API_KEY")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Requests in flight per endpoint.")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds before a model request times out.")] = 120.0,
    threads: Annotated[int | None, typer.Option(help="CPU threads for in-process models (local). Default: half the CPUs.")] = None,
    structured_output: Annotated[str, typer.Option(help="OpenAI-compatible endpoints: how judges ask for their answer's shape: off, auto (probe the server once), json_schema or json_object (llama-cpp-python's server).")] = "off",
    prompt_logprobs: Annotated[str, typer.Option(help="OpenAI-compatible endpoints: how perplexity gets prompt log-probabilities: off, auto (probe the server once), vllm (prompt_logprobs) or echo (/completions echo).")] = "off",
    retries: Annotated[int, typer.Option(help="Attempts per request on rate limits, timeouts and server errors.")] = 5,
    cache: Annotated[Path | None, typer.Option(help="Response cache file (SQLite). Default: ~/.cache/creval/responses.sqlite or $CREVAL_CACHE_DIR.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")] = False,
    rescore: Annotated[bool, typer.Option(help="Score again even if nothing changed.")] = False,
    progress: Annotated[bool, typer.Option(help="Show a live progress bar.")] = True,
    preset: Annotated[str | None, typer.Option(help="'paper': each benchmark's judge, models and resources as its paper used them (checked before the run).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List every unit's first prompt; call no model, write nothing.")] = False,
    show_help: Annotated[bool, typer.Option("--help", "-h", help="Show this message and the options of the named benchmarks.")] = False,
) -> None:
    """Run benchmarks against a model, resuming what an earlier run in --out finished.

    Benchmark options follow, e.g. `creval run dat --model local --trials 20 --lang ja`.
    """
    from creval.evaluation import RunSettings, plan_runs, run_benchmark
    from creval.models import ModelOptions
    from creval.runner.cache import default_cache_path
    from creval.runner.engine import RetryPolicy

    tokens = [*(benchmarks or []), *ctx.args]  # unknown options land among the positional names
    split = next((i for i, t in enumerate(tokens) if t.startswith("--")), len(tokens))
    if show_help or "--help" in tokens[split:]:
        _run_help(ctx, tokens[:split])
        return
    values: dict[str, Any] = parse_extra_options(tokens[split:], _flags(tokens[:split]))
    if limit is not None:
        values["limit"] = limit
    values, roles, role_urls = role_values(tokens[:split], values, role or [])
    plans = plan_runs(tokens[:split], values, out, model, preset=preset, judge=judge,
                      roles=roles, role_urls=role_urls)  # bad input stops here
    if dry_run:
        _print_dry_run(plans)
        return
    if prompt_logprobs not in ("off", "auto", "vllm", "echo"):
        raise CrevalError("--prompt-logprobs takes off, auto, vllm or echo.")
    if structured_output not in ("off", "auto", "json_schema", "json_object"):
        raise CrevalError("--structured-output takes off, auto, json_schema or json_object.")
    model_options = ModelOptions(
        base_url=base_url, api_key=api_key, timeout=timeout, concurrency=concurrency,
        threads=threads, structured_output=structured_output,  # type: ignore[arg-type]
        prompt_logprobs=prompt_logprobs,  # type: ignore[arg-type]
    )
    settings = RunSettings(
        model=model,
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
    )
    results = []
    for plan in plans:
        _console(stderr=True).print(f"[bold]{plan.benchmark.name}[/] -> {plan.out}")
        chosen = dataclasses.replace(settings, judge=plan.judge, roles=plan.roles)
        results.append(run_benchmark(plan.benchmark, plan.options, plan.out, chosen))
    _print_results(results)
    if any(r.scores.get("units", {}).get("errors", 0) or r.endpoints_down for r in results):
        raise typer.Exit(1)


def _print_dry_run(plans: list[Any]) -> None:
    """Each unit's first prompt, as ``creval run --dry-run`` shows it."""
    from creval.offline import dry_run

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
    from creval.benchmarks.base import get_benchmark

    typer.echo(ctx.get_help())
    console = _console()
    if not names:
        console.print("\nName benchmarks to see their options: creval run dat --help")
        return
    console.print("\n" + OPTION_KINDS)
    for name in names:
        cls = type(get_benchmark(name))
        console.print(f"\n[bold]{name} options[/]: {cls.description}")
        console.print(_options_table(cls))
        if cls.extra_roles:
            console.print(f"[bold]{name} model roles[/] (each falls back to --judge, then --model):")
            console.print(roles_table(cls))


def _print_results(results: list[Any]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from creval.report.markdown import fmt
    from creval.runner.counters import totals

    table = Table("benchmark", "metric", "value", title="creval results")
    for result in results:
        for metric, value in result.scores.get("headline", {}).items():
            table.add_row(result.benchmark, metric, fmt(value))
    console = _console()
    console.print(table)
    err = _console(stderr=True)
    for result in results:
        usage = result.scores.get("usage", {}).get("this_invocation", {})
        t = totals(usage)
        console.print(
            f"{result.benchmark}: units {t['ok']} ok, {t['failed']} failed, {t['not_run']} not "
            f"run; {t['requests']} request(s) ({t['retries']} retries), {t['cache_hits']} cache "
            f"hit(s); tokens {t['input_tokens']} in / {t['output_tokens']} out; "
            f"{usage.get('seconds', 0):.1f} s; report: {result.out / 'report.md'}",
            soft_wrap=True,
        )
        for warning in [*result.scores.get("warnings", []), *result.scores.get("run_warnings", [])]:
            err.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
        units = result.scores.get("units", {})
        if units.get("errors"):
            err.print(
                f"[yellow]{result.benchmark}: {units['errors']} unit(s) ended in errors; run the "
                "same command again to retry them. Causes:[/]", soft_wrap=True,
            )
            for cause in result.scores.get("error_causes", [])[:3]:
                err.print(f"  {cause['count']} x {escape(cause['cause'])}", soft_wrap=True)


@app.command("report")
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    html: Annotated[bool, typer.Option("--html", help="Also write report.html (one self-contained page: plots, counters, searchable samples) and print its path.")] = False,
) -> None:
    """Write report.md again from a run directory's manifest and scores, and print it."""
    from creval.reader import read_run
    from creval.report.markdown import write_report

    run = read_run(run_dir)  # read-only: safe beside a live run
    if run.scores is None:
        raise CrevalError(f"{run_dir} has no scores.json yet: run `creval run` with this --out.")
    path = write_report(run_dir, run.manifest.model_dump(mode="json"), run.scores.model_dump(mode="json"))
    typer.echo(path.read_text(encoding="utf-8"))
    if html:
        from creval.report.html import write_html_report

        typer.echo(f"HTML report: {write_html_report(run_dir)}")


@app.command("compare")
def compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (or folders holding runs) of several models.")],
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write the leaderboards as CSV here.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Also write them as one HTML page here.")] = None,
    confidence: Annotated[float, typer.Option(help="Level of the bootstrap confidence intervals.")] = 0.95,
) -> None:
    """One leaderboard per benchmark across runs: headline metrics with bootstrap confidence
    intervals, units, requests and tokens."""
    from creval.reader import read_runs
    from creval.report.leaderboard import leaderboard, to_csv, to_html, to_markdown

    if not 0 < confidence < 1:
        raise CrevalError("--confidence takes a level between 0 and 1, such as 0.95.")
    boards = leaderboard(read_runs(run_dirs), confidence=confidence)
    if not boards:
        raise CrevalError("None of these runs has scores yet: run `creval run` into them first.")
    typer.echo(to_markdown(boards))
    if csv is not None:
        csv.write_text(to_csv(boards), encoding="utf-8")
    if html is not None:
        html.write_text(to_html(boards), encoding="utf-8")


@app.command("correlate")
def correlate(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories of several models (jcq/ttct, dat, sat).")],
    by: Annotated[str, typer.Option(help="Group runs into models by 'folder' (runs/<model>/<benchmark>) or 'model' (spec and temperature).")] = "folder",
    out: Annotated[Path | None, typer.Option(help="Also write the comparison as Markdown here.")] = None,
) -> None:
    """Seed 004: correlate JCQ/TTCT task x criterion scores with DAT and SAT across models."""
    from creval.report.compare import compare_runs, render_comparison

    if by not in {"folder", "model"}:
        raise CrevalError("--by takes 'folder' or 'model'.")
    result = compare_runs(run_dirs, by=by)  # type: ignore[arg-type]
    text = render_comparison(result)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    typer.echo(text)


@app.command("agreement")
def agreement_command(
    run_dir: Annotated[Path, typer.Argument(help="A jcq or ttct run directory.")],
    human: Annotated[Path, typer.Option(help="CSV: question_id, answer_index, fluency, flexibility, originality, elaboration.")],
) -> None:
    """Judge-vs-human agreement: Pearson per task x criterion (the paper's Table 8)."""
    from creval.benchmarks.ttct.scoring import judgement_rows
    from creval.report.agreement import agreement, read_human_ratings
    from creval.report.markdown import markdown_table
    from creval.runner.store import RunStore

    store = RunStore(run_dir)
    manifest = store.read_manifest() or {}
    if manifest.get("benchmark") not in {"jcq", "ttct"}:
        raise CrevalError(f"{run_dir} is not a jcq or ttct run directory.")
    records = list(store.latest().values())
    store.close()
    lang = "ja" if manifest["benchmark"] == "jcq" else "en"
    parser = manifest.get("options", {}).get("parser", "strict")
    rows, _ = judgement_rows(records, lang=lang, parser=parser)
    table = agreement(rows, read_human_ratings(human))
    if not table:
        raise CrevalError(f"No answer in {human} matches an answer judged in {run_dir}.")
    typer.echo(markdown_table(table))


def main() -> None:
    """Entry point: bad input and set-up problems exit 2 with a message, no traceback."""
    try:
        app()
    except KeyboardInterrupt:
        _console(stderr=True).print(
            "interrupted: finished units are saved; run the same command again to resume."
        )
        sys.exit(130)


_register_subcommands()  # at import, so `app` is whole for Typer's in-process test runner


if __name__ == "__main__":
    main()
