"""Downloading pinned upstream files: each checked against the start of its SHA-256 and
written whole (a ``.part`` file renamed), so an interrupted fetch leaves no torn file and a
file already present with the right digest is not fetched again."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from creval.errors import CrevalError


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex.

    >>> sha256_hex(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


def download_pinned(files: Mapping[str, tuple[str, str | None]], folder: Path, *,
                    timeout: float) -> Path:
    """Each ``{local path: (url, digest prefix or None)}`` into ``folder`` (created); a
    prefix of None skips that file's check. Returns ``folder``."""
    import httpx

    folder.mkdir(parents=True, exist_ok=True)
    with httpx.Client(timeout=timeout, follow_redirects=True) as client:
        for local, (url, want) in files.items():
            target = folder / local
            if target.is_file() and want and sha256_hex(target.read_bytes()).startswith(want):
                continue
            try:
                response = client.get(url)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                raise CrevalError(f"Could not download {url} ({exc}). Check the network, or "
                                  f"download the files by hand into {folder}.") from None
            body = response.content
            if want and not sha256_hex(body).startswith(want):
                raise CrevalError(f"{url} does not have the expected SHA-256 (starting {want}); "
                                  "the file changed upstream or the download is damaged.")
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".part")
            tmp.write_bytes(body)
            tmp.replace(target)
    return folder


def download_upstream(files: Mapping[str, tuple[str, str]], folder: Path, *, base_url: str,
                      checksums: bool, timeout: float) -> Path:
    """``{local path: (path in the upstream repository, digest prefix)}`` from ``base_url``
    (a pinned commit's raw files, or a mirror) into ``folder``, as :func:`download_pinned`;
    ``checksums=False`` skips every digest check (a mirror of another commit)."""
    base = base_url.rstrip("/")
    pinned = {local: (f"{base}/{remote}", want if checksums else None)
              for local, (remote, want) in files.items()}
    return download_pinned(pinned, folder, timeout=timeout)
