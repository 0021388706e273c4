"""The rubric judge through a real OpenAI-compatible HTTP server on loopback: strict
parsing, the domain's creativity criterion as the judge metric, failures counted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from creval.benchmarks.metric_validity.data import load_domain
from creval.benchmarks.metric_validity.judging import parse_judgement

UNUSUAL = ("rubber band", "spring", "glass", "candle", "bottle")


def _judge(body: dict[str, Any]) -> tuple[int, str]:
    prompt = body["messages"][-1]["content"]
    if "Is this text" in prompt:  # the paraphrase pair: "conventional?" is always answered yes
        unusual = any(word in prompt for word in UNUSUAL)
        return 200, "[[YES]]" if "text conventional?" in prompt or unusual else "[[NO]]"
    if body.get("seed") == 1 and "bottle" in prompt:  # the second repeat changes its mind once
        return 200, "Difficulty: 3\nUnconventionality: 3\nEfficiency: 4"
    if "graphite pencil" in prompt:
        return 200, "A clever idea.\nDifficulty: 3\nUnconventionality: 4 or 5\nEfficiency: 4"  # ambiguous
    unusual = any(word in prompt for word in ("rubber band", "spring", "glass", "candle", "bottle"))
    score = 5 if unusual else 2
    return 200, f"Strengths: ... Weaknesses: ...\nDifficulty: 3\nUnconventionality: {score}\nEfficiency: 4"


def test_parse_is_strict() -> None:
    assert parse_judgement("Difficulty: 3\nUnconventionality: 4", "problem-solving") == {
        "parse_error": "missing efficiency"}
    ok = parse_judgement("Background setup: 2\nLogic: 3\nDevelopment: 4\nOriginality: 5", "writing")
    assert ok == {"scores": {"background_setup": 2, "logic": 3, "development": 4, "originality": 5}}


def test_judge_metric_through_a_server(tmp_path: Path) -> None:
    server = ChatServer(reply=_judge)
    try:
        run = tmp_path / "run"
        done = creval("run", "metric-validity", "--model", "openai:judge", "--base-url", server.url,
                      "--metrics", "judge", "--judge-repeats", "2", "--judge-flip", "true",
                      "--out", str(run), "--no-progress", env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    (row,) = scores["separation"]
    items = load_domain("problem-solving")
    creative = [i for i in items if i.label == 1]
    expected_5 = sum(any(w in i.text for w in UNUSUAL)
                     for i in creative if "graphite pencil" not in i.text)
    assert row["metric"] == "judge" and row["n_creative"] == 9 and row["n_uncreative"] == 10
    assert scores["values"]["judge"]["creative"].count(5.0) == expected_5
    assert any("parse failure" in reason for reason in scores["excluded"])
    prompts = [b["messages"][-1]["content"] for b in server.bodies if b.get("messages")]
    assert sum("[Solution]" in p for p in prompts) == 20 * 2  # two repeats per text
    assert sum("Is this text" in p for p in prompts) == 20 * 2  # the paraphrased pair
    checks = {row["check"].split(" (")[0].split(" over")[0]: row for row in scores["judge_reliability"]}
    # joint filter: unconventionality >= 4 and efficiency >= 3 -> the unusual creative texts
    joint = checks["joint filter"]
    assert (joint["tp"], joint["fn"], joint["fp"], joint["tn"]) == (expected_5, 9 - expected_5, 0, 10)
    # 19 texts parse in both repeats; the one with "bottle" changes its score
    bottles = sum("bottle" in i.text for i in items if "graphite pencil" not in i.text)
    assert checks["consistency"]["texts"] == 19
    assert checks["consistency"]["value"] == pytest.approx(round((19 - bottles) / 19, 4))
    unusual_all = sum(any(w in i.text for w in UNUSUAL) for i in items)
    assert checks["flip rate"]["value"] == pytest.approx(round(unusual_all / 20, 4))


def _concepts(body: dict[str, Any]) -> tuple[int, str]:
    prompt = body["messages"][-1]["content"]
    if "graphite pencil" in prompt:
        return 200, "1. zipper\n2. pencil\n3. graphite"  # only three: a parse failure
    if "rubber band" in prompt:
        return 200, "1. rubber band\n2. jar lid\n3. vacuum seal\n4. kitchen counter\n5. grip"
    return 200, "1. jar\n2. lid\n3. hand\n4. twist\n5. kitchen"


def test_sns_through_a_server(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers", reason="needs the 'embed' extra")
    from creval.embed import get_embedder
    from creval.metrics.distance import mean_pairwise_cosine_distance

    server = ChatServer(reply=_concepts)
    try:
        run = tmp_path / "run"
        done = creval("run", "metric-validity", "--model", "openai:judge", "--base-url", server.url,
                      "--metrics", "sns", "--limit", "6", "--seed", "3", "--out", str(run),
                      "--no-progress", env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    values = [v["sns"] for v in scores["per_text"].values()]
    scored = sum(1 for v in scores["per_text"].values() if "sns" in v)
    failures = sum(n for reason, n in scores["excluded"].items() if reason.startswith("sns: parse failure"))
    prompts = [b["messages"][-1]["content"] for b in server.bodies if b.get("messages")]
    assert scored + failures == 6 and sum("core concepts" in p for p in prompts) == 6
    generic = mean_pairwise_cosine_distance(get_embedder("minilm").embed(["jar", "lid", "hand", "twist", "kitchen"]))
    assert any(v == pytest.approx(generic, abs=1e-6) for v in values)


def test_score_judge_and_sns_commands(tmp_path: Path) -> None:
    texts = tmp_path / "texts.jsonl"
    texts.write_text(
        '{"id": "a", "text": "Wrap a wide rubber band around the lid for grip."}\n'
        '{"id": "b", "text": "Rub a graphite pencil along the teeth of the zipper."}\n'
        '{"id": "c", "text": ""}\n', encoding="utf-8")

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        return _concepts(body) if "core concepts" in prompt else _judge(body)

    server = ChatServer(reply=reply)
    try:
        judged = creval("score", "judge", str(texts), "--domain", "problem-solving", "--judge",
                        "openai:j", "--base-url", server.url, env={"OPENAI_API_KEY": "test"})
        sns = creval("score", "sns", str(texts), "--judge", "openai:j", "--base-url", server.url,
                     env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert judged.returncode == 0, judged.stderr
    rows = {r["id"]: r for r in map(json.loads, judged.stdout.splitlines())}
    assert rows["a"]["scores"] == {"difficulty": 3, "unconventionality": 5, "efficiency": 4}
    assert "parse_error" in rows["b"] and rows["c"]["excluded"] == "empty text"
    assert sns.returncode == 0, sns.stderr
    rows = {r["id"]: r for r in map(json.loads, sns.stdout.splitlines())}
    assert 0.0 < rows["a"]["sns"] < 2.0 and "parse_error" in rows["b"]
    assert "1 scored, 2 excluded" in sns.stderr


def test_score_judge_rerun_answers_from_the_response_cache(tmp_path: Path) -> None:
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "a", "text": "Wrap a wide rubber band around the lid for grip."}\n'
                     '{"id": "b", "text": "Tap the lid on the counter to break the seal."}\n',
                     encoding="utf-8")
    server = ChatServer(reply=_judge)
    args = ("score", "judge", str(texts), "--domain", "problem-solving", "--judge", "openai:j",
            "--base-url", server.url, "--cache", str(tmp_path / "cache.sqlite"))
    env = {"OPENAI_API_KEY": "test"}
    try:
        first = creval(*args, env=env)
        asked = server.seen
        again = creval(*args, env=env)
        cached = server.seen - asked
        fresh = creval(*args, "--no-cache", env=env)
    finally:
        server.close()
    assert first.returncode == again.returncode == fresh.returncode == 0, again.stderr
    assert asked == 2 and cached == 0 and server.seen == 4  # --no-cache asks again
    assert again.stdout == first.stdout == fresh.stdout
