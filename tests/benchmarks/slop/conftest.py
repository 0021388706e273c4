from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The staged copy of sam-paech/slop-score (the folder beside the repository), read in place.
SLOP_DATA = Path(os.environ.get("CREVAL_SLOP_DATA", Path(__file__).resolve().parents[4] / "shared" / "data" / "slop-score"))


@pytest.fixture(scope="session")
def slop_data() -> Path:
    if not (SLOP_DATA / "data" / "slop_list.json").is_file():
        pytest.skip(f"slop-score data not found at {SLOP_DATA} (a copy of sam-paech/slop-score "
                    "at 289264a with results/; set CREVAL_SLOP_DATA)")
    return SLOP_DATA
