"""``creval compare RUN... --homogeneity``: how alike the models' answers are."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def compare_homogeneity_command(
    run_dirs: list[Path], *, as_json: bool, csv: Path | None, html: Path | None, confidence: float,
    people: Path | None, jcq_data: Path | None, embedder: str | None, permutations: int,
) -> None:
    """Print (Markdown, or JSON with ``--json``) the homogeneity of each benchmark's runs; write
    the pairs as CSV and the page with the heat maps when asked."""
    from creval.evaluation.compare.homogeneity import compare_homogeneity, reference_folders
    from creval.report.homogeneity import render_html, render_markdown

    folders = reference_folders(people=people, jcq_data=jcq_data)  # DAT's people: its default folder
    results = compare_homogeneity(run_dirs, people=folders["people"], jcq_data=folders["jcq_data"],
                                  embedder=embedder, confidence=confidence, permutations=permutations)
    docs = [r.to_dict() for r in results]
    typer.echo(json.dumps(docs, indent=2, ensure_ascii=False) if as_json else render_markdown(docs))
    if csv is not None:
        import pandas as pd

        frames = [r.pairs_df().assign(benchmark=r.benchmark) for r in results]
        pd.concat(frames, ignore_index=True).to_csv(csv, index=False)
    if html is not None:
        html.write_text(render_html(docs), encoding="utf-8")
