"""NeoCoder end to end through the command line: a real model on the starter set, Denial
Prompting into a new dataset, and scoring existing solutions without a model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.data import load_neocoder

CREVAL = [sys.executable, "-m", "creval.cli"]


def creval(*args: str, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=timeout,
                          env=os.environ.copy())


@pytest.mark.slow
def test_run_evaluates_states_with_the_local_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = creval("run", "neocoder", "--model", "local", "--limit", "1", "--states", "0,1",
                  "--detector", "both", "--max-tokens", "64", "--out", str(out))
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert [row["t"] for row in scores["states"]] == [0, 1]
    assert all(row["problems"] == 1 for row in scores["states"])
    assert (out / "neogauge_by_state.png").stat().st_size > 1000
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        detection = record["output"]["detections"][0]
        # a detection either parsed into vocabulary names or is recorded as a failure
        assert detection["techniques"] is None or isinstance(detection["techniques"], list)
        roles = {call["role"] for call in record["calls"]}
        assert roles == {"target", "judge"}  # the detector is the judge role, context-free
        detect_call = next(c for c in record["calls"] if c["role"] == "judge")
        assert len(detect_call["request"]["messages"]) == 2  # system + the code alone
    report = (out / "report.md").read_text()
    assert "NeoGauge per state" in report and "neogauge_by_state.png" in report


@pytest.mark.slow
def test_denial_mode_writes_an_upstream_dataset(tmp_path: Path) -> None:
    out = tmp_path / "denial"
    # 2 rounds: the dataset's statements and codes are the original plus one per round; each
    # round's prompt carries the earlier ones (~400 tokens more each), 40-token answers
    done = creval("run", "neocoder", "--mode", "denial", "--model", "local", "--limit", "1",
                  "--rounds", "2", "--max-tokens", "40", "--out", str(out))
    assert done.returncode == 0, done.stderr
    dataset = load_neocoder(out / "dataset")
    (problem,) = dataset.problems
    assert len(problem.problem_statements) == 3 and len(problem.codes or []) == 3
    assert dataset.tests is not None and problem.problem_id in dataset.tests
    scores = json.loads((out / "scores.json").read_text())
    assert scores["headline"]["problems"] == 1


def test_score_user_answers_with_the_compat_judge(tmp_path: Path) -> None:
    data = shared_data_path("neocoder", "NeoCoder")
    reference = json.loads(shared_data_path(
        "neocoder", "reference_outputs", "gpt4_codes_correctness_repo_judge.json").read_text())
    labels = {p["problem_id"]: p["correct_repo_judge"] for p in reference["per_problem"]}
    problems = json.loads((data / "NeoCoder.json").read_text())
    chosen = [p for p in problems if any(labels[p["problem_id"]])][:3] + problems[-2:]
    lines = [json.dumps({"problem_id": p["problem_id"], "round": 0, "code": p["codes"][0]})
             for p in chosen]
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(lines) + "\n")
    out = tmp_path / "scores.json"
    done = creval("score", "neocoder", "--data", str(data), "--codes", str(answers),
                  "--judge-compat", "neocoder", "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = {r["problem"]: r for r in json.loads(out.read_text())["table"]}
    for p in chosen:
        pid = p["problem_id"]
        if pid in rows:  # problems without human techniques are not in the table
            assert rows[pid]["correct"] == labels[pid][0], pid
    passed = sum(labels[p["problem_id"]][0] for p in chosen)
    assert "| 0 | 5 |" in done.stdout and passed >= 3


def test_score_rejects_bad_input(tmp_path: Path) -> None:
    done = creval("score", "neocoder", "--data", str(tmp_path))
    assert done.returncode == 2 and "NeoCoder.json" in done.stderr
    data = shared_data_path("neocoder", "NeoCoder")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem_id": "nope", "round": 0, "code": "print(1)"}\n')
    done = creval("score", "neocoder", "--data", str(data), "--codes", str(bad))
    assert done.returncode == 2 and "bad.jsonl:1" in done.stderr
