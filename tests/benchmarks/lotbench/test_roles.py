"""LoTbench's evaluators E1 and E2 as model roles of their own (``--e1``, ``--e2``,
``--role NAME=SPEC``): each role's requests reach its own model on its own endpoint, the
manifest records them, resume refuses a changed one, and each falls back to ``--judge``, then
to the tested model (self-judged)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from creval.evaluation import SELF_JUDGED
from tests._cli import Done, creval
from tests._servers import ChatServer
from tests.benchmarks.lotbench.test_lotbench_run import scripted, text_of


def kind(body: dict[str, Any]) -> str:
    """Which part of the game a request is, from its prompt."""
    text = text_of(body)
    if "Player's question" in text:
        return "e2"
    if "Write three short sections" in text or "Candidate's words" in text:
        return "e1"
    if "Reply with the question only" in text or "Reply with the words for <MASK>" in text:
        return "target"
    return "other"


def lotbench(server: ChatServer, out: Path, *args: str) -> Done:
    return creval("run", "lotbench", "--model", "openai:player", "--base-url", server.url,
                  "--api-key", "x", "--no-progress", "--no-cache", "--limit", "1",
                  "--repeats", "1", "--max-rounds", "3", "--out", str(out), *args)


def read(out: Path, name: str) -> Any:
    return json.loads((out / name).read_text())


def test_each_role_reaches_its_own_model_and_resume_refuses_a_changed_one(tmp_path: Path) -> None:
    main, answers = ChatServer(reply=scripted), ChatServer(reply=scripted)
    out = tmp_path / "run"
    e2_flags = ("--role", "e2=openai:answerer", "--e2-base-url", answers.url)
    try:
        done = lotbench(main, out, "--e1", "openai:daeso", *e2_flags)
        assert done.returncode == 0, done.stderr
        sent = {(b["model"], kind(b)) for b in main.bodies}
        assert sent == {("player", "target"), ("daeso", "e1")}  # E2 never asked here
        assert {(b["model"], kind(b)) for b in answers.bodies} == {("answerer", "e2")}
        scores = read(out, "scores.json")
        assert scores["headline"]["S_c"] == math.exp(-0.4)  # solved in round 2, as scripted
        assert "judged_by" not in scores["headline"]
        per_model = scores["usage"]["this_invocation"]["models"]
        assert {m: row["requests"] for m, row in per_model.items()} == {
            "openai:player": sum(b["model"] == "player" for b in main.bodies),
            "openai:daeso": sum(b["model"] == "daeso" for b in main.bodies),
            "openai:answerer": len(answers.bodies),
        }
        records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
        assert {(c["role"], c["model"]) for r in records for c in r["calls"]} == {
            ("target", "openai:player"), ("e1", "openai:daeso"), ("e2", "openai:answerer")}
        manifest = read(out, "manifest.json")
        assert "judge" not in manifest
        roles = manifest["roles"]
        assert (roles["e1"]["spec"], roles["e1"]["chosen_by"]) == ("openai:daeso", "--e1")
        assert (roles["e2"]["spec"], roles["e2"]["chosen_by"]) == ("openai:answerer", "--e2")
        assert roles["e1"]["identity"]["base_url"].rstrip("/") == main.url.rstrip("/")
        assert roles["e2"]["identity"]["base_url"].rstrip("/") == answers.url.rstrip("/")
        assert "DAESO" in roles["e1"]["does"] and "capabilities" in roles["e2"]
        assert "- e2: `openai:answerer` (--e2)" in (out / "report.md").read_text()

        lines, asked = (out / "records.jsonl").read_text(), len(main.bodies) + len(answers.bodies)
        again = lotbench(main, out, "--e1", "openai:daeso", *e2_flags)
        assert again.returncode == 0, again.stderr
        other_e1 = lotbench(main, out, "--e1", "openai:other", *e2_flags)
        assert other_e1.returncode == 2 and "different e1 model" in other_e1.stderr
        assert "--e1" in other_e1.stderr
        moved_e2 = lotbench(main, out, "--e1", "openai:daeso", "--role", "e2=openai:answerer")
        assert moved_e2.returncode == 2 and "different e2 model" in moved_e2.stderr
        fallback = lotbench(main, out)  # E1 and E2 on the tested model: a changed role too
        assert fallback.returncode == 2 and "different e1 model" in fallback.stderr
        assert (out / "records.jsonl").read_text() == lines
        assert len(main.bodies) + len(answers.bodies) == asked  # nothing sent after the first run
    finally:
        main.close()
        answers.close()


@pytest.mark.parametrize(
    ("flags", "e1", "e2"),
    [
        (("--judge", "openai:judge"), ("openai:judge", "--judge"), ("openai:judge", "--judge")),
        (("--judge", "openai:judge", "--e2", "openai:answerer"),
         ("openai:judge", "--judge"), ("openai:answerer", "--e2")),
        ((), ("openai:player", "--model"), ("openai:player", "--model")),
    ],
)
def test_roles_fall_back_to_the_judge_then_the_tested_model(
    tmp_path: Path, flags: tuple[str, ...], e1: tuple[str, str], e2: tuple[str, str]
) -> None:
    server = ChatServer(reply=scripted)
    out = tmp_path / "run"
    try:
        done = lotbench(server, out, *flags)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    roles = read(out, "manifest.json")["roles"]
    assert (roles["e1"]["spec"], roles["e1"]["chosen_by"]) == e1
    assert (roles["e2"]["spec"], roles["e2"]["chosen_by"]) == e2
    served = {(kind(b), "openai:" + b["model"]) for b in server.bodies if kind(b) in ("e1", "e2")}
    assert served == {("e1", e1[0]), ("e2", e2[0])}
    scores = read(out, "scores.json")
    models = set(scores["usage"]["this_invocation"]["models"])
    assert models == {"openai:player", e1[0], e2[0]}  # one model object per distinct spec
    if not flags:
        assert scores["headline"]["judged_by"] == SELF_JUDGED
        assert any("e1, e2 model was the tested model itself" in w and "--e1 SPEC --e2 SPEC" in w
                   for w in scores["warnings"])
        assert "self-judged" in done.stderr
    else:
        assert "judged_by" not in scores["headline"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--role", "e9=openai:x"), "'e9' is not a model role"),
        (("--role", "e1"), "write --role NAME=SPEC"),
        (("--e1", "openai:a", "--role", "e1=openai:b"), "given twice"),
        (("--e1", ""), "needs a spec"),
    ],
)
def test_bad_role_flags_exit_2_before_the_run_directory_exists(
    tmp_path: Path, flags: tuple[str, ...], message: str
) -> None:
    out = tmp_path / "run"
    done = creval("run", "lotbench", "--model", "openai:player", "--out", str(out), *flags)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not out.exists()


def test_a_role_of_another_benchmark_is_an_unknown_option(tmp_path: Path) -> None:
    done = creval("run", "dat", "--e1", "openai:x", "--out", str(tmp_path / "dat"))
    assert done.returncode == 2 and "Unknown option(s) --e1 for dat" in done.stderr
    assert not (tmp_path / "dat").exists()


def test_help_and_list_show_the_role_options() -> None:
    lot = creval("run", "lotbench", "--help")
    assert lot.returncode == 0
    text = " ".join(lot.stdout.split())
    assert "lotbench model roles" in text
    for flag in ("--e1 SPEC", "--e2 SPEC", "--e1-base-url URL", "--e2-base-url URL", "--role"):
        assert flag in text
    assert "evaluator E1" in text and "evaluator E2" in text
    oogiri = " ".join(creval("run", "oogiri", "--help").stdout.split())
    assert "--rewriter SPEC" in oogiri and "--e1 SPEC" not in oogiri
    listed = " ".join(creval("list", "--verbose").stdout.split())
    assert "--e1 SPEC" in listed and "--rewriter SPEC" in listed


def test_preset_paper_puts_gpt_4o_mini_in_e1_and_e2_unless_the_user_chose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from creval.evaluation import plan_runs

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    missing = creval("run", "lotbench", "--preset", "paper", "--dry-run", "--limit", "1")
    assert missing.returncode == 2
    assert "the E1 model openai:gpt-4o-mini" in missing.stderr and "--e1 SPEC" in missing.stderr
    assert "the E2 model openai:gpt-4o-mini" in missing.stderr
    mine = creval("run", "lotbench", "--preset", "paper", "--e1", "local", "--e2", "local",
                  "--dry-run", "--limit", "1")
    assert mine.returncode == 0, mine.stderr
    judged = creval("run", "lotbench", "--preset", "paper", "--judge", "local", "--dry-run",
                    "--limit", "1")
    assert judged.returncode == 0, judged.stderr
    half = creval("run", "lotbench", "--preset", "paper", "--e1", "local", "--dry-run")
    assert half.returncode == 2 and "E2 model" in half.stderr and "E1 model" not in half.stderr

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (plan,) = plan_runs(["lotbench"], {}, tmp_path, "local", preset="paper")
    assert plan.roles == {"e1": "openai:gpt-4o-mini", "e2": "openai:gpt-4o-mini"}
    (plan,) = plan_runs(["lotbench"], {}, tmp_path, "local", preset="paper", roles={"e2": "local"})
    assert plan.roles == {"e1": "openai:gpt-4o-mini", "e2": "local"}
    (plan,) = plan_runs(["lotbench"], {}, tmp_path, "local", preset="paper", judge="openai:j")
    assert plan.roles == {} and plan.judge == "openai:j"
