"""``creval index ...``: build and inspect local word-level infini-gram indexes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from creval.errors import CrevalError

index_app = typer.Typer(help="Local n-gram indexes of reference corpora (infini-gram).",
                        no_args_is_help=True, rich_markup_mode=None)


@index_app.command("build")
def index_build(
    sources: Annotated[list[str], typer.Argument(help="JSONL files (one document per line), text files (one document each), folders of them, or hf:NAME[:SPLIT] when online.")],
    out: Annotated[Path, typer.Option(help="New folder for the index.")],
    text_field: Annotated[str, typer.Option(help="The text field of JSONL lines and dataset rows.")] = "text",
    id_width: Annotated[str, typer.Option(help="auto (u16 when the vocabulary fits, else u16x2: two 16-bit tokens per word), u16, u16x2 or u32 (u32 needs ~32 GiB while indexing).")] = "auto",
    cpus: Annotated[int | None, typer.Option(help="CPUs for the indexer (default: all).")] = None,
    mem: Annotated[int, typer.Option(help="GiB of memory the indexer may use.")] = 2,
) -> None:
    """Tokenise the sources into words, save the vocabulary and build the suffix array."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from creval.index.build import build_index, check_inputs

    if id_width not in ("auto", "u16", "u16x2", "u32"):
        raise CrevalError("--id-width takes auto, u16, u16x2 or u32.")
    check_inputs(sources, out)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                  TextColumn("{task.completed:,} words"), TimeElapsedColumn()) as progress:
        task = progress.add_task("tokenising", total=None)
        manifest = build_index(
            sources, out, text_field=text_field,
            id_width=None if id_width == "auto" else id_width,  # type: ignore[arg-type]
            cpus=cpus, mem_gib=mem, progress=lambda n: progress.advance(task, n),
        )
    typer.echo(
        f"Indexed {manifest['documents']:,} documents, {manifest['words']:,} words, "
        f"{manifest['vocabulary']:,} distinct ({manifest['id_width']} ids) in "
        f"{manifest['seconds']} s ({manifest['words_per_second']:,} words/s) -> {out}"
    )


@index_app.command("info")
def index_info(
    directory: Annotated[Path, typer.Argument(help="An index folder made by `creval index build`.")],
) -> None:
    """Check an index's files and print what it holds."""
    from creval.index.local import read_manifest

    manifest = read_manifest(directory)
    for key, value in manifest.items():
        typer.echo(f"{key}: {value}")
