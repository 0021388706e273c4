"""``creval data ...``: fetch upstream datasets for offline use (each benchmark declares its
sources: :meth:`creval.benchmarks.base.Benchmark.data_sources`)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.records.references import DataSource

data_app = typer.Typer(help="Fetch upstream datasets (needs the internet).", no_args_is_help=True,
                       rich_markup_mode=None)


def sources() -> dict[str, DataSource]:
    """Every data set a registered benchmark (built-in or plug-in) declares, by name, in the
    order of the registry."""
    from creval.report.references import declaring

    out: dict[str, DataSource] = {}
    for bench in declaring():
        for source in bench.data_sources():
            out.setdefault(source.name, source)
    return out


@data_app.command("list")
def list_datasets() -> None:
    """The datasets `creval data fetch` knows."""
    for name, source in sources().items():
        typer.echo(f"{name:10} {source.what}")


@data_app.command("fetch")
def fetch(
    name: Annotated[str, typer.Argument(help="A dataset of `creval data list`.")],
    dest: Annotated[Path | None, typer.Option(help="Folder to write to (default: data/NAME).")] = None,
) -> None:
    """Download an upstream dataset; pass the folder to `creval run` afterwards."""
    known = sources()
    if name not in known:
        raise CrevalError(f"Unknown dataset {name!r}; choose from {', '.join(known)}.")
    module, attr = known[name].fetcher.split(":")
    fetcher = getattr(importlib.import_module(module), attr)
    folder = dest or Path("data") / name
    folder.mkdir(parents=True, exist_ok=True)
    written = fetcher(folder)
    typer.echo(f"{name}: wrote {written}")
