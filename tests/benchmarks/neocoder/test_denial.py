"""Denial Prompting (Algorithm 1) and the reasoning strategies, driven by scripted models.

The scripted chat and detector are plain functions standing in for a remote model, so the
algorithm's bookkeeping (one conversation, context-free detection, seeded draws, rounds
that find nothing new) can be checked exactly.
"""

from __future__ import annotations

import asyncio
import random

from creval.benchmarks.neocoder.data import Problem, states
from creval.benchmarks.neocoder.denial import (
    CONSTRAINT_HEADER,
    constrained_statement,
    denial_prompting,
)
from creval.benchmarks.neocoder.strategies import Sampling, solve
from creval.models.base import Completion, GenerateRequest, Message

STATEMENT = "A. Sum\nAdd the numbers.\nInput\nOne line.\nOutput\nThe sum."
#: what each round's answer "uses", by round number
USES = [["for loop", "if statement"], ["while loop", "if statement"], ["recursion"],
        ["recursion"], ["sorting", "recursion"], ["set"]]


def run_denial(seed: int, rounds: int = 5) -> tuple[object, list[list[Message]], list[str]]:
    chats: list[list[Message]] = []
    detected_inputs: list[str] = []

    async def chat(messages: list[Message]) -> str:
        chats.append(messages)
        return f"answer {len(chats) - 1}"

    async def detect(answer: str) -> list[str] | None:
        detected_inputs.append(answer)
        number = int(answer.split()[-1])
        return None if number == 3 else USES[number]  # round 3: the detector's answer did not parse

    result = asyncio.run(denial_prompting(STATEMENT, ask=lambda s: f"Solve:\n{s}", chat=chat,
                                          detect=detect, rounds=rounds, rng=random.Random(seed)))
    return result, chats, detected_inputs


def test_constraints_grow_from_detected_techniques_only() -> None:
    result, chats, detected = run_denial(seed=1)
    rounds = result.rounds  # type: ignore[attr-defined]
    assert len(rounds) == 6 and len(chats) == 6
    for before, after in zip(rounds, rounds[1:], strict=False):
        new = before.new_constraint
        if new is None:
            assert after.constraints == before.constraints
        else:
            assert new in (before.detected or []) and new not in before.constraints
            assert after.constraints == [*before.constraints, new]
    # round 2 can only deny recursion; round 3's detection did not parse: nothing is added
    assert rounds[2].new_constraint == "recursion" and rounds[3].detected is None
    assert rounds[3].new_constraint is None and rounds[4].constraints == rounds[3].constraints
    # one conversation that grows; detection sees the answer alone, never the chat
    assert [len(c) for c in chats] == [1, 3, 5, 7, 9, 11]
    assert chats[-1][1].content == "answer 0" and chats[-1][1].role == "assistant"
    assert detected == [f"answer {i}" for i in range(5)]
    assert CONSTRAINT_HEADER in chats[-1][-1].content


def test_draws_are_seeded() -> None:
    a, _, _ = run_denial(seed=7)
    b, _, _ = run_denial(seed=7)
    assert [r.constraints for r in a.rounds] == [r.constraints for r in b.rounds]  # type: ignore[attr-defined]
    draws = {tuple(run_denial(seed=s)[0].rounds[1].constraints) for s in range(20)}  # type: ignore[attr-defined]
    assert draws == {("for loop",), ("if statement",)}


def test_upstream_entry_round_trips_through_states() -> None:
    result, _, _ = run_denial(seed=3)
    entry = result.upstream_entry("X1", lambda a: a)  # type: ignore[attr-defined]
    assert entry["constraints_list"][0] == ["this is the og problem"]
    problem = Problem(**entry)
    got = states([problem])
    assert [s.t for s in got] == sorted({len(r.constraints) for r in result.rounds})  # type: ignore[attr-defined]
    assert got[0].statement == STATEMENT
    assert constrained_statement(STATEMENT, ["a", "b"]).splitlines()[2:4] == ["- b", "- a"]


def scripted_generate(log: list[GenerateRequest]) -> object:
    async def generate(request: GenerateRequest) -> list[Completion]:
        log.append(request)
        last = request.messages[-1].text()
        return [Completion(text=f"reply {len(log)} to {last[:12]}") for _ in range(request.n)]

    return generate


def test_strategies_shape_their_conversations() -> None:
    sampling = Sampling(temperature=1.0, max_tokens=64, seed=5, system="SYSTEM")
    log: list[GenerateRequest] = []
    out = asyncio.run(solve("sampling", scripted_generate(log), "problem", sampling, k=5))  # type: ignore[arg-type]
    assert len(out["answers"]) == 5 and log[0].n == 5 and log[0].messages[0].text() == "SYSTEM"

    log.clear()
    out = asyncio.run(solve("planning", scripted_generate(log), "problem", sampling,  # type: ignore[arg-type]
                            plan_template="Plan for {problem}", code_after_plan="Code for {plan}"))
    assert len(log) == 2 and [m.role for m in log[1].messages] == ["system", "user", "assistant", "user"]
    assert log[1].messages[-1].text().startswith("Code for reply 1")

    log.clear()
    feedback_calls: list[str] = []

    async def feedback(answer: str) -> str | None:
        feedback_calls.append(answer)
        return None if len(feedback_calls) == 2 else "wrong answer on test 1"

    out = asyncio.run(solve("self_correction", scripted_generate(log), "problem", sampling,  # type: ignore[arg-type]
                            rounds=3, feedback=feedback, revise_template="Fix: {feedback}"))
    assert len(log) == 2 and out["answers"] == [feedback_calls[-1]]
    assert log[1].messages[-1].text() == "Fix: wrong answer on test 1"
    assert [t["feedback"] for t in out["trace"]] == ["wrong answer on test 1", None]
