"""``creval analyze ...``: the analyses of the neocoder seed (commands added to the analyze group).

* ``creval analyze techniques RUN... [--top 5] [--out DIR]``: Figure 2 of seed 000;
* ``creval analyze strategies BASELINE RUN... [--out DIR]``: Table 5 of seed 000.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def techniques(
    runs: Annotated[list[Path], typer.Argument(help="`creval run neocoder` directories (scored).")],
    top: Annotated[int, typer.Option(help="Techniques kept per state and for the human solutions "
                                          "(the paper: 5).", min=1)] = 5,
    out: Annotated[Path | None, typer.Option(help="Run directory to save into (default: the first RUN).")] = None,
) -> None:
    """Technique distribution per state against the human solutions (seed 000, Figure 2)."""
    from creval.analyses.neocoder import technique_distribution_analysis
    from creval.cli.analyze import emit

    result = technique_distribution_analysis(list(runs), top=top)
    emit(result, out or runs[0], [str(r) for r in runs])


def strategies(
    baseline: Annotated[Path, typer.Argument(help="The run before: `creval run neocoder` with "
                                                  "--strategy direct.")],
    runs: Annotated[list[Path], typer.Argument(help="Runs after: the same problems and states with "
                                                    "another --strategy.")],
    out: Annotated[Path | None, typer.Option(help="Run directory to save into (default: BASELINE).")] = None,
) -> None:
    """Convergent, divergent and NeoGauge before/after each reasoning strategy (seed 000, Table 5)."""
    from creval.analyses.neocoder import strategy_differences_analysis
    from creval.cli.analyze import emit

    result = strategy_differences_analysis(baseline, list(runs))
    emit(result, out or baseline, [str(baseline), *(str(r) for r in runs)])


def register(app: typer.Typer) -> None:
    """Add this seed's analysis commands to ``app``."""
    app.command("techniques")(techniques)
    app.command("strategies")(strategies)
