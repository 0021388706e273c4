"""``creval train ...``: data and rewards for training on the benchmarks' signals (seed 004)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

train_app = typer.Typer(
    help="Training data from runs (seed 004: DAT as a training signal; train with TRL, the "
    "'train' extra).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@train_app.command("dat-data")
def dat_data(
    runs: Annotated[list[Path], typer.Argument(help="DAT run directories (creval run dat).")],
    out: Annotated[Path, typer.Option(help="Folder for train.jsonl and dat-data.json.")],
    format: Annotated[str, typer.Option(
        "--format", help="sft (best answers), dpo (best vs worst pairs) or grpo (prompts only).")] = "sft",
    top: Annotated[int | None, typer.Option(
        min=1, help="Answers (sft) or pairs per prompt (dpo) to keep; default: one eighth of the answers.")] = None,
) -> None:
    """Write TRL-ready SFT, DPO or GRPO data from DAT runs' best and worst answers."""
    from creval.benchmarks.dat.training_data import FORMATS, write_training_data
    from creval.errors import CrevalError

    if format not in FORMATS:
        raise CrevalError(f"--format takes one of {', '.join(FORMATS)}, got {format!r}.")
    summary = write_training_data(runs, out, format, top=top)  # type: ignore[arg-type]
    typer.echo(f"{summary['rows']} {format} rows from {summary['answers']} answers "
               f"({summary['valid_answers']} valid) -> {summary['file']}")
