"""Scripted DAT runs shared by the training tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from ._tiny import NOUNS

TRIALS = 8


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    """Ten seeded nouns; every 4th trial a refusal (invalid, scored 0)."""
    seed = int(body.get("seed") or 0)
    if seed % 4 == 3:
        return 200, "I would rather not."
    words = random.Random(f"{body['model']}-{seed}").sample(NOUNS, 10)
    return 200, "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words))


@pytest.fixture(scope="package")
def dat_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    """Two scored English DAT runs of 8 trials (models m1, m2) from a scripted server."""
    root = tmp_path_factory.mktemp("dat")
    server = ChatServer(reply=_reply)
    try:
        for model in ("m1", "m2"):
            done = creval("run", "dat", "--model", f"openai:{model}", "--base-url", server.url,
                          "--trials", str(TRIALS), "--no-progress", "--no-cache",
                          "--out", str(root / model))
            assert done.returncode == 0, done.stderr
        yield [root / "m1", root / "m2"]
    finally:
        server.close()
