"""``creval data fetch neocoder``: download the four NeoCoder files from GitHub.

The files come from the JHU-CLSP/NeoCoder repository at a pinned commit and are checked
against the SHA-256 digests of that commit before they are kept.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from creval.benchmarks.neocoder.data import (
    HUMAN_SOLUTIONS_FILE,
    PROBLEMS_FILE,
    TECHNIQUES_FILE,
    TESTS_FILE,
)
from creval.errors import CrevalError

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
    import httpx

    folder = Path(dest)
    folder.mkdir(parents=True, exist_ok=True)
    expected = UPSTREAM_SHA256_PREFIX if checksums is None else checksums
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        for name in (PROBLEMS_FILE, HUMAN_SOLUTIONS_FILE, TECHNIQUES_FILE, TESTS_FILE):
            target = folder / name
            want = expected.get(name)
            if target.is_file() and want and _sha256(target.read_bytes()).startswith(want):
                continue
            url = f"{base_url.rstrip('/')}/{name}"
            try:
                response = client.get(url)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise CrevalError(f"Could not download {url} ({exc}). Check the network, or "
                                  "download the files by hand into " f"{folder}.") from None
            body = response.content
            if want and not _sha256(body).startswith(want):
                raise CrevalError(f"{url} does not have the expected SHA-256 (starting {want}); "
                                  "the file changed upstream or the download is damaged.")
            tmp = target.with_suffix(".part")
            tmp.write_bytes(body)
            tmp.replace(target)
    return folder


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
