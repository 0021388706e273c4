"""LoTbench through the command line against a scripted OpenAI-compatible server on loopback:
a model run, human play from standard input, and the E1 validation benchmark."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.records import Scores
from tests._cli import Done, creval
from tests._servers import ChatServer
from tests.benchmarks.scores_contract import assert_per_item_means


def text_of(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)


def scripted(body: dict[str, Any]) -> tuple[int, str]:
    """Fills 'pet' in round 1 and 'loan shark' after; E1 accepts only 'loan shark'."""
    text = text_of(body)
    if "Reply with the question only" in text:
        return 200, "Question: Is it a job?"
    if "Reply with the words for <MASK>" in text:
        return 200, "Fill: loan shark" if "Round 1:" in text else "Fill: pet"
    if "Write three short sections" in text:
        return 200, "Scene chain: a -> b\nResponse chain: c -> d\nMapping: d onto b"
    if "Player's question" in text:
        return 200, "Answer: YES"
    fill = re.search(r"Candidate's words in place of the key words: (.*)", text)
    if fill:
        return 200, "Verdict: DAESO" if fill.group(1).strip() == "loan shark" else "Verdict: NOT DAESO"
    candidate = re.search(r"Candidate: (.*)", text)  # zero-shot E1 prompts
    if candidate is None:  # not a LoTbench prompt (a backend's own probe)
        return 200, "Hello."
    return 200, "Verdict: DAESO" if "shark" in candidate.group(1) else "Verdict: NOT DAESO"


def test_model_run_solves_every_game_in_round_two(tmp_path: Path) -> None:
    board = shared_data_path("lotbench", "leaderboard.json")
    server = ChatServer(reply=scripted)
    out = tmp_path / "run"
    try:
        done = creval("run", "lotbench", "--model", "openai:scripted", "--base-url", server.url,
             "--api-key", "x", "--no-progress", "--limit", "2", "--repeats", "2",
             "--max-rounds", "4", "--leaderboard", str(board), "--out", str(out))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text())
    h = scores["headline"]
    assert h["S_c"] == math.exp(-0.4)
    assert h["S_c_low"] is None and h["S_c_high"] is None  # 2 samples: too few for an interval
    assert h["games"] == 4 and h["solved"] == 4 and h["e1_parse_failure_rate"] == 0.0
    assert h["leaderboard_rank"] == "1 of 33"  # 0.67 is above every published model
    games = [json.loads(x) for x in (out / "transcripts.jsonl").read_text().splitlines()]
    assert sorted((g["sample_id"], g["repeat"]) for g in games) == [
        ("en-001", 0), ("en-001", 1), ("en-002", 0), ("en-002", 1)]
    assert all([r["fill"] for r in g["rounds"]] == ["pet", "loan shark"] for g in games)
    report = (out / "report.md").read_text()
    assert "Rounds to DAESO" in report and "| 2 | 4 |" in report
    records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert {c["role"] for r in records for c in r["calls"]} == {"target", "e1", "e2"}
    assert scores["per_item"] == {"S_c": [math.exp(-0.4)] * 2}  # one score per sample


def test_per_item_s_c_counts_unsolved_samples_and_lies_in_its_interval(tmp_path: Path) -> None:
    """The weather-app sample is never solved: it scores --unsolved (0) in the mean."""
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        if "Reply with the words for <MASK>" in text_of(body) and "weather app" in text_of(body):
            return 200, "Fill: pet"
        return scripted(body)

    server = ChatServer(reply=reply)
    out = tmp_path / "run"
    try:
        done = creval("run", "lotbench", "--model", "openai:scripted", "--base-url", server.url,
                      "--api-key", "x", "--no-progress", "--limit", "3", "--repeats", "2",
                      "--max-rounds", "3", "--out", str(out))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = Scores.model_validate_json((out / "scores.json").read_text())
    assert sorted(scores.per_item["S_c"]) == [0.0, math.exp(-0.4), math.exp(-0.4)]  # any order
    assert scores.headline["S_c"] == pytest.approx(2 * math.exp(-0.4) / 3)
    assert scores.headline["S_c_low"] is None  # 3 samples: too few for an interval (10)
    assert any("none from fewer than 10 samples" in n for n in scores.notes)
    assert_per_item_means(scores)


def play(args: list[str], stdin: str, server: ChatServer) -> Done:
    """``creval play lotbench`` in this process, with ``stdin`` as what the person types."""
    from typer.testing import CliRunner

    from creval.cli import app

    result = CliRunner().invoke(app, ["play", "lotbench", "--judge", "openai:scripted",
                                      "--judge-base-url", server.url, "--api-key", "x", *args],
                                input=stdin, catch_exceptions=False)
    return Done(result.exit_code, result.stdout, result.stderr)


def test_human_play_from_stdin_is_scored_like_a_model(tmp_path: Path) -> None:
    server = ChatServer(reply=scripted)
    out = tmp_path / "human"
    try:
        stopped = play(["--limit", "1", "--max-rounds", "3", "--out", str(out)], "pet\n", server)
        assert stopped.returncode == 1  # input ended mid-game: an error record, resumable
        assert "end of input" in (out / "report.md").read_text()
        done = play(["--limit", "1", "--max-rounds", "3", "--out", str(out)],
                    "pet\nIs it a job?\nloan shark\n", server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert "solved in round 2" in done.stdout and f"S_c = {math.exp(-0.4):.4f}" in done.stdout
    assert "A <MASK> with whiskers" in done.stdout  # the person sees the masked answer
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model_spec"] == "human:player"
    (game,) = [json.loads(x) for x in (out / "transcripts.jsonl").read_text().splitlines()]
    assert game["rounds"][0]["question"] == "Is it a job?" and game["rounds"][0]["answer"] == "YES"


def test_human_play_takes_its_own_e1(tmp_path: Path) -> None:
    server = ChatServer(reply=scripted)
    out = tmp_path / "human"
    try:
        done = play(["--limit", "1", "--max-rounds", "3", "--out", str(out), "--e1", "openai:e1-model"],
                    "pet\nIs it a job?\nloan shark\n", server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    roles = json.loads((out / "manifest.json").read_text())["roles"]
    assert roles["e1"]["spec"] == "openai:e1-model" and roles["e2"]["spec"] == "openai:scripted"
    assert {body["model"] for body in server.bodies} >= {"e1-model", "scripted"}


def test_e1_validation_against_the_starter_labels(tmp_path: Path) -> None:
    server = ChatServer(reply=scripted)
    try:
        done = creval("run", "lotbench-e1", "--model", "openai:scripted", "--base-url", server.url,
                      "--api-key", "x", "--no-progress", "--e1-mode", "zeroshot",
                      "--out", str(tmp_path / "e1"))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "e1" / "scores.json").read_text())
    h = scores["headline"]
    assert scores["sections"][0]["rows"] == [
        {"label": "DAESO", "DAESO": 1, "NOT DAESO": 9, "unparsable": 0},
        {"label": "NOT DAESO", "DAESO": 0, "NOT DAESO": 10, "unparsable": 0}]
    # The scripted E1 says DAESO only for fills with "shark". Our 20 labelled pairs are 10 DAESO
    # (one of them "loan shark") and 10 not: right on 10 + 1, accuracy 0.55. Kappa: p_o = 0.55,
    # labels 10/20 DAESO, verdicts 1/20, p_e = 0.5 * 0.05 + 0.5 * 0.95 = 0.5, kappa = 0.05 / 0.5.
    assert h["pairs"] == 20 and h["parse_failures"] == 0
    assert h["accuracy"] == 0.55 and h["kappa"] == pytest.approx(0.1)


def test_image_samples_go_to_models_that_read_images_only(tmp_path: Path) -> None:
    (tmp_path / "fish.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    sample = {"id": "img-1", "image": "fish.png", "caption": "A fish flops loudly on a table.",
              "response": "Vibrant [[alarm clock]]", "explanation": "It rings like one.",
              "clues": ["It makes a sound."]}
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps(sample) + "\n")
    local = creval("run", "lotbench", "--model", "local", "--samples", str(samples), "--repeats", "1",
         "--no-progress", "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    h = json.loads((tmp_path / "local" / "scores.json").read_text())["headline"]
    assert h["games_skipped"] == 1 and h["games"] == 0 and h["S_c"] is None
    assert "text-only" in (tmp_path / "local" / "report.md").read_text()
    server = ChatServer(reply=scripted)
    try:
        done = creval("run", "lotbench", "--model", "openai:scripted", "--base-url", server.url,
             "--api-key", "x", "--samples", str(samples), "--repeats", "1", "--max-rounds", "1",
             "--no-progress", "--out", str(tmp_path / "remote"))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    fills = [b for b in server.bodies if "Reply with the words for <MASK>" in text_of(b)]
    assert fills and fills[0]["messages"][-1]["content"][0]["type"] == "image_url"
    judged = [b for b in server.bodies if "Candidate" in text_of(b)]
    assert judged and all(isinstance(b["messages"][-1]["content"], str) for b in judged)


def test_bad_input_exits_2_with_a_message_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "input": "q", "caption": "c", "response": "no mark",
                               "explanation": "e"}) + "\n")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"id": 1, "sample_id": "nope", "fill": "f", "daeso": True}) + "\n")
    cases = [
        (["lotbench", "--samples", str(bad)], "no marked key text; mark it as [[key text]]"),
        (["lotbench-e1", "--labels", str(labels)], "sample_id 'nope' is not in the samples file"),
        (["oogiri", "--questions", "2T1,9T9"], "--questions: unknown 9T9"),
        (["oogiri", "--types", "I2T"], "No prompt of type I2T"),
    ]
    for args, message in cases:
        out = tmp_path / "run"
        done = creval("run", *args, "--model", "local", "--out", str(out))
        assert done.returncode == 2, (args, done.stderr)
        assert message in " ".join(done.stderr.split()) and "Traceback" not in done.stderr
        assert not out.exists()


def test_a_labs_human_groups_from_three_players(tmp_path: Path) -> None:
    server = ChatServer(reply=scripted)
    typed = {"ana": "loan shark\n", "ben": "pet\nIs it a job?\nloan shark\n",
             "cy": "pet\nIs it alive?\npet\nIs it big?\n"}
    try:
        for name, stdin in typed.items():
            done = play(["--name", name, "--limit", "1", "--max-rounds", "2",
                         "--out", str(tmp_path / name)], stdin, server)
            assert done.returncode == 0, done.stderr
    finally:
        server.close()
    board = tmp_path / "humans.json"
    done = creval("play", "groups", *(str(tmp_path / n) for n in typed), "--out", str(board))
    assert done.returncode == 0, done.stderr
    # ana solved in round 1 (e^-0.2), ben in round 2 (e^-0.4), cy never (0): one per third
    scores = {r["title"]: r["score"] for r in json.loads(board.read_text())["records"]}
    assert scores == {"Human (low)": 0.0, "Human (medium)": round(math.exp(-0.4), 4),
                      "Human (high)": round(math.exp(-0.2), 4)}
    few = creval("play", "groups", str(tmp_path / "ana"), str(tmp_path / "ben"))
    assert few.returncode == 2 and "at least 3 players" in few.stderr
