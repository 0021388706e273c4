"""`macgyver-judges` with the offline default model as judge: its backend constrains
decoding, so every verdict is asked for in its JSON shape, recorded, and said in the notes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import creval

from creval.reader import read_run


@pytest.mark.slow
def test_small_model_judges_are_constrained_and_the_notes_say_so(tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = creval("run", "macgyver-judges", "--model", "local", "--judges", "oneshot", "--limit", "1",
                  "--judge-max-tokens", "48", "--out", str(run), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (record,) = read_run(run).records
    verdict = record.output["verdicts"]["oneshot"]
    assert verdict["constrained"] is True and not verdict["parse_failures"], verdict
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert "Judge answers: constrained to JSON schemas in 1 of 1 verdicts (parsing stays strict)." in scores["notes"]
    assert scores["table"][0]["undecided"] == 0  # every criterion's verdict parsed

    free = tmp_path / "free"
    done = creval("run", "macgyver-judges", "--model", "local", "--judges", "oneshot", "--limit", "1",
                  "--judge-max-tokens", "48", "--structured-judges", "false", "--out", str(free),
                  "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (record,) = read_run(free).records
    assert record.output["verdicts"]["oneshot"]["constrained"] is False
    notes = json.loads((free / "scores.json").read_text(encoding="utf-8"))["notes"]
    assert "Judge answers: free text (not constrained to a JSON schema)." in notes
