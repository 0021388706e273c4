"""``creval references``: the papers' published values that runs are compared with, and
``creval references check PATH``: which of them a run may stand beside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.cli._common import get_console
from creval.errors import CrevalError


def references(
    seed: Annotated[str | None, typer.Option(help="Only this paper's values: 000-004 (0-4 works too).")] = None,
    benchmark: Annotated[str | None, typer.Option(help="Only values of this benchmark (e.g. jcq, lotbench).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON (one object per value) instead of tables.")] = False,
) -> None:
    """Published values of models and people, each with its table and how it was measured.

    A profile places a run beside a value only when the run measured the same way (same
    benchmark, data, judge and evaluators, options, and at least as many items).
    """
    from creval.report.references import load_references

    papers = load_references()
    if seed is not None:
        wanted = seed.strip().zfill(3)
        known = [p.seed for p in papers]
        if wanted not in known and seed.strip() in known:  # a paper beyond the seeds ("-")
            wanted = seed.strip()
        if wanted not in known:
            raise CrevalError(f"No references for seed {seed!r}; choose from {', '.join(dict.fromkeys(known))}.")
        papers = [p for p in papers if p.seed == wanted]
    rows = [_row(p, v) for p in papers for v in p.values if benchmark in (None, v.benchmark)]
    if benchmark is not None and not rows and (seed is not None or not _released_of(benchmark)):
        names = sorted({v.benchmark for p in papers for v in p.values})
        raise CrevalError(f"No references for benchmark {benchmark!r}"
                          + (f" in seed {seed}" if seed else "") + f"; choose from {', '.join(names)}.")
    if as_json:
        typer.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    _print_tables(rows, {p.paper: p.licence for p in papers})
    if seed is None:
        _print_released(benchmark)


def _row(paper: Any, value: Any) -> dict[str, Any]:
    protocol = paper.protocols[value.protocol]
    return {"paper": paper.paper, "seed": paper.seed, "subject": value.subject, "kind": value.kind,
            "benchmark": value.benchmark, "measure": value.measure, "value": value.value,
            "source": value.source, "protocol": value.protocol,
            "protocol_description": protocol.description, "unit": _unit(protocol)}


def _unit(protocol: Any) -> str | None:
    """The unit of a protocol's values where its benchmark has several (DAT: x100 or 0-1)."""
    from creval.evaluation.compare.comparability import _unit as unit_of

    return unit_of(protocol)


def _listing_console() -> Any:
    """The console of the listing: fitted to a terminal; whole lines (no name cut to a width)
    when the output is a pipe or a file, so that grep, cut or a pager see every name."""
    console = get_console()
    if console.is_terminal:
        return console
    from rich.console import Console

    return Console(highlight=False, emoji=False, width=WHOLE_LINES, color_system=None)


#: The console width of a listing that is not printed to a terminal: wider than any row, so
#: that nothing is cut or wrapped (a table is as wide as its longest row, never this wide).
WHOLE_LINES = 100_000


def _print_tables(rows: list[dict[str, Any]], licences: dict[str, str]) -> None:
    from rich.table import Table

    console = _listing_console()
    for paper in dict.fromkeys(r["paper"] for r in rows):
        mine = [r for r in rows if r["paper"] == paper]
        console.print(f"[bold]seed {mine[0]['seed']}[/]: {paper}")
        if licences.get(paper):
            console.print(f"  licence: {licences[paper]}", soft_wrap=False)
        table = Table("subject", "kind", "benchmark", "measure", "value", "source", "protocol",
                      box=None, pad_edge=False)
        for r in mine:
            table.add_row(r["subject"], r["kind"], r["benchmark"], r["measure"],
                          f"{r['value']:g}" + (f" {r['unit']}" if r.get("unit") else ""),
                          r["source"], r["protocol"])
        console.print(table)
        for pid, described in dict.fromkeys((r["protocol"], r["protocol_description"]) for r in mine):
            console.print(f"  [bold]{pid}[/]: {described}", soft_wrap=False)
        console.print()


def _released_of(benchmark: str) -> bool:
    """Whether ``benchmark`` declares per-item results a paper released."""
    from creval.report.references import registered_benchmark

    bench = registered_benchmark(benchmark)
    return bench is not None and bench.published_items() is not None


def _print_released(benchmark: str | None) -> None:
    """The per-item results papers released, which runs are paired with (``creval compare
    RUN --published``): each read at run time from where its benchmark says, with its licence."""
    from creval.report.references import declaring

    console = _listing_console()
    found = [(b.name, items) for b in declaring() if benchmark in (None, b.name)
             if (items := b.published_items()) is not None]
    if not found:
        return
    console.print("[bold]released per-item results[/] (read at run time, never shipped; "
                  "creval compare RUN --published)")
    for name, items in found:
        console.print(f"  [bold]{name}[/] {items.protocol.id}: {', '.join(items.measures)} per "
                      f"{items.item_identity}; licence: {items.licence}; from {items.fetched_from}",
                      soft_wrap=False)
    console.print()


# --- creval references check PATH -----------------------------------------------------------

