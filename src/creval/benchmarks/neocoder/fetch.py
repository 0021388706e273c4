"""``creval data fetch neocoder``: download the four NeoCoder files from GitHub.

The files come from the JHU-CLSP/NeoCoder repository at a pinned commit and are checked
against the SHA-256 digests of that commit before they are kept.
"""

from __future__ import annotations

from pathlib import Path

from creval.benchmarks.neocoder.data import (
    HUMAN_SOLUTIONS_FILE,
    PROBLEMS_FILE,
    TECHNIQUES_FILE,
    TESTS_FILE,
)

UPSTREAM_COMMIT = "23cd8e64dc2129e5c4fae4bcb5dff8cec41f9d4f"
UPSTREAM_BASE_URL = (f"https://raw.githubusercontent.com/JHU-CLSP/NeoCoder/{UPSTREAM_COMMIT}"
                     "/datasets/CodeForce/NeoCoder")
#: The first 16 hex digits of each file's SHA-256 at ``UPSTREAM_COMMIT``.
UPSTREAM_SHA256_PREFIX = {
    PROBLEMS_FILE: "6435476f71b05bf5",
    HUMAN_SOLUTIONS_FILE: "24d5d7424fbdb4fc",
    TECHNIQUES_FILE: "d508695c875951b3",
    TESTS_FILE: "ba6b6c81c5301c3f",
}


def fetch_neocoder(
    dest: str | Path,
    *,
    base_url: str = UPSTREAM_BASE_URL,
    checksums: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> Path:
    """Download the NeoCoder files into ``dest`` (created) and return ``dest``.

    Files already present with the right digest are kept. ``checksums`` maps a file name
    to the start of its SHA-256 (default: the pinned upstream digests; pass ``{}`` to skip
    the check, e.g. for a mirror of another commit).
    """
    from creval._util.download import download_pinned

    expected = UPSTREAM_SHA256_PREFIX if checksums is None else checksums
    base = base_url.rstrip("/")
    files = {name: (f"{base}/{name}", expected.get(name) or None)
             for name in (PROBLEMS_FILE, HUMAN_SOLUTIONS_FILE, TECHNIQUES_FILE, TESTS_FILE)}
    return download_pinned(files, Path(dest), timeout=timeout)
