"""The judge panel's options (``--judge a,b,c``), shared by ``creval run``, ``profile`` and
``sweep``; see :mod:`creval.evaluation.panel`."""

from __future__ import annotations

from typing import Annotated

import typer

from creval.errors import CrevalError

PanelAggregate = Annotated[str, typer.Option(help="A judge panel's (--judge a,b,c) value of an item: mean, majority (the value most judges gave) or trimmed (the lowest and the highest judge's value dropped; needs 3 judges).")]
AllowSameFamily = Annotated[bool, typer.Option("--allow-same-family-judge", help="Keep the panel's judges of the tested model's family (by default left out, by reported snapshot; docs/judges.md).")]


def refuse_panel_plan(judge: str | None, plan: bool, aggregate: str = "mean") -> None:
    """``--plan`` does not cost a panel yet: say so rather than cost one judge; and
    ``--panel-aggregate`` without a panel is a mistake, not a setting to ignore."""
    from creval.evaluation.panel_conditions import is_panel

    if aggregate != "mean" and not is_panel(judge):
        raise CrevalError(f"--panel-aggregate {aggregate} combines the judges of a panel: name "
                          "several judges, --judge SPEC,SPEC,... (or leave the option out).")
    if plan and is_panel(judge):
        raise CrevalError("--plan does not cost a judge panel yet: run --plan with each judge "
                          "of the panel alone (--judge SPEC) and add them up.")
