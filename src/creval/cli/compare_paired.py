"""``creval compare RUN_OR_PROFILE --published`` and ``creval compare A B --paired``: paired
comparisons item by item (:mod:`creval.evaluation.paired`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from creval.errors import CrevalError


def compare_paired(run_dirs: list[Path], *, published: bool, paired: bool,
                   published_data: Path | None, as_json: bool) -> None:
    """Print the paired comparisons: a table (Markdown) or one JSON object per line."""
    from creval.evaluation.paired import compare_published_report, compare_runs_paired
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
    if not doc["rows"]:
        raise CrevalError("No paired comparison could be made: "
                          + "; ".join(f"{s['benchmark']} ({s['run']}): {s['reason']}"
                                      for s in doc["skipped"]))
    if as_json:
        for row in doc["rows"]:
            typer.echo(json.dumps(row))
        for skipped in doc["skipped"]:
            typer.echo(f"not compared: {skipped['benchmark']} ({skipped['run']}): "
                       f"{skipped['reason']}", err=True)
    else:
        typer.echo(render_paired_text(doc, runs=paired))
