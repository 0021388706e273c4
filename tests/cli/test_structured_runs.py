"""Runs of the offline default model with instruments that ask for their answer's shape
(the TTCT judge) and with ``--constrain-answers`` (DAT): recorded per unit, said in the notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval

from creval.benchmarks.dat import render_word_list
from creval.benchmarks.dat.lists import parse_word_list
from creval.judges.structured import as_text


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def _scores(out: Path) -> dict[str, Any]:
    scores: dict[str, Any] = json.loads((out / "scores.json").read_text())
    return scores


@pytest.mark.slow
def test_ttct_judge_is_constrained_and_parses_on_the_small_model(tmp_path: Path) -> None:
    common = ("--model", "local", "--limit", "2", "--answers", "1", "--max-tokens", "24",
              "--no-progress")  # fmt: skip
    shaped, free = tmp_path / "shaped", tmp_path / "free"
    done = creval("run", "ttct", *common, "--out", str(shaped))
    assert done.returncode == 0, done.stderr
    assert all(r["output"]["judge_constrained"] for r in _records(shaped))
    scores = _scores(shaped)
    assert scores["headline"]["parse_failures"] == 0 and scores["headline"]["parsed"] == 2
    assert any("constrained to a JSON schema in 2 of 2 units" in n for n in scores["notes"])
    done = creval("run", "ttct", *common, "--structured-judge", "false", "--out", str(free))
    # free text from the small judge may never parse: a run without any score warns and
    # names the fix
    parsed = _scores(free)["headline"]["parsed"]
    assert done.returncode == (0 if parsed else 3), done.stderr  # 3: finished without a score
    assert parsed or "--structured-judge true" in " ".join(done.stderr.split())
    assert not any(r["output"]["judge_constrained"] for r in _records(free))
    assert any("free text" in n for n in _scores(free)["notes"])


@pytest.mark.slow
def test_dat_constrain_answers_gives_ten_words(tmp_path: Path) -> None:
    done = creval("run", "dat", "--model", "local", "--trials", "3", "--constrain-answers", "true",
                  "--out", str(tmp_path), "--no-progress")  # fmt: skip
    # the small model may give no valid list even so: a run without any score warns
    scored = _scores(tmp_path)["headline"]["dat_mean"] is not None
    assert done.returncode == (0 if scored else 3), done.stderr  # 3: finished without a score
    assert scored or "dat produced no score" in done.stderr
    calls = [c for r in _records(tmp_path) for c in r.get("calls", [])]
    assert calls and all(c["request"]["response_schema"]["minItems"] == 10 for c in calls)
    assert any("--constrain-answers" in n for n in _scores(tmp_path)["notes"])
    for record in _records(tmp_path):  # the shape, not the model's vocabulary, is guaranteed
        words = parse_word_list(as_text(record["output"]["text"], render_word_list), expected=10)
        assert len(words) == 10 and all(w.replace("-", "").isalpha() for w in words), words
