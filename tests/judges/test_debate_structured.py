"""The ChatEval debate judge asking for its verdicts' shape: the real small model (llama.cpp)
debates, its last-round verdicts and the presiding judge's answer constrained to JSON."""

from __future__ import annotations

import asyncio

import pytest

from creval.judges.debate import DEFAULT_PERSONAS, ChatEvalJudge
from creval.judges.registry import get_judge
from creval.judges.structured import text_budget, verdict_schema
from judges.recorder import Recorder

PROBLEM = ("Your cat is stuck on a 3-metre shelf. You have a chair, a blanket and a broom. "
           "How do you get the cat down?")  # fmt: skip
SOLUTION = "Step 1: Stand on the chair. Step 2: Lift the cat down gently."
CRITERIA = {"safety": "The solution does not put a person or the cat at risk of harm."}


def _run(judge: ChatEvalJudge) -> object:
    return asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain="macgyver"))


@pytest.mark.slow
def test_last_round_verdicts_are_constrained_and_parse_on_the_small_model() -> None:
    gen = Recorder()
    # 64 tokens: the JSON verdict still fits (text_budget leaves 48 tokens for its frame), and
    # the three free-text turns the last speakers read are shorter than at 96
    judge = ChatEvalJudge(gen, criteria=CRITERIA, rounds=2, max_tokens=64, structured=True)
    verdict = asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain="macgyver"))
    first, last = gen.requests[:3], gen.requests[3:]
    assert len(last) == len(DEFAULT_PERSONAS)
    assert all(r.response_schema is None for r in first)  # the discussion stays free text
    expected = verdict_schema(reasoning=True, confidence=False, reasoning_chars=text_budget(64))
    assert all(r.response_schema == expected for r in last)
    assert verdict.constrained and verdict.to_dict()["constrained"] is True
    assert not verdict.parse_failures, verdict.parse_failures
    votes = verdict.details["safety"]["votes"]
    assert set(votes) == {p.key for p in DEFAULT_PERSONAS} and None not in votes.values()
    assert verdict.verdicts["safety"] is not None  # three parsed votes: no tie
    # the rendered verdicts, not raw JSON, joined the history the last speakers read
    assert "Verdict: [[" in last[-1].messages[-1].text()


@pytest.mark.slow
def test_presiding_judge_answer_is_constrained_with_a_confidence() -> None:
    gen = Recorder()
    judge = ChatEvalJudge(gen, criteria=CRITERIA, rounds=1, aggregate="judge", max_tokens=64,
                          structured=True)  # fmt: skip
    verdict = asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain="macgyver"))
    assert gen.requests[-1].response_schema == verdict_schema(reasoning=True,
                                                              reasoning_chars=text_budget(64))  # fmt: skip
    assert not verdict.parse_failures, verdict.parse_failures
    assert verdict.verdicts["safety"] is not None and verdict.confidence["safety"] is not None
    assert verdict.constrained


def test_free_debate_sends_no_schema_and_records_it() -> None:
    gen = Recorder("I think it is fine. Verdict: [[YES]]")
    verdict = asyncio.run(ChatEvalJudge(gen, criteria=CRITERIA).evaluate(PROBLEM, SOLUTION,
                                                                         domain="macgyver"))  # fmt: skip
    assert all(r.response_schema is None for r in gen.requests)
    assert not verdict.constrained and verdict.to_dict()["constrained"] is False
    assert verdict.verdicts == {"safety": True}


def test_constrained_answer_cut_off_is_a_recorded_failure() -> None:
    gen = Recorder('{"reasoning": "It is safe", "verd')  # max_tokens ran out mid-JSON
    verdict = asyncio.run(ChatEvalJudge(gen, criteria=CRITERIA, rounds=1, structured=True)
                          .evaluate(PROBLEM, SOLUTION, domain="macgyver"))  # fmt: skip
    assert verdict.verdicts == {"safety": None} and verdict.constrained
    assert len(verdict.parse_failures) == len(DEFAULT_PERSONAS)


def test_registry_passes_structured_to_chateval() -> None:
    judge = get_judge("chateval", Recorder("x"), embedder="minilm", max_tokens=64, structured=True)
    assert isinstance(judge, ChatEvalJudge) and judge.structured and judge.max_tokens == 64
    assert not get_judge("chateval", Recorder("x"), embedder="minilm", max_tokens=64).structured  # type: ignore[attr-defined]
