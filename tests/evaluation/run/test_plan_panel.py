"""``--plan`` with a judge panel (``--judge a,b,c``): each judge the panel asks is costed, the
tested model once; a judge its spec puts in the tested model's family is not asked, as in the
run. No model is called (the endpoint is port 9 on loopback, where nobody listens)."""

from __future__ import annotations

import json
from pathlib import Path

from tests._cli import creval as cli

NOWHERE = ["--model", "openai:gpt-4o-mini", "--base-url", "http://127.0.0.1:9/v1"]
PANEL = "openai:gpt-4o,openai:claude-3-5-haiku,openai:llama-3.1-70b"


def _rows(plan: Path) -> list[tuple[str, str, int]]:
    doc = json.loads(plan.read_text())
    return [(r["role"], r["model"], r["requests"]) for r in doc["rows"]]


def test_run_plan_costs_every_judge_the_panel_asks(tmp_path: Path) -> None:
    out = tmp_path / "ttct"
    done = cli("run", "ttct", *NOWHERE, "--judge", PANEL, "--limit", "3", "--out", str(out), "--plan",
               "--price", "judge=1/2", "--price", "target=0/0")
    assert done.returncode == 0, done.stderr
    rows = _rows(out / "plan.json")
    target = [r for r in rows if r[0] == "target"]
    judges = [r for r in rows if r[0] == "judge"]
    assert len(target) == 1 and target[0][1] == "openai:gpt-4o-mini"
    assert [m for _, m, _ in judges] == ["openai:claude-3-5-haiku", "openai:llama-3.1-70b"]
    assert judges[0][2] == judges[1][2] > 0
    doc = json.loads((out / "plan.json").read_text())
    assert doc["roles"]["judge"]["requests"] == 2 * judges[0][2]
    assert doc["total"]["cost"] == doc["roles"]["judge"]["cost"] > 0
    kept = cli("run", "ttct", *NOWHERE, "--judge", PANEL, "--limit", "3", "--out", str(out), "--plan",
               "--allow-same-family-judge")
    assert kept.returncode == 0, kept.stderr
    assert [m for role, m, _ in _rows(out / "plan.json") if role == "judge"] == PANEL.split(",")


def test_profile_plan_with_a_panel(tmp_path: Path) -> None:
    done = cli("profile", *NOWHERE, "--size", "smoke", "--only", "ttct", "--judge", PANEL,
               "--out", str(tmp_path / "p"), "--plan")
    assert done.returncode == 0, done.stderr
    judges = [m for role, m, _ in _rows(tmp_path / "p" / "plan.json") if role == "judge"]
    assert judges == ["openai:claude-3-5-haiku", "openai:llama-3.1-70b"]
