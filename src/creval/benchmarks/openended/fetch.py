"""``creval data fetch macgyver|hypogen|bookmia``: upstream data to local files.

MacGyver comes from GitHub (allenai/MacGyver); HypoGen and BookMIA from the Hugging Face
hub through ``datasets``. Each writes a file that ``--source`` accepts offline afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path

from creval.errors import CrevalError

MACGYVER_URL = (
    "https://raw.githubusercontent.com/allenai/MacGyver/main/data/MacGyver/problem_solution_pair.xlsx"
)


def download(url: str, dest: Path, *, timeout: float = 60.0) -> Path:
    """Stream ``url`` to ``dest`` through a temporary file (never half-written)."""
    import httpx

    tmp = dest.with_suffix(dest.suffix + ".part")
    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            response.raise_for_status()
            with tmp.open("wb") as fh:
                for chunk in response.iter_bytes():
                    fh.write(chunk)
    except httpx.HTTPError as exc:
        tmp.unlink(missing_ok=True)
        raise CrevalError(f"Could not download {url}: {exc}. Check the network and try again.") from None
    tmp.replace(dest)
    return dest


def fetch_macgyver(folder: Path, *, url: str = MACGYVER_URL) -> Path:
    """MacGyver's spreadsheet; run with ``--source FOLDER/problem_solution_pair.xlsx``."""
    return download(url, folder / "problem_solution_pair.xlsx")


def _fetch_hub(domain: str, folder: Path) -> Path:
    from creval.benchmarks.openended.data import HF_DATASETS

    name = HF_DATASETS[domain]
    try:
        import datasets
    except ImportError:
        raise CrevalError("Fetching from Hugging Face needs: pip install 'creval[data]'.") from None
    try:
        rows = datasets.load_dataset(name, split="train")
    except Exception as exc:
        raise CrevalError(f"Could not load the Hugging Face dataset {name}: {exc}") from None
    dest = folder / f"{domain}.jsonl"
    tmp = dest.with_suffix(".jsonl.part")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(dict(row), ensure_ascii=False, default=str) + "\n")
    tmp.replace(dest)
    return dest


def fetch_hypogen(folder: Path) -> Path:
    """HypoGen records as JSONL; run with ``--source FOLDER/hypogen.jsonl``."""
    return _fetch_hub("hypogen", folder)


def fetch_bookmia(folder: Path) -> Path:
    """BookMIA snippets as JSONL; run with ``--source FOLDER/bookmia.jsonl``."""
    return _fetch_hub("bookmia", folder)
