"""jcq and ttct end to end: answers, judge calls, strict parsing, aggregation, compare."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _cli import creval as creval_in_process
from _servers import ChatServer
from tests_paths import shared_data_path

CREVAL = [sys.executable, "-m", "creval.cli"]

JUDGEMENTS = [
    "Fluency: 4\nFlexibility: 3\nOriginality: 2\nElaboration: 5",
    "Fluency: 6\nFlexibility: 3\nOriginality: 2\nElaboration: 5",  # out of range
    "Fluency: 4\nFlexibility: 3\nOriginality: 2",  # a missing line
    "Here is my rating.\nFluency: 2\nFlexibility: 2\nOriginality: 1\nElaboration: 3\nThanks!",
]


def creval(*args: str, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ))


@pytest.mark.slow
def test_ttct_with_a_judge_that_breaks_the_format(tmp_path: Path) -> None:
    turn = {"i": 0}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        text = JUDGEMENTS[turn["i"] % len(JUDGEMENTS)]
        turn["i"] += 1
        return 200, text

    judge = ChatServer(reply=reply)
    try:
        done = creval("run", "ttct", "--model", "local", "--judge", "openai:judge",
                      "--judge-base-url", judge.url, "--limit", "7", "--answers", "2",
                      "--max-tokens", "8", "--out", str(tmp_path), "--no-progress")
    finally:
        judge.close()
    assert done.returncode == 0, done.stderr
    assert "fluency" in done.stdout
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["headline"]["parsed"] == 7 and scores["headline"]["parse_failures"] == 7
    errors = " ".join(f["error"] for f in scores["parse_failures"])
    assert "outside" in errors and "missing" in errors
    assert all(f["raw"] for f in scores["parse_failures"])
    # only the parsed answers count: every score is one of the valid ones given
    assert 2 <= scores["headline"]["fluency"] <= 4
    # 7 tasks, one question each (round-robin over tasks)
    assert {row["task"] for row in scores["table"]} <= {
        "unusual uses", "consequences", "just suppose", "situation", "common problem",
        "improvement", "imaginative stories"}
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["judge"]["spec"] == "openai:judge"
    assert judge.seen == 14

    # judge-vs-human agreement: people rate 5 where the judge said 4 and 1 where it said 2
    lines = ["question_id,answer_index,fluency,originality"]
    for line in (tmp_path / "records.jsonl").read_text().splitlines():
        record = json.loads(line)
        for index, text in enumerate(record["output"]["judgements"]):
            human = 5 if "Fluency: 4" in text else 1
            lines.append(f"{record['unit']['question_id']},{index},{human},")
    ratings = tmp_path / "human.csv"
    ratings.write_text("\n".join(lines) + "\n")
    agreed = creval("agreement", str(tmp_path), "--human", str(ratings))
    assert agreed.returncode == 0, agreed.stderr
    row = next(r for r in agreed.stdout.splitlines() if r.startswith("| all tasks | fluency |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == "7" and float(cells[3]) == pytest.approx(1.0)
    bad = creval("agreement", str(tmp_path), "--human", str(tmp_path / "none.csv"))
    assert bad.returncode == 2 and "does not exist" in bad.stderr


@pytest.mark.slow
def test_jcq_offline_with_the_default_model_as_answerer_and_judge(tmp_path: Path) -> None:
    # 1 question: each judge prompt is ~1,800 tokens of Japanese for the 135M model, the cost
    # of this test; the path is the same for 1 as for 7 (the aggregation over questions is
    # checked by test_released_judgements_reproduce_the_reference_aggregates and
    # tests/benchmarks/ttct/test_judge_checks.py). Nothing reads the answers: 16 tokens.
    done = creval_in_process("run", "jcq", "--model", "local", "--limit", "1", "--answers", "1",
                             "--max-tokens", "16", "--out", str(tmp_path), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "fluency" in done.stdout and "parse_failures" in done.stdout
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["headline"]["parsed"] + scores["headline"]["parse_failures"] == 1
    assert scores["units"]["finished"] == 1


def test_released_judgements_reproduce_the_reference_aggregates() -> None:
    folder = shared_data_path("jcq", "judgements_gpt-4o-2024-08-06")
    done = creval("score", "jcq", str(folder / "gpt-4o-2024-08-06.jsonl"))
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| gpt-4o"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    fluency, flexibility, originality, elaboration, mean = map(float, cells[1:6])
    assert (fluency, flexibility, originality, elaboration) == (4.1263, 4.3383, 2.7543, 3.5097)
    # The exact mean of the four criterion means is 3.682143 (shown 3.6821); the reference
    # 3.6822 is the mean of the four already-rounded means (3.68215). Both within 1e-4.
    assert mean == pytest.approx(3.6822, abs=1e-4)
    assert cells[6:] == ["3500", "0"]


#: nouns for the loopback writer's answers: each "model" (temperature) takes its own ten
NOUNS = ["volcano", "spoon", "justice", "giraffe", "umbrella", "algebra", "velvet", "harbor",
         "pepper", "saxophone", "glacier", "lantern", "orchid", "tractor", "whisper", "cactus",
         "satellite", "marble", "thunder", "violin", "pyramid", "blanket", "comet", "ladder"]


def _writer(body: dict[str, Any]) -> tuple[int, str]:
    """Three "models" in one loopback endpoint, told apart by the temperature asked for:
    answers of their own length and words (DAT: ten nouns a line; a story or an idea
    otherwise), so that judge scores, DAT and SAT differ between them."""
    k = round(float(body.get("temperature") or 0) * 10)  # 4, 8, 12
    prompt = str(body["messages"][-1]["content"])
    turn = (k + len(prompt)) % len(NOUNS)
    words = NOUNS[turn:] + NOUNS[:turn]  # distinct
    if "word" in prompt.lower() and "story" not in prompt.lower():
        return 200, "\n".join(words[:10])
    return 200, " ".join(words[: 3 + k % 7]) + "."


@pytest.mark.slow
def test_compare_three_models(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        # a deterministic judge whose scores follow the answer it reads
        answer = body["messages"][-1]["content"]
        a, b = len(answer) % 5 + 1, answer.count(" ") % 5 + 1
        return 200, f"Fluency: {a}\nFlexibility: {b}\nOriginality: {6 - a}\nElaboration: {6 - b}"

    judge, writer = ChatServer(reply=reply), ChatServer(reply=_writer)
    try:
        for temperature in ("0.4", "0.8", "1.2"):
            # in this process: no interpreter start, and the embedder and word vectors load once.
            # The three "models" are a loopback writer at three temperatures: what is checked
            # is correlate's table over three runs of each benchmark, not the packaged model's
            # answers (16-token answers of it were all the test read before, DAT lists invalid).
            # ttct needs all 7 tasks (a row per task below); SAT and DAT give one number per
            # model, so 2 stories and 1 trial do.
            out = tmp_path / f"smollm2-t{temperature}"
            common = ["--model", "openai:writer", "--base-url", writer.url, "--temperature",
                      temperature, "--max-tokens", "16", "--no-progress"]
            done = creval_in_process(
                "run", "ttct", "dat", *common, "--judge", "openai:judge", "--judge-base-url",
                judge.url, "--limit", "7", "--answers", "1", "--trials", "1", "--out", str(out),
                env={"OPENAI_API_KEY": "sk-test"})
            assert done.returncode == 0, done.stdout + done.stderr
            done = creval_in_process("run", "sat", *common, "--limit", "2", "--out",
                                     str(out / "sat"), env={"OPENAI_API_KEY": "sk-test"})
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        judge.close()
        writer.close()
    runs = sorted(str(p) for p in tmp_path.glob("*/*") if p.is_dir())
    assert len(runs) == 9
    report = tmp_path / "compare.md"
    done = creval_in_process("correlate", *runs, "--out", str(report))
    assert done.returncode == 0, done.stderr
    text = report.read_text()
    assert "DAT vs SAT" in text and "smollm2-t0.4" in text and "smollm2-t1.2" in text
    rubric = text.split("## Rubric task x criterion vs DAT and SAT")[1]
    rows = [line for line in rubric.splitlines() if line.startswith("| ttct | sat |")]
    assert len(rows) == (7 + 1) * 5, "per task and All x (4 criteria and their mean) vs SAT"
    assert all(row.split("|")[5].strip() == "3" for row in rows), "n = 3 models"
