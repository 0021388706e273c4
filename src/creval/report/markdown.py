"""A readable Markdown report of one run directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from creval.records import Analysis, Scores, read_analyses
from creval.report.noise import noise_markdown

REPORT = "report.md"


def fmt(value: Any) -> str:
    """Format a cell: floats to 4 places, None as a dash.

    >>> fmt(0.123456), fmt(None), fmt(3)
    ('0.1235', '-', '3')
    """
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: list[dict[str, Any]], columns: list[str] | None = None) -> str:
    """Rows of dicts as a Markdown table.

    >>> print(markdown_table([{"a": 1, "b": 0.5}]))
    | a | b |
    | --- | --- |
    | 1 | 0.5000 |
    >>> print(markdown_table([{"a": 1}, {"a": 2, "b": 3}]).splitlines()[0])  # keys of every row
    | a | b |
    """
    if not rows:
        return "_(none)_"
    cols = columns or list(dict.fromkeys(key for row in rows for key in row))  # every row's keys
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    lines += ["| " + " | ".join(fmt(row.get(c)) for c in cols) + " |" for row in rows]
    return "\n".join(lines)


def render_report(manifest: dict[str, Any], scores: Scores,
                  analyses: list[Analysis] | None = None) -> str:
    """The report of one run as Markdown, with the analyses saved into it."""
    name = scores.benchmark or manifest.get("benchmark", "?")
    out = [f"# creval run: {name}", ""]
    out.append(f"- model: `{manifest.get('model_spec')}`")
    if isinstance(manifest.get("judge"), dict):
        out.append(f"- judge: `{manifest['judge'].get('spec')}`")
    for role, described in (manifest.get("roles") or {}).items():
        out.append(f"- {role}: `{described.get('spec')}` ({described.get('chosen_by')})")
    out.append(f"- created: {manifest.get('created')}; creval {manifest.get('packages', {}).get('creval', '?')}, git {manifest.get('git_revision') or '-'}")
    units = scores.units
    out.append(
        f"- units: {units.finished} finished of {units.total}, "
        f"{units.errors} errors, {units.missing} not run yet; "
        f"records.jsonl has {units.superseded_lines} superseded line(s) (a retried "
        "unit's earlier lines; the last line per unit counts)"
    )
    for warning in [*scores.warnings, *scores.run_warnings]:
        out.append(f"- **warning:** {warning}")
    out += judge_checks_section(scores)
    from creval.report.headline import headline_rows

    out += ["", "## Scores", "", markdown_table(headline_rows(scores))]  # interval and n
    if scores.resources:
        out += ["", "Scored with: `" + json.dumps(scores.resources, ensure_ascii=False) + "`"]
    for note in scores.notes:
        out.append(f"- {note}")
    out += noise_markdown(scores, markdown_table)  # --repeats: the variance split
    for section in scores.sections:
        out += ["", f"## {section['title']}", ""]
        if section.get("text"):
            out += [section["text"], ""]
        out.append(markdown_table(section.get("rows", []), section.get("columns")))
    for artifact in scores.artifacts:
        suffix = Path(artifact).suffix.lower()
        out.append(f"\n![{artifact}]({artifact})" if suffix in {".png", ".svg"} else f"\n- file: `{artifact}`")
    out += analyses_section(analyses or [])
    out += ["", "## Options", "", "```json", json.dumps(manifest.get("options", {}), indent=2, ensure_ascii=False), "```"]
    out += usage_section(scores.usage)
    if scores.errors:
        out += ["", "## Errors", "", markdown_table([c.model_dump() for c in scores.error_causes]),
                "", markdown_table([e.model_dump() for e in scores.errors])]
    out += ["", "## Items", "", markdown_table(scores.table)]
    return "\n".join(out) + "\n"


def judge_checks_section(scores: Scores) -> list[str]:
    """The "Judge checks" block: each sign that a judge does not discriminate, and what to do
    (nothing when no check fired)."""
    from creval.judges.discrimination import ADVICE

    if not scores.judge_checks:
        return []
    out = ["", "## Judge checks", "", f"**{ADVICE}**", ""]
    out += [f"- **{c.judge}:** {c.detail}." for c in scores.judge_checks]
    return out


def analyses_section(analyses: list[Analysis]) -> list[str]:
    """``creval analyze ...`` results: each analysis's notes and tables (plots: HTML report)."""
    out: list[str] = []
    for analysis in analyses:
        what = f" ({analysis.reproduces} of seed {analysis.seed_paper})" if analysis.reproduces else ""
        out += ["", f"## Analysis: {analysis.title}{what}", ""]
        out += [f"- inputs: {', '.join(f'`{i}`' for i in analysis.inputs) or '-'}"]
        out += [f"- {note}" for note in analysis.notes]
        if analysis.plots:
            out.append(f"- {len(analysis.plots)} plot(s) in report.html")
        for table in analysis.tables:
            out += ["", f"### {table.title}", ""] + ([table.text, ""] if table.text else [])
            out.append(markdown_table(table.rows, table.columns))
    return out


def usage_section(usage: dict[str, Any]) -> list[str]:
    """Units, requests, retries, cache hits, tokens and wall time: this invocation, all
    invocations, and per model (the same names as the console and ``scores.json``)."""
    from creval.runner.counters import totals

    if not usage:
        return []
    rows = [
        {"invocations": label, **totals(usage.get(key, {})), "seconds": usage.get(key, {}).get("seconds")}
        for label, key in (("this one", "this_invocation"), (f"all {usage.get('invocations', 0)}", "all_invocations"))
    ]
    per_model = [
        {"model": m, **row} for m, row in usage.get("all_invocations", {}).get("models", {}).items()
    ]
    return ["", "## Usage", "", markdown_table(rows), "", "Per model, all invocations "
            "(requests as the server saw them, retries and top-up calls included):", "",
            markdown_table(per_model), *(line for note in where_notes(usage) for line in ("", note))]


def where_notes(usage: dict[str, Any]) -> list[str]:
    """Where this invocation's work ran (the executor, its workers and tasks per worker) and
    the run's Batch API batches (``--batch``), as sentences for both reports.

    >>> where_notes({"executor": {"executor": "ray", "workers": 2, "per_worker": {"a1:7": 3}},
    ...              "batches": [{"batch": "b1", "lines": 4, "status": "completed", "failed": 1}]})
    ["Executor of this invocation: ray, 2 worker(s); tasks per worker: {'a1:7': 3}.", 'OpenAI Batch API, 1 batch(es) (batches.jsonl): `b1` (4 lines, completed, 1 failed)']
    """
    notes = []
    if e := usage.get("executor"):
        notes.append(f"Executor of this invocation: {e['executor']}, {e['workers']} worker(s); "
                     f"tasks per worker: {e['per_worker'] or 'none'}.")
    if batches := usage.get("batches"):
        each = ", ".join(f"`{b['batch']}` ({b['lines']} lines, {b['status']}"
                         + (f", {b['failed']} failed" if b["failed"] else "") + ")" for b in batches)
        notes.append(f"OpenAI Batch API, {len(batches)} batch(es) (batches.jsonl): {each}")
    return notes


def write_report(out: Path, manifest: dict[str, Any], scores: Scores) -> Path:
    path = Path(out) / REPORT
    path.write_text(render_report(manifest, scores, read_analyses(Path(out))), encoding="utf-8")
    return path
