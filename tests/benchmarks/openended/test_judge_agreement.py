"""`macgyver-judges`: a judge's accuracy and kappa against human labels, end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from _servers import ChatServer
from tests_paths import shared_data_path


def says_no_to_short_solutions(body: dict[str, Any]) -> tuple[int, str]:
    """A judge that fails solutions of fewer than three steps, whatever the criterion."""
    text = body["messages"][-1]["content"]
    solution = text.split("[Proposed solution]", 1)[1]
    return 200, "[[YES]] [[0.9]]" if solution.count("Step") >= 3 else "[[NO]] [[0.8]]"


def run(out: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], ChatServer]:
    server = ChatServer(reply=says_no_to_short_solutions)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "creval.cli", "run", "macgyver-judges", "--model", "openai:judge",
             "--base-url", server.url, "--judges", "oneshot", "--out", str(out), *extra],
            capture_output=True, text=True, timeout=300, env={**os.environ, "OPENAI_API_KEY": "x"},
        )
    finally:
        server.close()
    return done, server


def test_accuracy_against_the_starter_labels(tmp_path: Path) -> None:
    done, server = run(tmp_path / "run")
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    (row,) = scores["table"]
    # starter labels: 5 reference solutions (3+ steps, correct), 5 two-step solutions, of which
    # one is labelled correct: the judge gets 9 of 10 right
    assert row["items"] == 10 and row["accuracy"] == 0.9 and row["false_negative"] == 1
    assert server.seen == 30  # one call per criterion per item
    assert scores["headline"]["oneshot_tokens"] == 30 * 5


def test_upstream_labels_need_the_problem_sheet(tmp_path: Path) -> None:
    labels = shared_data_path("macgyver", "benchmark_results.json")
    done, _ = run(tmp_path / "bad", "--labels", str(labels))
    assert done.returncode == 2 and "--problems" in done.stderr
    assert not (tmp_path / "bad").exists()  # bad input writes nothing
    sheet = shared_data_path("macgyver", "problem_solution_pair.csv")
    done, server = run(tmp_path / "run", "--labels", str(labels), "--problems", str(sheet), "--limit", "4")
    assert done.returncode == 0, done.stderr
    assert server.seen == 12
