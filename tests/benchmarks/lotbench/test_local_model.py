"""Both seed-003 benchmarks end to end on the packaged small local model (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._cli import creval


@pytest.mark.slow
def test_oogiri_and_lotbench_run_offline_on_the_local_model(tmp_path: Path) -> None:
    # both in this process: one interpreter and one import of creval, not two
    oogiri = creval("run", "oogiri", "--model", "local", "--limit", "1", "--no-progress",
                    "--out", str(tmp_path / "oogiri"))
    assert oogiri.returncode == 0, oogiri.stdout + oogiri.stderr
    h = json.loads((tmp_path / "oogiri" / "scores.json").read_text())["headline"]
    # SmolLM2-135M follows the answer format poorly: whatever it says is parsed or counted
    answered = sum(h[f"acc_{q}"] is not None for q in ("2T1", "3T1", "4T1", "5T2"))
    assert answered == 4 and h["prompts_answered"] == 1 and 0 <= h["unparsed"] <= 5
    lot = creval("run", "lotbench", "--model", "local", "--limit", "1", "--repeats", "1",
                 "--max-rounds", "2", "--judge-max-tokens", "48", "--no-progress",
                 "--out", str(tmp_path / "lotbench"))
    assert lot.returncode == 0, lot.stdout + lot.stderr
    scores = json.loads((tmp_path / "lotbench" / "scores.json").read_text())
    assert scores["headline"]["games"] == 1 and scores["headline"]["S_c"] is not None
    (game,) = [json.loads(x) for x in (tmp_path / "lotbench" / "transcripts.jsonl").read_text().splitlines()]
    assert 1 <= len(game["rounds"]) <= 2 and game["usage"]["tested"]["calls"] >= 1
