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
