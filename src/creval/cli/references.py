"""``creval references``: the papers' published values that runs are compared with."""

from __future__ import annotations

import json
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
        if wanted not in known:
            raise CrevalError(f"No references for seed {seed!r}; choose from {', '.join(known)}.")
        papers = [p for p in papers if p.seed == wanted]
    rows = [_row(p, v) for p in papers for v in p.values if benchmark in (None, v.benchmark)]
    if benchmark is not None and not rows:
        names = sorted({v.benchmark for p in papers for v in p.values})
        raise CrevalError(f"No references for benchmark {benchmark!r}"
                          + (f" in seed {seed}" if seed else "") + f"; choose from {', '.join(names)}.")
    if as_json:
        typer.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    _print_tables(rows)


def _row(paper: Any, value: Any) -> dict[str, Any]:
    protocol = paper.protocols[value.protocol]
    return {"paper": paper.paper, "seed": paper.seed, "subject": value.subject, "kind": value.kind,
            "benchmark": value.benchmark, "measure": value.measure, "value": value.value,
            "source": value.source, "protocol": value.protocol,
            "protocol_description": protocol.description}


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


def _print_tables(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    console = _listing_console()
    for paper in dict.fromkeys(r["paper"] for r in rows):
        mine = [r for r in rows if r["paper"] == paper]
        console.print(f"[bold]seed {mine[0]['seed']}[/]: {paper}")
        table = Table("subject", "kind", "benchmark", "measure", "value", "source", "protocol",
                      box=None, pad_edge=False)
        for r in mine:
            table.add_row(r["subject"], r["kind"], r["benchmark"], r["measure"], f"{r['value']:g}",
                          r["source"], r["protocol"])
        console.print(table)
        for pid, described in dict.fromkeys((r["protocol"], r["protocol_description"]) for r in mine):
            console.print(f"  [bold]{pid}[/]: {described}", soft_wrap=False)
        console.print()
