"""``creval compare RUN_OR_PROFILE --published`` and ``creval compare A B --paired``: paired
comparisons item by item (:mod:`creval.evaluation.compare.paired`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from creval.cli.summaries import published_summary
from creval.errors import CrevalError


def compare_paired(run_dirs: list[Path], *, published: bool, paired: bool,
                   published_data: Path | None, as_json: bool) -> None:
    """Print the paired comparisons: a table (Markdown) or one JSON object per line."""
    from creval.evaluation.compare.paired import compare_published_report, compare_runs_paired
    from creval.report.paired import render_paired_text

    if published and paired:
        raise CrevalError("Choose one: --published (a run against published models) or "
                          "--paired (two of your runs against each other).")
    for d in run_dirs:
        if not d.is_dir():
            raise CrevalError(f"{d} is not a directory: pass a run or profile directory.")
    if published:
        if len(run_dirs) != 1:
            raise CrevalError("--published compares one run or profile directory with the "
                              f"published models; got {len(run_dirs)}.")
        report = compare_published_report(run_dirs[0], published=published_data)
    else:
        if len(run_dirs) != 2:
            raise CrevalError(f"--paired compares two runs (A B), got {len(run_dirs)}.")
        report = compare_runs_paired(run_dirs[0], run_dirs[1])
    doc = report.to_json()
    for line in doc.get("unverified", []):  # compared, but not all of it could be replayed
        typer.echo(line, err=True)
    if as_json:
        if not doc["rows"]:
            raise CrevalError(_nothing_compared(doc, run_dirs))
        for row in doc["rows"]:
            typer.echo(json.dumps(row))
        for skipped in doc["skipped"]:
            typer.echo(f"not compared: {skipped['benchmark']} ({skipped['run']}): "
                       f"{skipped['reason']}", err=True)
        return
    if published:
        for line in published_summary(doc, run_dirs[0]):
            typer.echo(line)
        typer.echo("")
    if doc["rows"]:
        typer.echo(render_paired_text({**doc, "skipped": []}, runs=paired))
    if doc["skipped"]:
        print_skipped(doc["skipped"])
    if not doc["rows"]:
        raise CrevalError(_nothing_compared(doc, run_dirs))


def _nothing_compared(doc: dict[str, Any], run_dirs: list[Path]) -> str:
    """The error when no row could be made: the one reason, or where the reasons are."""
    skipped = doc["skipped"]
    if len(skipped) == 1:
        s = skipped[0]
        return f"No paired comparison could be made: {s['benchmark']} ({s['run']}): {s['reason']}"
    if skipped:
        return (f"No paired comparison could be made: none of the {len(skipped)} runs of "
                f"{' and '.join(map(str, run_dirs))} (the table says why).")
    return "No paired comparison could be made: no measure of these runs has per-item values."


def print_skipped(skipped: list[dict[str, str]]) -> None:
    """The runs not compared as a table, one reason a line, wrapped to the terminal."""
    from rich.table import Table
    from rich.text import Text

    from creval.cli._common import get_console

    table = Table("benchmark", "run", "not compared because", box=None, pad_edge=False,
                  title="Not compared", title_justify="left")
    for column in table.columns:
        column.overflow = "fold"
    for s in skipped:
        reasons = s["reason"].removeprefix("not comparable: ").split("; ")
        table.add_row(Text(s["benchmark"]), Text(s["run"]),
                      Text("\n".join(f"- {r}" for r in reasons)))
    get_console().print(table)
