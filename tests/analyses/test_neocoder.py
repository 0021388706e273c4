"""Seed 000 analyses (Figure 2, Table 5) on small real NeoCoder runs against a scripted model.

The scripted model answers the starter set's first two problems: a wrong program
(``print(0)``) at first, the shipped correct solution once it has seen feedback (so the
self-correction strategy fixes every answer). Its technique detector answers "for loop, if
statement" for code with a for loop and "recursion, set" otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from creval.analyses.neocoder import strategy_differences, technique_distribution
from creval.benchmarks.neocoder.benchmark import starter_dir
from creval.reader import read_run

pytestmark = pytest.mark.unverified_runs("hand-made or deliberately incomplete runs the analyses must refuse")

PROBLEMS = json.loads((starter_dir() / "NeoCoder.json").read_text())


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    messages = body["messages"]
    if "width first search" in messages[0]["content"]:  # the technique detector
        code = messages[-1]["content"]
        return 200, "- for loop\n- if statement" if "for " in code else "- recursion\n- set"
    first = next(m["content"] for m in messages if m["role"] == "user")
    problem = next(p for p in PROBLEMS if p["problem_statements"][0].splitlines()[0] in first)
    if sum(m["role"] == "user" for m in messages) > 1:  # after feedback
        return 200, "```python\n" + problem["codes"][0] + "\n```"
    return 200, "```python\nprint(0)\n```"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("neocoder-runs")
    server = ChatServer(reply=_reply)
    try:
        for strategy, limit in (("direct", "2"), ("self_correction", "2"), ("planning", "1")):
            done = creval("run", "neocoder", "--model", "openai:m", "--base-url", server.url,
                          "--limit", limit, "--states", "0-1", "--strategy", strategy,
                          "--concurrency", "1", "--no-progress", "--no-cache",
                          "--out", str(out / strategy))
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        server.close()
    yield out


def test_techniques_command_pins_the_human_share_and_shows_in_the_report(runs: Path) -> None:
    run = runs / "self_correction"
    done = creval("analyze", "techniques", str(run), "--top", "3")
    assert done.returncode == 0, done.stdout
    frame = technique_distribution([run], top=3)
    human = frame[frame["column"] == "human"].set_index("technique")
    # Human solutions of CRV01A and CRV02A (starter set): 6 solutions with 2+2+3+2+6+2 = 17
    # technique mentions; every one of them uses a for loop: 6/17 of the mentions.
    assert human.loc["for loop", "share_of_mentions"] == pytest.approx(6 / 17)
    assert human.loc["for loop", "solutions"] == 6 and human.loc["for loop", "rank"] == 1
    assert len(human) == 3  # --top 3
    # the self-corrected programs both use a for loop and an if statement at each state
    state0 = frame[frame["column"] == "0"].set_index("technique")
    assert state0.loc["for loop", "share_of_solutions"] == 1.0
    assert state0.loc["if statement", "share_of_mentions"] == 0.5
    [analysis] = read_run(run).analyses
    assert analysis.name == "techniques" and analysis.reproduces == "Figure 2"
    report = (run / "report.md").read_text()
    assert "## Analysis: Technique distribution per state against human solutions" in report
    assert "| self_correction | human | for loop | 6 | 1.0000 | 0.3529 | 1 |" in report
    assert 'id="analysis-techniques"' in (run / "report.html").read_text()


def test_strategies_command_pins_the_differences(runs: Path) -> None:
    base, after = runs / "direct", runs / "self_correction"
    done = creval("analyze", "strategies", str(base), str(after))
    assert done.returncode == 0, done.stdout
    frame = strategy_differences(base, [after]).set_index("t")
    # t=0: print(0) fails, the corrected program passes: convergent 0 -> 1.
    assert frame.loc[0, "convergent_diff"] == 1.0
    # Divergent before: print(0) is detected as {recursion, set}, neither in any human
    # solution of either problem: ratio 1 for both; after: {for loop, if statement}, both
    # used by humans: 0. Difference 0 - 1 = -1.
    assert frame.loc[0, "divergent_before"] == 1.0 and frame.loc[0, "divergent_diff"] == -1.0
    # t=1 forbids the for loop (CRV01A) and the if statement (CRV02A): the corrected
    # programs break the constraints, so convergent stays 0.
    assert frame.loc[1, "convergent_after"] == 0.0
    report = (base / "report.md").read_text()
    assert "Creativity before and after each reasoning strategy (Table 5 of seed 000)" in report
    assert "| self_correction | self_correction | 0 | 0.0000 | 1.0000 | 1.0000 |" in report


def test_strategies_refuses_runs_of_different_problems(runs: Path) -> None:
    done = creval("analyze", "strategies", str(runs / "direct"), str(runs / "planning"))
    assert done.returncode == 2
    assert "State 0 holds different problems" in done.stdout + done.stderr
    assert "CRV02A in only one" in done.stdout + done.stderr


def test_analyses_refuse_a_run_of_another_benchmark(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text(json.dumps({"benchmark": "dat", "model_spec": "local"}))
    (tmp_path / "scores.json").write_text(json.dumps({"benchmark": "dat"}))
    done = creval("analyze", "techniques", str(tmp_path))
    assert done.returncode == 2
    assert "pass a `creval run neocoder` directory" in done.stdout + done.stderr
