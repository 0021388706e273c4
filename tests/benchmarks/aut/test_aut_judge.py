"""The aut judge scorer through the CLI with a loopback judge: a judge that knows people's
ratings correlates 1 with them on the capped, stratified test responses; a judge that always
answers 3 is flagged; the judge's anchors come from the train split only."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests._cli import creval
from tests._servers import ChatServer
from tests.tests_paths import shared_data_path


def _split(name: str) -> dict[tuple[str, str], float]:
    path = shared_data_path("ocsai", "ocsai1", f"finetune-gt_main2_prepared_{name}.jsonl")
    out = {}
    for line in path.read_text().splitlines():
        row = json.loads(line)
        obj, use = (p.split(":", 1)[1] for p in row["prompt"].split("\n")[:2])
        out[(obj.strip(), use.strip())] = int(row["completion"]) / 10
    return out


def _run(tmp_path: Path, judge: Any) -> tuple[Any, dict[str, Any], ChatServer]:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You rate how original"):
            return 200, judge(prompt)
        return 200, "1. doorstop\n2. grind it into red paint"

    server = ChatServer(reply=reply)
    try:
        done = creval("run", "aut", "--model", "openai:tiny", "--base-url", server.url,
                      "--scorer", "judge", "--people", str(shared_data_path("ocsai")),
                      "--objects", "brick", "--uses", "2", "--validation-limit", "30",
                      "--embedder", "glove-6b-50d", "--out", str(tmp_path), "--no-progress",
                      env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    return done, json.loads((tmp_path / "scores.json").read_text(encoding="utf-8")), server


def _object_use(prompt: str) -> tuple[str, str]:
    obj = re.search(r"^Object: (.*)$", prompt, re.M)
    use = re.search(r"^Use: (.*)$", prompt, re.M)
    assert obj and use
    return obj.group(1), use.group(1)


def test_a_judge_that_knows_peoples_ratings_correlates_one(tmp_path: Path) -> None:
    test = _split("test")
    done, scores, server = _run(tmp_path, lambda p: str(test.get(_object_use(p), 2.5)))
    head = scores["headline"]
    assert head["validation_responses"] == 30 and abs(head["human_r"] - 1.0) < 1e-9
    assert not scores["judge_checks"]
    assert "30 of 3030, stratified by object" in " ".join(scores["notes"])
    assert head["r_minus_gpt-4o"] > 0 and head["r_minus_gpt-4o_low"] > 0  # better than GPT-4o
    assert "human_r" in done.stdout and "published_r_gpt-4o" in done.stdout
    # the anchors in every judge prompt are people's TRAIN responses to that object
    train = _split("train")
    prompts = [b["messages"][-1]["content"] for b in server.bodies]
    judged = [p for p in prompts if p.startswith("You rate how original")]
    assert len(judged) == 30 + 2
    for prompt in judged:
        obj, _ = _object_use(prompt)
        anchors = re.findall(r"^- (.*): (\d\.\d)$", prompt, re.M)
        assert len(anchors) == 4
        assert all(train[(obj, use)] == float(rating) for use, rating in anchors)


def test_a_judge_that_always_says_3_is_flagged(tmp_path: Path) -> None:
    done, scores, _ = _run(tmp_path, lambda p: "3")
    assert scores["headline"]["human_r"] is None
    (check,) = scores["judge_checks"]
    assert check["check"] == "weak_correlation" and check["items"] == 30
    assert "is not shown to tell original from common uses" in done.stderr


def test_python_api_runs_the_judge_scorer_on_the_same_records(tmp_path: Path) -> None:
    """creval.evaluate gives the CLI's scores: the judge's ratings of the model's uses."""
    import creval

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You rate how original"):
            return 200, "4.5" if "red paint" in prompt else "1"
        return 200, "1. doorstop\n2. grind it into red paint"

    server = ChatServer(reply=reply)
    try:
        [result] = creval.evaluate("aut", model="openai:tiny", base_url=server.url,
                                   api_key="test", out=tmp_path, scorer="judge",
                                   objects="brick,umbrella", uses=2, embedder="glove-6b-50d")
    finally:
        server.close()
    head = result.scores.headline
    assert head["originality_mean"] == (1 + 4.5) / 2 and head["fluency_mean"] == 2
    assert head["uses_missing"] == 0
