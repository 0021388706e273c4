"""``creval score slop FILE``: the slop-score metrics of any texts, without a model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer


def slop_texts(
    bench: Any,
    options: Any,
    *,
    file: Annotated[Path, typer.Argument(help="Plain text (one text), JSONL ({\"text\": ...} per line) or an upstream results file (results/<model>.json[.gz]).")],
    per_text: Annotated[bool, typer.Option(help="Also print each text's own metrics.")] = False,
    out: Annotated[Path | None, typer.Option(help="Also write the scores as JSON here.")] = None,
) -> None:
    """Slop-score metrics of texts written anywhere, pooled as upstream pools a model's."""
    from creval.benchmarks.slop import score_texts
    from creval.benchmarks.slop.data import read_texts
    from creval.report.markdown import fmt, markdown_table

    texts, form = read_texts(file)
    scores = score_texts(texts, options)
    typer.echo(f"{file}: {len(texts)} text(s) ({form})")
    for metric, value in scores.headline.items():
        typer.echo(f"{metric}={fmt(value)}")
    for note in scores.notes:
        typer.echo(f"- {note}")
    if per_text:
        typer.echo(markdown_table([{k: fmt(v) if isinstance(v, float) else v for k, v in row.items()}
                                   for row in scores.table]))
    paired = scores.extra("paired")
    if paired:
        typer.echo(f"\nPaired with {paired['against']} over {paired['prompts']} prompts (ours - theirs):")
        typer.echo(markdown_table([{k: fmt(v) if isinstance(v, float) else v for k, v in row.items()}
                                   for row in paired["table"]]))
    if out is not None:
        import json  # as write_scores in .benchmarks (which imports this module)

        out.write_text(json.dumps(scores.model_dump(mode="json"), indent=2, default=str), encoding="utf-8")
