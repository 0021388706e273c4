"""The judge panel's options (``--judge a,b,c``), shared by ``creval run``, ``profile`` and
``sweep``; see :mod:`creval.evaluation.panel.panels`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from creval.errors import CrevalError

PanelAggregate = Annotated[str, typer.Option(help="A judge panel's (--judge a,b,c) value of an item: mean, majority (the value most judges gave) or trimmed (the lowest and the highest judge's value dropped; needs 3 judges).")]
AllowSameFamily = Annotated[bool, typer.Option("--allow-same-family-judge", help="Keep the panel's judges of the tested model's family (by default left out, by reported snapshot; docs/judges.md).")]


def check_panel_flags(judge: str | None, aggregate: str = "mean") -> None:
    """``--panel-aggregate`` without a panel is a mistake, not a setting to ignore."""
    from creval.evaluation.panel.conditions import is_panel

    if aggregate != "mean" and not is_panel(judge):
        raise CrevalError(f"--panel-aggregate {aggregate} combines the judges of a panel: name "
                          "several judges, --judge SPEC,SPEC,... (or leave the option out).")


def panel_plan_costs(cells: Any, *, judge: str | None, model: str, allow_same_family: bool,
                     **options: Any) -> list[Any]:
    """:func:`creval.evaluation.run.cost.plan_costs`, a panel's judges each costed
    (:mod:`creval.evaluation.panel.cost`)."""
    from creval.evaluation.panel.cost import panel_judges, with_panel
    from creval.evaluation.run.cost import plan_costs

    judges = panel_judges(judge, model, allow_same_family=allow_same_family)
    costs = plan_costs(cells, judge=judges[0] if judges else judge, **options)
    return with_panel(costs, judges) if judges else costs
