"""``creval score ...``: score inputs without calling a model.

``answers BENCH FILE`` scores answers written elsewhere with any benchmark's scorer; ``dat``,
``sat``, ``jcq`` and ``neocoder`` are short names that read those benchmarks' own input forms
and take the benchmark's scoring options (:mod:`.benchmarks`); the seed-002 metrics are in
:mod:`.metrics`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from creval.cli.score.benchmarks import ScoreGroup, write_scores
from creval.errors import CrevalError

score_app = typer.Typer(cls=ScoreGroup, help="Score inputs without calling a model.",
                        no_args_is_help=True, rich_markup_mode=None)


@score_app.command(
    "answers",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def score_answers_command(
    ctx: typer.Context,
    benchmark: Annotated[str, typer.Argument(help="A benchmark name (see `creval list`).")],
    file: Annotated[Path, typer.Argument(help='JSONL: {"key": UNIT_KEY, "answer": TEXT} per line (or no key: units in order).')],
    out: Annotated[Path | None, typer.Option(help="Also write the scores as JSON here.")] = None,
) -> None:
    """Score answers written elsewhere with any benchmark's scorer; benchmark options follow
    as in `creval run` (e.g. `creval score answers dat answers.jsonl --variant all-valid`)."""
    from creval.benchmarks.base import get_benchmark
    from creval.benchmarks.common import jsonl_objects
    from creval.benchmarks.offline import score_answers
    from creval.cli._common import flag_options, parse_extra_options
    from creval.report.markdown import fmt

    bench = get_benchmark(benchmark)
    options = bench.parse_options(parse_extra_options(list(ctx.args), flag_options([bench])))
    if not file.is_file():
        raise CrevalError(f"{file} does not exist.")
    answers = [obj for _, obj in jsonl_objects(file.read_text(encoding="utf-8").splitlines(), str(file))]
    scores = score_answers(bench, options, answers)
    for metric, value in scores.headline.items():
        typer.echo(f"{metric}={fmt(value)}")
    for note in scores.notes:
        typer.echo(f"- {note}")
    if out is not None:
        write_scores(scores, out)


# Seed 002 metrics (ci, templates, ppl) live in their own module.
from creval.cli.score.metrics import register as _register_metrics  # noqa: E402

_register_metrics(score_app)
