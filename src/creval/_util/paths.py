"""Where creval keeps caches."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$CREVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/creval``, else ``~/.cache/creval``."""
    root = os.environ.get("CREVAL_CACHE_DIR")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "creval"


def file_in_the_way(directory: Path) -> Path | None:
    """The existing file at ``directory`` or at one of its parents, which stops a directory
    being made there; None when the directory can be made (or already is one).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     file_in_the_way(Path(f.name) / "run") == Path(f.name)
    True
    """
    for path in (directory, *directory.parents):
        if path.exists():
            return None if path.is_dir() else path
    return None
