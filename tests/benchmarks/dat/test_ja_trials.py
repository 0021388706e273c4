"""Japanese DAT trials (seed 004, section 4.2): an invalid answer is not a trial, so each
trial asks again until its answer is valid, up to a reported cap; rejecting proper nouns is
an option (the paper's check excludes non-Japanese words, symbols and non-nouns).

A chat server stands in for the model: it answers by the request's seed, which is the
sample index, so which answers are invalid is fixed whatever the concurrency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _servers import ChatServer

pytest.importorskip("sudachipy", reason="Japanese noun checking needs the ja extra (sudachipy)")

NOUNS = ["冷蔵庫", "砂糖", "地図", "傘", "鉛筆", "時計", "山", "猫", "音楽", "椅子"]


def numbered(words: list[str]) -> str:
    return "\n".join(f"{i}. {w}" for i, w in enumerate(words, start=1))


def run_dat(tmp_path: Path, reply: Any, *args: str) -> tuple[dict[str, Any], int]:
    server = ChatServer(reply=reply)
    out = tmp_path / "run"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "creval.cli", "run", "dat", "--lang", "ja", "--model",
             "openai:m", "--base-url", server.url, "--trials", "3", "--out", str(out),
             "--no-progress", *args],
            capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": "x"})
    finally:
        server.close()
    scores = json.loads((out / "scores.json").read_text())
    # a run with no valid trial finished without a score: a warning, exit 3 (docs/usage.md)
    scored = scores["headline"]["dat_mean"] is not None
    assert done.returncode == (0 if scored else 3), done.stderr
    return scores, server.seen


def test_invalid_answers_are_asked_again_and_not_counted_as_trials(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        sample = body["seed"]  # seed 0 + sample index
        return 200, "cat dog" if sample in (0, 2) else numbered(NOUNS)

    scores, seen = run_dat(tmp_path, reply)
    h = scores["headline"]
    assert (h["valid_trials"], h["invalid_trials"]) == (3, 0)
    assert h["answers"] == 5 and h["invalid_answers_asked_again"] == 2
    assert h["trials_at_cap"] == 0 and seen == 5
    assert any("asked again" in note for note in scores["notes"])


def test_a_trial_that_reaches_the_cap_is_invalid_and_reported(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        return 200, "cat dog" if body["seed"] % 3 == 0 else numbered(NOUNS)  # trial 0 never valid

    scores, seen = run_dat(tmp_path, reply, "--attempts", "2")
    h = scores["headline"]
    assert (h["valid_trials"], h["invalid_trials"], h["trials_at_cap"]) == (2, 1, 1)
    assert seen == 4 and any("cap of 2" in note for note in scores["notes"])


def test_proper_nouns_are_accepted_unless_rejected(tmp_path: Path) -> None:
    answer = numbered([*NOUNS[:9], "東京"])

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        return 200, answer

    accepted, _ = run_dat(tmp_path / "a", reply, "--attempts", "1")
    assert accepted["headline"]["valid_trials"] == 3
    rejected, _ = run_dat(tmp_path / "r", reply, "--attempts", "1", "--reject-proper-nouns", "true")
    assert rejected["headline"]["valid_trials"] == 0
    assert "proper noun" in rejected["table"][0]["invalid"]
