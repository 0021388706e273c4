"""``--plan`` on ``creval run`` and ``creval profile``: what a study will send and cost,
printed and written as JSON, before anything is paid (see :mod:`creval.evaluation.run.cost`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from creval.cli._common import get_console
from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.evaluation.run.cost import Price, RoleCost

PlanFlag = Annotated[bool, typer.Option("--plan", help="Print and write (plan.json) what the run would send: units, requests, tokens, time and, with --price, cost per benchmark and role. Calls no model.")]
PriceFlags = Annotated[list[str] | None, typer.Option("--price", help="ROLE=IN/OUT: price per million input and output tokens of a role (target, judge, e1, ...; * for every role) for --plan; repeatable.")]
ReasoningRatio = Annotated[float | None, typer.Option("--reasoning-ratio", help="For --plan of a reasoning model: reasoning tokens it spends per answer token (e.g. 4), to say how much of the output is reasoning where no earlier run measured it.")]
PriceFile = Annotated[Path | None, typer.Option("--prices", help="JSON file of prices per role for --plan: {\"judge\": \"2.5/10\", \"target\": {\"input\": 0.15, \"output\": 0.6}}.")]


def checked_prices(flags: list[str], file: Path | None) -> dict[str, Price]:
    """``--price`` and ``--prices`` parsed, every role checked against the roles benchmarks
    have (a typo such as ``tagret`` stops here, naming the known roles)."""
    from creval.benchmarks.base import registry
    from creval.evaluation.run.cost import parse_prices

    prices = parse_prices(flags, file)
    known = {"target", "judge"} | {r for cls in registry().values()
                                   for r in (*cls.roles, *cls.extra_roles)}
    unknown = sorted(set(prices) - known - {"*"})
    if unknown:
        import difflib

        close = [m[0] for u in unknown if (m := difflib.get_close_matches(u, sorted(known), n=1))]
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise CrevalError(f"--price names the unknown role(s) {', '.join(unknown)}.{hint} The "
                          f"roles are {', '.join(sorted(known))}, and * for every role.")
    return prices


def show_plan(costs: list[RoleCost], path: Path) -> dict[str, Any]:
    """Print the plan as a table (80 columns: the models and bases said below it) and its
    totals, write it to ``path`` as JSON."""
    from rich import box
    from rich.table import Table

    from creval.evaluation.run.cost import plan_summary

    summary = plan_summary(costs)
    table = Table(title="creval plan (nothing sent)", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("benchmark", overflow="fold")  # the only column that wraps, at spaces
    table.add_column("role", no_wrap=True)
    for header in ("units", "requests", "input\ntokens", "output\ntokens", "time", "cost"):
        table.add_column(header, justify="right", no_wrap=True)
    for c in costs:
        table.add_row(c.benchmark, c.role, f"{c.units:,}", f"{c.requests:,}",
                      f"{c.input_tokens:,}", f"{c.output_tokens:,}", _duration(c.seconds),
                      _money(c.cost))
    console = get_console()
    console.print(table)
    for line in _plan_notes(costs):
        console.print(line, markup=False)
    total = summary["total"]
    cost = "" if total["cost"] is None else f", cost {_money(total['cost'])} ({UNITS})"
    console.print(f"In all: {total['requests']:,} request(s), {total['input_tokens']:,} input and "
                  f"{total['output_tokens']:,} output token(s){_reasoning(total)}, about "
                  f"{_duration(total['seconds'])}{cost}.", markup=False)
    for role, row in summary["roles"].items():
        if row["cost"] is not None and len(summary["roles"]) > 1:
            console.print(f"  {role}: cost {_money(row['cost'])}", markup=False)
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


#: What the cost column is in: creval knows no price, only the user's.
UNITS = "in the units of --price"


_BASES = {"prompts": ", the prompts creval would send with every answer as long as max_tokens "
                      "(output tokens are an upper bound)",
          "earlier run": ", measured per unit in the run already in --out"}


def _plan_notes(costs: list[RoleCost]) -> list[str]:
    """The lines under the plan's table: each role's model, each basis with its benchmarks."""
    models = dict.fromkeys(f"{c.role} {c.model}" for c in costs)
    bases: dict[str, list[str]] = {}
    for c in costs:
        names = bases.setdefault(c.basis, [])
        if c.benchmark not in names:
            names.append(c.benchmark)
    lines = ["Models: " + "; ".join(models) + "."] if costs else []
    lines += [f"Basis of {', '.join(names)}: {basis}{_BASES.get(basis.split(' (')[0], '')}."
              for basis, names in bases.items()]
    return lines


def _money(cost: float | None) -> str:
    """A cost, to the cent, or to four places below one cent.

    >>> _money(1234.5), _money(0.0018), _money(0.0), _money(None)
    ('1,234.50', '0.0018', '0.00', '-')
    """
    if cost is None:
        return "-"
    return f"{cost:.4f}" if 0 < cost < 0.01 else f"{cost:,.2f}"


def _duration(seconds: float) -> str:
    """``3725.0`` -> ``1 h 2 min``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60} min"
