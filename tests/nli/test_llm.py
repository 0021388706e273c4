"""The ``llm`` entailment backend through the real ``openai`` model backend, against a chat
server on loopback that answers like a scripted judge."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _servers import ChatServer

from creval.errors import CrevalError
from creval.models import ModelOptions, get_model
from creval.nli import CachingEntailment, NLIResult, get_entailment, partition_texts
from creval.nli.llm import LLMEntailment, default_entailment_prompt, parse_entailment_answer

# What the scripted judge answers for a hypothesis (after reading it from the prompt).
ANSWERS = {
    "The kettle boils water.": "Entailment",
    "Water is heated in the kettle.": "entailment.",
    "The kettle is empty.": "**contradiction**",
    "Someone sings.": "neutral",
    "A riddle.": "I would say entailment, mostly",
    "Silence.": "",
}


def _judge(body: dict[str, Any]) -> tuple[int, str]:
    prompt = body["messages"][-1]["content"]
    hypothesis = re.search(r"Statement B:\n(.*)\n", prompt)
    assert hypothesis is not None, prompt
    return 200, ANSWERS[hypothesis.group(1)]


@pytest.fixture
def server() -> Iterator[ChatServer]:
    s = ChatServer(reply=_judge)
    yield s
    s.close()


def _run(server: ChatServer, coro_factory: Any) -> Any:
    model = get_model("openai:judge-model", ModelOptions(base_url=server.url, api_key="sk-test"))

    async def go() -> Any:
        try:
            return await coro_factory(model)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_answers_are_parsed_strictly_and_failures_recorded(server: ChatServer) -> None:
    pairs = [("The kettle boils water.", h) for h in ANSWERS]

    async def go(model: Any) -> tuple[list[NLIResult], Any]:
        cache = CachingEntailment(get_entailment("llm", generate=model.generate))
        return await cache.classify(pairs), cache.failures()

    results, failures = _run(server, go)
    assert [r.label for r in results] == [
        "entailment", "entailment", "contradiction", "neutral", "neutral", "neutral",
    ]
    assert [r.failed for r in results] == [False, False, False, False, True, True]
    assert results[4].raw == "I would say entailment, mostly"
    assert "unparseable" in (results[4].failure or "")
    assert results[0].raw == "Entailment" and results[0].probabilities is None
    assert failures == [(pairs[4], results[4]), (pairs[5], results[5])]
    # One greedy request per pair, with premise and hypothesis in their places.
    assert server.seen == len(pairs)
    body = server.bodies[0]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 8
    prompt = body["messages"][-1]["content"]
    assert prompt.index("The kettle boils water.") < prompt.index("Statement B:")


def test_identity_names_the_prompt_and_the_model(server: ChatServer) -> None:
    async def go(model: Any) -> dict[str, Any]:
        return LLMEntailment(model.generate).identity()

    identity = _run(server, go)
    assert identity["backend"] == "llm"
    assert identity["model"]["model"] == "judge-model"
    assert len(identity["prompt_sha256"]) == 64
    json.dumps(identity)  # plain data, for manifests


def test_prompt_file(server: ChatServer, tmp_path: Path) -> None:
    good = tmp_path / "p.txt"
    good.write_text("Premise: {premise}\nStatement B:\n{hypothesis}\nOne word {{label}}.\n")

    async def go(model: Any) -> list[NLIResult]:
        nli = get_entailment("llm", generate=model.generate, prompt_file=good)
        return await nli.classify([("x", "Someone sings.")])

    (result,) = _run(server, go)
    assert result.label == "neutral" and not result.failed
    assert server.bodies[0]["messages"][-1]["content"].startswith("Premise: x\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("Only {premise} here")
    with pytest.raises(CrevalError, match=r"must contain \{hypothesis\}"):
        LLMEntailment(lambda r: None, prompt_file=bad)  # type: ignore[arg-type, return-value]
    bad.write_text("{premise} {hypothesis} {other}")
    with pytest.raises(CrevalError, match="placeholder"):
        LLMEntailment(lambda r: None, prompt_file=bad)  # type: ignore[arg-type, return-value]
    with pytest.raises(CrevalError, match="does not exist"):
        LLMEntailment(lambda r: None, prompt_file=tmp_path / "none.txt")  # type: ignore[arg-type, return-value]


def test_partition_with_an_llm_asks_each_ordered_pair_once(server: ChatServer) -> None:
    texts = ["The kettle boils water.", "Water is heated in the kettle.", "The kettle boils water.",
             "Someone sings."]

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        a = re.search(r"Statement A:\n(.*)\n", prompt)
        b = re.search(r"Statement B:\n(.*)\n", prompt)
        assert a and b
        kettle = ["kettle" in a.group(1), "kettle" in b.group(1)]
        return 200, "entailment" if all(kettle) else "neutral"

    server2 = ChatServer(reply=reply)
    try:
        async def go(model: Any) -> Any:
            cache = CachingEntailment(get_entailment("llm", generate=model.generate))
            first = await partition_texts(texts, cache)
            second = await partition_texts(texts, cache)
            return first, second, cache.counts()

        first, second, counts = _run(server2, go)
    finally:
        server2.close()
    assert first.class_ids == second.class_ids == (0, 0, 0, 1)
    # Rep 0 vs "Water..." and vs "Someone..." (the duplicate needs no call): 4 ordered pairs;
    # rep "Someone..." has nobody left to compare with.
    assert first.entailment_calls == 4
    assert counts["calls"] == server2.seen == 4
    assert counts["batches"] == 1


def test_parse_entailment_answer() -> None:
    assert parse_entailment_answer("  'NEUTRAL'  ") == "neutral"
    assert parse_entailment_answer("contradiction.\n") == "contradiction"
    for bad in ("", "entail", "entailment or neutral", "Answer: entailment", "yes"):
        assert parse_entailment_answer(bad) is None
    assert "{premise}" in default_entailment_prompt()
