"""``creval data ...``: fetch upstream datasets for offline use."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated

import typer

from creval.errors import CrevalError

data_app = typer.Typer(help="Fetch upstream datasets (needs the internet).", no_args_is_help=True,
                       rich_markup_mode=None)

#: dataset name -> (function "module:attr" taking the destination folder, what it fetches)
FETCHERS: dict[str, tuple[str, str]] = {
    "neocoder": (
        "creval.benchmarks.neocoder.fetch:fetch_neocoder",
        "NeoCoder.json, human solutions, their techniques and test cases from GitHub JHU-CLSP/NeoCoder",
    ),
    "macgyver": (
        "creval.benchmarks.openended.fetch:fetch_macgyver",
        "problem_solution_pair.xlsx from GitHub allenai/MacGyver",
    ),
    "hypogen": (
        "creval.benchmarks.openended.fetch:fetch_hypogen",
        "HypoGen bit/flip records from the Hugging Face hub, as JSONL",
    ),
    "oogiri": (
        "creval.benchmarks.oogiri.fetch:fetch_oogiri",
        "Oogiri-GO en/cn/jp.jsonl and images.zip (unpacked) from the Hugging Face hub",
    ),
    "bookmia": (
        "creval.benchmarks.openended.fetch:fetch_bookmia",
        "BookMIA snippets (swj0419/BookMIA) from the Hugging Face hub, as JSONL",
    ),
    "noveltybench": (
        "creval.benchmarks.noveltybench.data:fetch_noveltybench",
        "NoveltyBench prompts (novelty-bench/novelty-bench, MIT) and eight models' published "
        "per-prompt scores (its site, no licence stated: for your own comparisons)",
    ),
    "dat-humans": (
        "creval.benchmarks.dat.fetch:fetch_dat_humans",
        "People's DAT word lists (Olson et al. 2021) and five models' lists from GitHub "
        "DingNLab/probing_creativity",
    ),
    "dat-100k": (
        "creval.benchmarks.dat.norms:fetch_dat_100k",
        "100,000 people's DAT norms (age band, sex, country), DAT with AUT, random-word DAT "
        "from GitHub AntoineBellemare/DAT_GPT (GPL-3.0: fetched, never shipped)",
    ),
    "ttcw": (
        "creval.benchmarks.ttcw.fetch:fetch_ttcw",
        "TTCW tests, stories, expert verdicts and released LLM judges from GitHub "
        "salesforce/creativity_eval (Art_or_Artifice)",
    ),
    "ocsai": (
        "creval.benchmarks.aut.fetch:fetch_ocsai",
        "People's AUT responses with originality ratings and the published scorers' scores "
        "(Ocsai) from GitHub massivetexts/ocsai",
    ),
    "slop": (
        "creval.benchmarks.slop.data:fetch_slop",
        "Slop score's 300 prompts, slop lists and published metrics from GitHub "
        "sam-paech/slop-score (MIT), pinned commit",
    ),
}


@data_app.command("list")
def list_datasets() -> None:
    """The datasets `creval data fetch` knows."""
    for name, (_, what) in FETCHERS.items():
        typer.echo(f"{name:10} {what}")


@data_app.command("fetch")
def fetch(
    name: Annotated[str, typer.Argument(help=f"One of: {', '.join(FETCHERS)}.")],
    dest: Annotated[Path | None, typer.Option(help="Folder to write to (default: data/NAME).")] = None,
) -> None:
    """Download an upstream dataset; pass the folder to `creval run` afterwards."""
    if name not in FETCHERS:
        raise CrevalError(f"Unknown dataset {name!r}; choose from {', '.join(FETCHERS)}.")
    target, _ = FETCHERS[name]
    module, attr = target.split(":")
    fetcher = getattr(importlib.import_module(module), attr)
    folder = dest or Path("data") / name
    folder.mkdir(parents=True, exist_ok=True)
    written = fetcher(folder)
    typer.echo(f"{name}: wrote {written}")
