"""The paper's four ways of asking for k answers, as the endpoint receives them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from creval.benchmarks.noveltybench.data import load_prompts
from creval.benchmarks.noveltybench.protocol import parse_rating, parse_same
from tests._cli import creval
from tests._servers import ChatServer, novelty_same


def run(tmp: Path, sampling: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        text = body["messages"][-1]["content"]
        if (verdict := novelty_same(text)) is not None:  # the judge: answers differ unless equal
            return 200, verdict
        turns = sum(m["role"] == "assistant" for m in body["messages"])
        return 200, f"answer {body.get('seed', 0) + turns} to {body['messages'][0]['content'][:20]}"

    server = ChatServer(reply=reply)
    try:
        done = creval("run", "noveltybench", "--model", f"openai:m-{sampling}", "--base-url",
                      server.url, "--api-key", "x", "--judge", "openai:j", "--quality", "none",
                      "--sampling", sampling, "--k", "3", "--limit", "1", "--no-progress",
                      "--out", str(tmp / sampling))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    targets = [b for b in server.bodies if b["model"] == f"m-{sampling}"]
    return targets, json.loads((tmp / sampling / "scores.json").read_text())


def test_default_asks_k_samples_of_the_prompt(tmp_path: Path) -> None:
    bodies, scores = run(tmp_path, "default")
    prompt = load_prompts(None, None)[0].prompt
    assert all(b["messages"] == [{"role": "user", "content": prompt}] for b in bodies)
    assert [b["seed"] for b in bodies] == [0, 1, 2]  # one sample a reply: topped up, seed + i
    assert scores["table"][0]["distinct"] == 3  # three different replies, three classes


def test_paraphrase_asks_answer_i_with_paraphrase_i(tmp_path: Path) -> None:
    bodies, _ = run(tmp_path, "paraphrase")
    para = load_prompts(None, None)[0].prompt_paraphrases
    assert [b["messages"][0]["content"] for b in bodies] == para[:3]


def test_in_context_grows_one_conversation(tmp_path: Path) -> None:
    bodies, _ = run(tmp_path, "in-context")
    assert [len(b["messages"]) for b in bodies] == [1, 3, 5]
    assert bodies[2]["messages"][1]["role"] == "assistant"
    assert "different" in bodies[2]["messages"][2]["content"]


def test_system_sends_the_system_prompt(tmp_path: Path) -> None:
    bodies, _ = run(tmp_path, "system")
    assert all(b["messages"][0]["role"] == "system" for b in bodies)


@pytest.mark.parametrize(("text", "same"), [("same", True), ('{"verdict": "different"}', False),
                                            ("Different. Not the same.", False), ("", None)])
def test_verdicts(text: str, same: bool | None) -> None:
    assert parse_same(text) is same


def test_ratings() -> None:
    assert [parse_rating(t) for t in ['{"rating": 7}', "10", "0", "rating: 11"]] == [7, 10, None, None]