def check(
    path: Annotated[Path, typer.Argument(help="A run directory, or a profile directory (every run below it).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: one object per published value.")] = False,
) -> None:
    """Whether each published value of a run's measures was measured the way the run was,
    with every reason it was not (each differing option with both values).

    Compared: the benchmark, the data (by the digest of its content), the judge and other
    evaluator models (by the snapshot every answer reported), every option that changes
    what is measured (as the recorded requests applied it), and the valid items behind the
    value. See docs/references.md.
    """
    checks, refused = _verified_checks(path)
    if as_json:
        typer.echo(json.dumps([c.as_dict() for c in checks], indent=1, ensure_ascii=False))
    elif checks:
        from creval.cli.summaries import check_summary

        for line in [*check_summary(checks, path), *_check_lines(checks)]:
            typer.echo(line)
    elif not refused:
        typer.echo(f"{path}: no measure of its run(s) has a published value."
                   + _released_missing(path))
    from rich.markup import escape

    for message in refused:  # each bad run said; the others were checked
        get_console(stderr=True).print(f"[bold red]error:[/] {escape(message)}", soft_wrap=True)
    if refused:
        raise typer.Exit(2)


def _verified_checks(path: Path) -> tuple[list[Any], list[str]]:
    """The checks of every run at ``path`` that passes ``creval verify``'s checks, and why
    each other run was refused (its files do not agree)."""
    from creval.evaluation.compare.comparability import check_run, run_dirs
    from creval.evaluation.verify.verifying import refusal, unverified_line, verify_run
    from creval.reader import read_run
    from creval.report.references import load_references

    refs = load_references()
    checks: list[Any] = []
    refused: list[str] = []
    for folder in run_dirs(path):
        from creval.cli.verify import say_verifying

        say_verifying(folder)
        verified = verify_run(folder)
        if verified.sound:
            checks += check_run(read_run(folder), refs)
            if (line := unverified_line(verified)) is not None:
                typer.echo(line, err=True)  # compared, but not all of it could be replayed
        else:
            refused.append(refusal(verified))
    return checks, refused


def _check_lines(checks: list[Any]) -> list[str]:
    """Per run and measure, each protocol once: comparable or not with every reason, the
    values it covers, and the values the paper does not print (inferred)."""
    lines: list[str] = []
    groups: dict[tuple[str, str, str], list[Any]] = {}
    for c in checks:
        groups.setdefault((c.run, c.measure, c.protocol), []).append(c)
    last: tuple[str, str] | None = None
    for (run, measure, protocol), group in groups.items():
        first = group[0]
        unit = f" {first.unit}" if first.unit else ""
        if last != (run, measure):
            ours = "-" if first.ours is None else f"{first.ours:.4g}"
            lines += ["", f"{run}: {first.benchmark} {measure} = {ours}"]
            if first.items is not None:
                lines.append(f"  {first.items.line()}")
            lines += [f"  note: {note}" for note in first.notes]
            last = (run, measure)
        verdict = "comparable" if first.comparable else "not comparable"
        lines.append(f"  {protocol} (seed {first.seed}): {verdict}"
                     + (f" (values in {first.unit})" if first.unit else ""))
        lines += [f"    - {why}" for why in first.reasons]
        if first.comparable:
            lines += [f"    inferred: {note}" for note in first.inferred]
        if any(c.placement for c in group):
            from creval.report.paired import placement_text

            lines += [f"    {c.subject} {c.value:.4g}{unit}: {placement_text(c.placement)}"
                      for c in group if c.placement]
        else:
            lines.append("    " + "; ".join(f"{c.subject} {c.value:g}{unit}" for c in group))
    return lines[1:]


def _released_missing(path: Path) -> str:
    """For a run whose benchmark places it among released per-answer values (English DAT's
    lists): why they are not there to stand among."""
    from creval.evaluation.compare.comparability import released_missing, run_dirs
    from creval.reader import read_run

    notes = []
    for folder in run_dirs(path):
        why = released_missing(read_run(folder))
        if why:
            notes.append(f" {folder}: placed among released values when they are found: {why}")
    return "".join(notes)


def _listing_unless_a_subcommand(listing: Any) -> Any:
    """``creval references`` lists; ``creval references check PATH`` checks. The listing's
    own options and help are kept (its signature, with the context Typer passes added)."""
    import functools
    import inspect

    @functools.wraps(listing)
    def callback(ctx: typer.Context, *args: Any, **kwargs: Any) -> None:
        if ctx.invoked_subcommand is None:
            listing(*args, **kwargs)

    own = inspect.signature(listing, eval_str=True)
    context = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
    del callback.__wrapped__
    callback.__signature__ = own.replace(parameters=[context, *own.parameters.values()])  # type: ignore[attr-defined]
    callback.__annotations__ = {"ctx": typer.Context, **listing.__annotations__}
    return callback


references_app = typer.Typer(add_completion=False, rich_markup_mode=None)
references_app.callback(invoke_without_command=True)(_listing_unless_a_subcommand(references))
references_app.command("check")(check)
