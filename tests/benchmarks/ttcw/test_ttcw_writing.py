"""``ttcw`` through the command line with a loopback model that writes a story and a judge that
passes tests 1-7 and fails 8-14: the pass rates are known by hand."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

from creval.records import Scores
from tests.benchmarks.scores_contract import assert_per_item_means

sys.path.insert(0, str(Path(__file__).parent))
from _replay import replay_server  # noqa: E402


def writer_and_judge(body: dict[str, Any]) -> tuple[int, str]:
    prompt = body["messages"][-1]["content"]
    if "Plot:" in prompt:
        return 200, "A Title\nThe keeper wrote letters to passing ships."
    test = next(i for i, q in QUESTIONS.items() if q in prompt)
    return 200, "Yes, it does." if test <= 7 else "No, it does not."


QUESTIONS: dict[int, str] = {}


def run_ttcw(out: Path, *extra: str) -> tuple[dict, ChatServer]:
    server = ChatServer(reply=writer_and_judge)
    try:
        done = creval("run", "ttcw", "--model", "openai:writer", "--base-url", server.url,
                      "--max-tokens", "64", "--out", str(out), *extra, env={"OPENAI_API_KEY": "x"})
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((out / "scores.json").read_text()), server


def _questions(tests_file: Path) -> None:
    """Remember each test's question, by which the stand-in judge knows the test asked."""
    raw = json.loads(tests_file.read_text())
    QUESTIONS.clear()
    QUESTIONS.update({t["ttcw_idx"]: t["question"].strip()
                      for t in (raw["tests"] if isinstance(raw, dict) else raw)})


def test_pass_rates_on_the_papers_plots_with_the_judges_agreement(tmp_path: Path) -> None:
    folder = shared_data_path("ttcw")
    _questions(folder / "tests" / "ttcw_all_tests.json")
    no = replay_server(folder, None)
    try:
        done = creval("run", "ttcw-judges", "--model", "openai:writer", "--base-url", no.url,
                      "--data", str(folder), "--stories", "0_GPT4,1_GPT4", "--tests", "1,2",
                      "--out", str(tmp_path / "judges"), env={"OPENAI_API_KEY": "x"})
    finally:
        no.close()
    assert done.returncode == 0, done.stdout
    scores, server = run_ttcw(tmp_path / "ttcw", "--data", str(folder), "--limit", "2",
                              "--judge-agreement", str(tmp_path / "judges"))
    head = scores["headline"]
    assert head["stories"] == 2 and head["unparsed"] == 0
    contract = Scores.model_validate(scores)
    assert_per_item_means(contract)
    # 2 stories: no interval, and why (the bootstrap printed one from 2 stories before)
    assert head["pass_rate_low"] is None and head["pass_rate_high"] is None
    assert head["pass_rate_interval"] == "n=2: too few items for an interval (needs 10)"
    assert head["pass_rate"] == pytest.approx(0.5)
    assert (head["pass_rate_fluency"], head["pass_rate_originality"]) == (1.0, 0.0)
    assert head["pass_rate_flexibility"] == pytest.approx(2 / 3)
    asked = [b["messages"][-1]["content"] for b in server.bodies if "Plot:" in b["messages"][-1]["content"]]
    words = sorted(int(re.search(r"about (\d+) words", p).group(1)) for p in asked)
    assert words == [1612, 1911]  # the medians of the paper's three LLM stories of plots 1, 0
    assert head["judged_by"].startswith("self-judged")
    sections = {s["title"]: s for s in scores["sections"]}
    experts = sections["The paper's pass rates (experts), for orientation"]
    assert {r["source"] for r in experts["rows"]} == {"NewYorker", "GPT3.5", "GPT4", "Claude"}
    assert all(r["comparable"] is False for r in experts["rows"])
    assert "an LLM judge is not the experts" in experts["text"]
    (agreement,) = sections["How far the judge agrees with the experts (ttcw-judges)"]["rows"]
    assert agreement["judge"] == "openai:writer" and agreement["items"] == 4
    new_yorker = next(r for r in experts["rows"] if r["source"] == "NewYorker")
    majority = _experts_pass_rate(folder, "NewYorker")
    assert new_yorker["pass_rate"] == pytest.approx(majority)


def _experts_pass_rate(folder: Path, source: str) -> float:
    votes: dict[tuple[str, int], list[str]] = {}
    for row in json.loads((folder / "annotations" / "ttcw_annotations.json").read_text()):
        if row["story_id"].endswith("_" + source):
            votes.setdefault((row["story_id"], row["ttcw_idx"]), []).append(row["binary_verdict"])
    return sum(v.count("Yes") >= 2 for v in votes.values()) / len(votes)


def test_offline_starter_plots_and_own_test_wording(tmp_path: Path) -> None:
    from importlib import resources

    _questions(Path(str(resources.files("creval") / "data" / "ttcw" / "starter_tests.json")))
    scores, _ = run_ttcw(tmp_path / "starter", "--limit", "1")
    assert scores["headline"]["pass_rate"] == pytest.approx(0.5)
    assert not any("experts" in s["title"] for s in scores["sections"])


@pytest.mark.slow
def test_the_local_model_writes_and_judges_itself_offline(tmp_path: Path) -> None:
    """The smoke profile's path: the packaged model writes one story from a starter plot and
    judges it on one test; the run says it is self-judged, and its score follows from the
    recorded answer."""
    from creval.benchmarks.ttcw.data import parse_verdict

    done = creval("run", "ttcw", "--model", "local", "--limit", "1", "--tests", "9",
                  "--max-tokens", "48", "--judge-max-tokens", "8", "--out", str(tmp_path / "l"),
                  "--allow-no-score")  # an 8-token verdict may not parse: not what is tested
    assert done.returncode == 0, done.stdout + done.stderr
    scores = json.loads((tmp_path / "l" / "scores.json").read_text())
    (record,) = [json.loads(line) for line in (tmp_path / "l" / "records.jsonl").read_text().splitlines()]
    assert record["output"]["story"] and set(record["output"]["answers"]) == {"9"}
    verdict = parse_verdict(record["output"]["answers"]["9"])
    head = scores["headline"]
    assert head["judged_by"].startswith("self-judged")
    assert head["unparsed"] == (verdict is None)
    assert head["pass_rate"] == (None if verdict is None else float(verdict))


def test_references_check_places_a_run_beside_the_experts_pass_rates_never_comparable(
        tmp_path: Path) -> None:
    """The experts' pass rates per story source are references: ``references check`` holds a
    ttcw run against them and says why they are not comparable (its judge is a model, not the
    experts; the starter set's 3 plots, not the paper's 12)."""
    from importlib import resources

    _questions(Path(str(resources.files("creval") / "data" / "ttcw" / "starter_tests.json")))
    run_ttcw(tmp_path / "ttcw")
    done = creval("references", "check", str(tmp_path / "ttcw"), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    checks = [c for c in json.loads(done.stdout) if c["protocol"] == "ttcw-experts"]
    assert {(c["subject"], c["measure"]) for c in checks} >= {
        ("GPT4", "pass_rate"), ("New Yorker authors", "pass_rate_fluency")}
    assert checks and not any(c["comparable"] for c in checks)
    (why,) = {tuple(c["reasons"]) for c in checks if c["measure"] == "pass_rate"}
    assert any("experts (majority of 3)" in w for w in why), why
    assert any("3 items behind the value" in w and "measured 12" in w for w in why), why
    gpt4 = next(c for c in checks if c["subject"] == "GPT4" and c["measure"] == "pass_rate")
    assert gpt4["value"] == pytest.approx(8 / 42, abs=1e-6)
