"""``creval analyze ...``: the analyses of the ttct seed (commands added to the analyze group)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this seed's analysis commands to ``app``."""
