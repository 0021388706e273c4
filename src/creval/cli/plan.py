"""``--plan`` on ``creval run`` and ``creval profile``: what a study will send and cost,
printed and written as JSON, before anything is paid (see :mod:`creval.evaluation.cost`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from creval.cli._common import get_console

if TYPE_CHECKING:
    from creval.evaluation.cost import RoleCost

PlanFlag = Annotated[bool, typer.Option("--plan", help="Print and write (plan.json) what the run would send: units, requests, tokens, time and, with --price, cost per benchmark and role. Calls no model.")]
PriceFlags = Annotated[list[str] | None, typer.Option("--price", help="ROLE=IN/OUT: price per million input and output tokens of a role (target, judge, e1, ...; * for every role) for --plan; repeatable.")]
ReasoningRatio = Annotated[float | None, typer.Option("--reasoning-ratio", help="For --plan of a reasoning model: reasoning tokens it spends per answer token (e.g. 4), to say how much of the output is reasoning where no earlier run measured it.")]
PriceFile = Annotated[Path | None, typer.Option("--prices", help="JSON file of prices per role for --plan: {\"judge\": \"2.5/10\", \"target\": {\"input\": 0.15, \"output\": 0.6}}.")]


def show_plan(costs: list[RoleCost], path: Path) -> dict[str, Any]:
    """Print the plan as a table and its totals, write it to ``path`` as JSON."""
    from rich.table import Table

    from creval.evaluation.cost import plan_summary

    summary = plan_summary(costs)
    table = Table("benchmark", "role", "model", "units", "requests", "input tok", "output tok",
                  "time", "cost", "basis", title="creval plan (nothing sent)")
    for c in costs:
        table.add_row(c.benchmark, c.role, c.model, str(c.units), f"{c.requests:,}",
                      f"{c.input_tokens:,}", f"{c.output_tokens:,}", _duration(c.seconds),
                      "-" if c.cost is None else f"{c.cost:,.2f}", c.basis)
    console = get_console()
    console.print(table)
    total = summary["total"]
    cost = "" if total["cost"] is None else f", cost {total['cost']:,.2f}"
    console.print(f"In all: {total['requests']:,} request(s), {total['input_tokens']:,} input and "
                  f"{total['output_tokens']:,} output token(s){_reasoning(total)}, about "
                  f"{_duration(total['seconds'])}{cost}.", soft_wrap=True)
    for role, row in summary["roles"].items():
        if row["cost"] is not None and len(summary["roles"]) > 1:
            console.print(f"  {role}: cost {row['cost']:,.2f}", soft_wrap=True)
    if total["cost"] is None and costs:
        console.print("No --price given (or not for every role): cost not computed.")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(summary, indent=2) + "\n")
    console.print(f"Plan written to {path}", soft_wrap=True)
    return summary


def _reasoning(total: dict[str, Any]) -> str:
    """`` (N of them reasoning)`` when a reasoning model's thinking is part of the output."""
    n = int(total.get("reasoning_tokens") or 0)
    return f" ({n:,} of them reasoning, billed as output)" if n else ""


def _duration(seconds: float) -> str:
    """``3725.0`` -> ``1 h 2 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60} min"
