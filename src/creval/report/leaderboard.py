"""``creval compare``: one leaderboard per benchmark across runs (models), with the number of
items and the interval of each metric whose per-item values the scores carry (none below
:data:`creval.metrics.intervals.MIN_ITEMS` items: ``METRIC_interval`` then says why), and
each run's counters.

The seed-004 analysis (JCQ/TTCT scores correlated with DAT and SAT across models) is that
benchmark family's own command, ``creval correlate`` (:mod:`creval.analyses.ttct_correlations`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from creval.metrics.intervals import describe_interval, mean_interval
from creval.reader import Run
from creval.runner.counters import totals


def leaderboard(
    runs: Sequence[Run], *, confidence: float = 0.95
) -> dict[str, list[dict[str, Any]]]:
    """Benchmark -> one row per run: model, headline metrics (with ``METRIC_n``,
    ``METRIC_low`` and ``METRIC_high`` where ``scores.per_item`` holds the values behind the
    metric, and ``METRIC_interval`` when there is no interval), units, requests and tokens.
    Rows are sorted by the first headline metric, best (highest) first.
    """
    boards: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        scores = run.scores
        if scores is None:
            continue
        row: dict[str, Any] = {"model": run.model, "run": str(run.path)}
        for metric, value in scores.headline.items():
            if value is not None and not isinstance(value, int | float):
                continue
            row[metric] = value
            values = [float(v) for v in scores.per_item.get(metric, []) if v is not None]
            if f"{metric}_low" in scores.headline and f"{metric}_high" in scores.headline:
                from creval.report.headline import scorer_interval

                own = scorer_interval(scores, metric)  # the scorer's own interval stays
                if own and own.get("n") is not None:
                    row[f"{metric}_n"] = own["n"]
            elif values:
                ci = mean_interval(values, confidence=confidence, proportions=True)
                row[f"{metric}_n"] = ci.n
                row[f"{metric}_low"], row[f"{metric}_high"] = ci.low, ci.high
                if ci.reason is not None:
                    row[f"{metric}_interval"] = describe_interval(ci)
        usage = totals(scores.usage.get("all_invocations", {}))
        row.update({"units": f"{scores.units.finished}/{scores.units.total}",
                    "errors": scores.units.errors, "requests": usage["requests"],
                    "tokens": usage["input_tokens"] + usage["output_tokens"]})
        boards.setdefault(run.benchmark, []).append(row)
    for rows in boards.values():
        first = next((k for k in rows[0] if k not in ("model", "run")), "")
        rows.sort(key=lambda r: (r.get(first) is None, -(r.get(first) or 0.0)))
    return boards


def to_csv(boards: dict[str, list[dict[str, Any]]]) -> str:
    """All leaderboards in one CSV, a ``benchmark`` column first.

    >>> print(to_csv({"dat": [{"model": "a", "dat_mean": 80.0}]}).strip())
    benchmark,model,dat_mean
    dat,a,80.0
    """
    columns = ["benchmark", *dict.fromkeys(k for rows in boards.values() for r in rows for k in r)]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for name, rows in boards.items():
        for row in rows:
            writer.writerow({"benchmark": name, **row})
    return buffer.getvalue()


def to_markdown(boards: dict[str, list[dict[str, Any]]]) -> str:
    """Each leaderboard as a Markdown table under its benchmark's name."""
    from creval.report.markdown import markdown_table

    return "\n\n".join(f"## {name}\n\n{markdown_table(rows)}" for name, rows in boards.items())


def to_html(boards: dict[str, list[dict[str, Any]]]) -> str:
    """One self-contained HTML page with every leaderboard."""
    from html import escape

    from creval.report.markdown import fmt

    parts = ["<!doctype html><meta charset='utf-8'><title>creval compare</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:.3em .6em}td.num{text-align:right}</style>",
             "<h1>creval compare</h1>"]
    for name, rows in boards.items():
        columns = list(dict.fromkeys(k for r in rows for k in r))
        head = "".join(f"<th>{escape(c)}</th>" for c in columns)
        body = "".join(
            "<tr>" + "".join(
                f"<td class='{'num' if isinstance(r.get(c), int | float) else ''}'>"
                f"{escape(fmt(r.get(c)))}</td>" for c in columns) + "</tr>"
            for r in rows
        )
        parts.append(f"<h2>{escape(name)}</h2><table><tr>{head}</tr>{body}</table>")
    return "\n".join(parts) + "\n"
