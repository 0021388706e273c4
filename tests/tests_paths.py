"""Where the upstream data lives, for tests: ``../shared/data`` beside the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data_path(*parts: str) -> Path:
    """A path inside ``../shared/data``, read in place.

    Skips the test with a clear reason when it is absent; CI sets CREVAL_REQUIRE_SHARED=1
    so that there it fails instead of skipping.
    """
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        message = f"{path} is absent: tests that use upstream data read ../shared/data in place"
        if os.environ.get("CREVAL_REQUIRE_SHARED"):
            pytest.fail(message + " (CREVAL_REQUIRE_SHARED is set)")
        pytest.skip(message)
    return path


def write_jsonl_texts(path: Path, texts: list[str]) -> Path:
    """``path`` as JSONL, one ``{"text": ...}`` line per text (a corpus or texts to score)."""
    import json

    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    return path
