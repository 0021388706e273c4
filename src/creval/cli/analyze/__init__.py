"""``creval analyze ...``: the seed papers' tables and figures from run directories.

Each seed's analyses live in their own module (``neocoder``, ``openended``,
``ttct``), which adds its commands to :data:`analyze_app` through ``register``;
:func:`emit` prints an analysis, saves it into a run directory and refreshes that run's reports.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from creval.analyses.base import AnalysisResult

analyze_app = typer.Typer(
    help="The seed papers' analyses (tables and figures) from run directories and label files; "
    "each is saved into a run (analyses/NAME.json) and shown in its reports.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

SEED_MODULES = ("creval.cli.analyze.neocoder", "creval.cli.analyze.openended", "creval.cli.analyze.ttct")


def emit(result: AnalysisResult, out: Path, inputs: list[str]) -> None:
    """Print the analysis's tables and notes, save it into ``out`` and say where."""
    from rich.console import Console
    from rich.table import Table

    from creval.analyses.base import frame_rows, save_analysis
    from creval.report.markdown import fmt

    console = Console(highlight=False, emoji=False)
    for title, frame in [(result.title, result.frame), *result.tables.items()]:
        table = Table(*[str(c) for c in frame.columns], title=title, title_justify="left")
        for row in frame_rows(frame):
            table.add_row(*[fmt(v) for v in row.values()])
        console.print(table)
    for note in result.notes:
        console.print(f"- {note}", markup=False)
    path = save_analysis(result, out, inputs)
    shown = ("; the run's reports show it" if (Path(out) / "scores.json").is_file()
             else f"; {out} is not a scored run, so no report shows it")
    console.print(f"Saved {path} (and {path.with_suffix('.csv').name}){shown}.", markup=False)


def register_all() -> typer.Typer:
    """The ``analyze`` group with every seed module's commands."""
    for name in SEED_MODULES:
        importlib.import_module(name).register(analyze_app)
    return analyze_app
