"""``creval data fetch ttcw``: the TTCW data from GitHub, pinned by commit and digest.

The files of ``Art_or_Artifice/`` of github.com/salesforce/creativity_eval (BSD-3-Clause) at
a pinned commit, each checked against the start of its SHA-256, laid out as
:func:`creval.benchmarks.ttcw.data.load_ttcw` reads them (the folder to pass to ``--data``).
"""

from __future__ import annotations

from pathlib import Path

UPSTREAM_COMMIT = "fced0ab2d3068244152d1302a8bd8e9f538440f5"
UPSTREAM_BASE_URL = f"https://raw.githubusercontent.com/salesforce/creativity_eval/{UPSTREAM_COMMIT}"
_JUDGES = {"cgpt": "63f86852d8ad7066", "claude3-opus": "984a4c420c3576e4",
           "claudev13": "35bddc4d2fae7693", "claudev2": "2b39b025f10b0878",
           "claudev21": "b5b61822be47e013", "gemini-pro": "7ca31e6c8d326492",
           "gpt4": "3bf1b935e8f501a4"}
#: local path -> (path in the upstream repository, first 16 hex digits of its SHA-256)
UPSTREAM_FILES: dict[str, tuple[str, str]] = {
    "LICENSE": ("LICENSE", "1a85e77efdcb7da3"),
    "tests/ttcw_all_tests.json": ("Art_or_Artifice/tests/ttcw_all_tests.json", "1f305d408e3f89bb"),
    "stories/ttcw_short_stories.json": ("Art_or_Artifice/stories/ttcw_short_stories.json",
                                        "5ff3138ead096c50"),
    "annotations/ttcw_annotations.json": ("Art_or_Artifice/annotations/ttcw_annotations.json",
                                          "f10b711378b80972"),
    "prompts/with_background.txt": ("Art_or_Artifice/prompts/with_background.txt",
                                    "ab7284702d44ac5f"),
    **{f"data/annotations_{stem}.jsonl": (f"Art_or_Artifice/data/annotations_{stem}.jsonl", digest)
       for stem, digest in _JUDGES.items()},
}


def fetch_ttcw(dest: str | Path, *, base_url: str = UPSTREAM_BASE_URL, checksums: bool = True,
               timeout: float = 120.0) -> Path:
    """Download the TTCW files into ``dest`` (created) and return ``dest``; files already
    present with the right digest are kept. ``checksums=False`` skips the digest check."""
    from creval._util.download import download_upstream

    return download_upstream(UPSTREAM_FILES, Path(dest), base_url=base_url, checksums=checksums,
                             timeout=timeout)
