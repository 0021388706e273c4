"""``creval data fetch dat-humans``: people's and models' DAT word lists from GitHub.

The files come from github.com/DingNLab/probing_creativity at a pinned commit (MIT licence),
are checked against that commit's SHA-256 digests, and are laid out as
:mod:`creval.benchmarks.dat.humans` reads them.
"""

from __future__ import annotations

from pathlib import Path

UPSTREAM_COMMIT = "cbae1288247389bf50dbaa4dd2089a409628d315"
UPSTREAM_BASE_URL = (f"https://raw.githubusercontent.com/DingNLab/probing_creativity/"
                     f"{UPSTREAM_COMMIT}")
_MODELS = ("chatglm-6b", "gpt-3.5-turbo", "gpt-4", "oa-30b", "vicuna-13b")
#: local path -> (path in the upstream repository, first 16 hex digits of its SHA-256)
UPSTREAM_FILES: dict[str, tuple[str, str]] = {
    "LICENSE-probing_creativity-MIT.txt": ("LICENSE", "d766f8e6d746d461"),
    "human-level/study1a.tsv": ("human-level/study1a.tsv", "29f4b1929db8620f"),
    "human-level/study1b.tsv": ("human-level/study1b.tsv", "71d6750b2e73b74b"),
    "human-level/study1c.tsv": ("human-level/study1c.tsv", "b3d529a089bbabdc"),
    "human-level/study2.tsv": ("human-level/study2.tsv", "e54f80182775fd82"),
    "models/greedy_search/data_greedy.txt": ("greedy_search/data_greedy.txt", "9456dbb4bf22e195"),
    **{f"models/top_p/{m}.txt": (f"Top_p/{m}/data.txt", d) for m, d in zip(_MODELS, (
        "a3323867574bc61f", "49798fdd7c6885df", "e62b7cf11a07f661", "7e0afce85a4cde76",
        "147b481ec725d203"), strict=True)},
    **{f"models/temperature/{m}.json": (f"temperature/{m}.json", d) for m, d in zip(_MODELS, (
        "cba01c2640c3d63f", "89d727f5ae176b1c", "a2bd81d50a2aa87f", "cd52d39de54fd457",
        "26e44539a5671608"), strict=True)},
}


def fetch_dat_humans(
    dest: str | Path,
    *,
    base_url: str = UPSTREAM_BASE_URL,
    checksums: bool = True,
    timeout: float = 120.0,
) -> Path:
    """Download the dat-humans files into ``dest`` (created) and return ``dest``.

    Files already present with the right digest are kept. ``checksums=False`` skips the
    digest check (a mirror of another commit).
    """
    from creval._util.download import download_upstream

    return download_upstream(UPSTREAM_FILES, Path(dest), base_url=base_url, checksums=checksums,
                             timeout=timeout)
