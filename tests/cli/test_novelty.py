"""`creval novelty`: ranking final solutions against a judge server, per model across problems
(seed 001, appendix C.7 and Table 12) or per problem across runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _servers import ChatServer

from creval.runner.store import Record, RunStore

pytestmark = pytest.mark.unverified_runs("hand-made MacGyver runs: solutions written by the tests without a scorer")


def make_run(path: Path, solutions: dict[str, list[str]], entropy: dict[str, float]) -> Path:
    store = RunStore(path)
    store.write_manifest({"benchmark": "macgyver", "model_spec": "x"})
    for pid, steps in solutions.items():
        store.append(Record(key=f"macgyver-{pid}", status="ok",
                            unit={"id": pid, "fields": {"problem": f"Problem {pid}"}},
                            output={"solution_steps": steps}))
    store.write_scores({"table": [{"id": pid, "se_length_normalised": v} for pid, v in entropy.items()]})
    store.close()
    return path


def prefer_longer(body: dict[str, Any]) -> tuple[int, str]:
    """A judge that calls the longer solution more novel (position cannot matter)."""
    text = body["messages"][-1]["content"]
    label_1, label_2 = re.findall(r"Reply with only (\S+) or (\S+),", text)[0]
    sols = re.findall(r"Solution: (.*?)\n\n|Solution: (.*)$", text, flags=re.S)
    first, second = (a or b for a, b in sols[:2])
    return 200, label_1 if len(first) > len(second) else label_2


def novelty(*args: str, server: ChatServer | None = None) -> subprocess.CompletedProcess[str]:
    extra = ["--judge", "openai:judge", "--base-url", server.url] if server else []
    return subprocess.run([sys.executable, "-m", "creval.cli", "novelty", *args, *extra],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OPENAI_API_KEY": "x"})


def test_novelty_ranks_each_models_pool_across_problems_by_bubble_sort(tmp_path: Path) -> None:
    # one model, four problems: the longer the solution, the more novel and the higher the SE
    steps = {"p1": ["a"], "p2": ["a longer step"], "p3": ["bb"], "p4": ["the longest step of all"]}
    run = make_run(tmp_path / "model", steps, {"p1": 0.1, "p2": 0.7, "p3": 0.4, "p4": 0.2})
    server = ChatServer(reply=prefer_longer)
    out = tmp_path / "novelty.json"
    try:
        done = novelty(str(run), "--out", str(out), server=server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    (row,) = result["models"]
    assert row["run"] == str(run) and row["pairs"] == 4 and row["method"] == "bubble"
    assert row["comparisons"] == 4 * 3 // 2  # bubble sort: every adjacent swap asked
    assert row["order"] == ["p4", "p2", "p3", "p1"]
    # novelty ranks 1..4 = p4, p2, p3, p1 against SE 0.2, 0.7, 0.4, 0.1: rho by hand
    # novelty scores (higher = more novel) p1..p4 = 0, 2, 1, 3; SE ranks p1..p4 = 1, 4, 3, 2
    assert row["spearman"] == pytest.approx(0.4)
    assert server.seen == 2 * 6  # six distinct pairs, both orders


def test_novelty_ranks_runs_and_correlates_with_entropy(tmp_path: Path) -> None:
    short = make_run(tmp_path / "short", {"p1": ["a"], "p2": ["b"], "p3": ["c"]},
                     {"p1": 0.1, "p2": 0.2, "p3": 0.1})
    long = make_run(tmp_path / "long", {"p1": ["a much longer step", "and another"], "p2": ["bb bb bb"],
                                        "p3": ["a longer one"]}, {"p1": 1.0, "p2": 0.9, "p3": 1.1})
    server = ChatServer(reply=prefer_longer)
    try:
        out = tmp_path / "novelty.json"
        done = novelty(str(short), str(long), "--mode", "runs", "--out", str(out), server=server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    ranks = {row["run"]: row["mean_rank"] for row in result["runs"]}
    assert ranks[str(long)] == 1.0 and ranks[str(short)] == 2.0
    assert all(p["model_calls"] == 2 for p in result["per_problem"])  # one pair, both orders
    assert result["spearman_entropy_novelty"] > 0.8
    assert server.seen == 6


def test_novelty_refuses_a_single_run(tmp_path: Path) -> None:
    run = make_run(tmp_path / "one", {"p1": ["a"]}, {"p1": 0.1})
    done = novelty(str(run), "--mode", "runs")
    assert done.returncode == 2 and "at least two" in done.stderr


def test_novelty_rerun_answers_from_the_response_cache(tmp_path: Path) -> None:
    steps = {"p1": ["a"], "p2": ["a longer step"], "p3": ["the longest step of all"]}
    run = make_run(tmp_path / "model", steps, {"p1": 0.1, "p2": 0.5, "p3": 0.9})
    server = ChatServer(reply=prefer_longer)
    try:
        first = novelty(str(run), "--out", str(tmp_path / "a.json"), server=server)
        asked = server.seen
        again = novelty(str(run), "--out", str(tmp_path / "b.json"), server=server)
    finally:
        server.close()
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    assert asked == 2 * 3 and server.seen == asked  # the rerun asked the judge nothing
    assert json.loads((tmp_path / "a.json").read_text()) == json.loads((tmp_path / "b.json").read_text())
