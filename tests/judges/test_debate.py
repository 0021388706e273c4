"""The ChatEval-style debate judge against a scripted, deterministic stand-in model."""

from __future__ import annotations

import asyncio
import math
import re
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.judges.debate import DEFAULT_PERSONAS, ChatEvalJudge, Persona
from creval.models.base import Completion, GenerateRequest, Usage

PROBLEM = "A kite is stuck 5 m up in a tree. You have a 2 m broom and duct tape."
SOLUTION = "Step 1: Tape the broom to a branch. Step 2: Push the kite off."


def tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class ScriptedReferees:
    """Each referee argues a little; in its final turn it votes ``votes[persona]``."""

    def __init__(self, votes: dict[str, str] | None = None, judge_answer: str = "[[NO]] [[0.7]]"):
        self.votes = votes or {}
        self.judge_answer = judge_answer
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        await asyncio.sleep(0)
        prompt = request.messages[-1].text()
        crit = re.search(r"^Criterion: (.+)$", prompt, re.MULTILINE)
        criterion = crit.group(1) if crit else "?"
        speaker = re.search(r"It is your turn to speak, (.+?)\.", prompt)
        if speaker is None:
            who, text = "judge", self.judge_answer
        else:
            who = speaker.group(1)
            turn = sum(c["criterion"] == criterion for c in self.calls) + 1
            text = f"{who} on {criterion}, turn {turn}: the broom reaches about 4 m with an arm."
            if "This is your last turn" in prompt:
                vote = self.votes.get(who, "YES")
                text += f" Verdict: [[{vote}]]" if vote in ("YES", "NO") else " " + vote
        usage = Usage(input_tokens=tokens(prompt), output_tokens=tokens(text))
        self.calls.append({"who": who, "criterion": criterion, "prompt": prompt, "text": text,
                           "usage": usage})
        return [Completion(text=text, usage=usage)]


def run(judge: ChatEvalJudge, domain: str = "macgyver") -> Any:
    return asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain=domain))


def test_every_turn_sees_the_full_history_so_far() -> None:
    model = ScriptedReferees()
    run(ChatEvalJudge(model, rounds=3))
    turns = [c for c in model.calls if c["criterion"] == "Safety"]
    assert len(turns) == 3 * len(DEFAULT_PERSONAS)
    for i, call in enumerate(turns):
        history = call["prompt"].split("[Discussion so far]")[1].split("It is your turn")[0]
        for earlier in turns[:i]:
            assert earlier["text"] in history
        assert sum(history.count(t["text"]) for t in turns[i:]) == 0
    histories = [len(c["prompt"].split("[Discussion so far]")[1].split("\n\nYou are ")[0])
                 for c in turns]
    growth = [b - a for a, b in zip(histories[1:], histories[2:], strict=False)]  # after the first speaker
    assert all(g >= len(turns[0]["text"]) for g in growth)  # each turn adds a whole answer
    for persona in DEFAULT_PERSONAS:  # the same referee pays more input tokens every round
        sizes = [c["usage"].input_tokens for c in turns if c["who"] == persona.name]
        assert all(b > a for a, b in zip(sizes, sizes[1:], strict=False))


def test_order_is_one_by_one_and_only_the_last_round_votes() -> None:
    model = ScriptedReferees()
    verdict = run(ChatEvalJudge(model, rounds=2))
    turns = [c for c in model.calls if c["criterion"] == "Feasibility"]
    assert [t["who"] for t in turns] == [p.name for p in DEFAULT_PERSONAS] * 2
    assert ["This is your last turn" in t["prompt"] for t in turns] == [False] * 3 + [True] * 3
    assert verdict.rounds == {"feasibility": 2, "safety": 2, "effectiveness": 2}
    assert len(model.calls) == 3 * 2 * 3


def test_majority_vote_and_its_confidence() -> None:
    model = ScriptedReferees(votes={"General Public": "YES", "Critic": "NO", "Scientist": "NO"})
    verdict = run(ChatEvalJudge(model))
    assert set(verdict.verdicts.values()) == {False}
    assert verdict.confidence["safety"] == pytest.approx(2 / 3)
    assert verdict.overall == 0.0
    assert verdict.details["safety"]["votes"] == {"general_public": True, "critic": False,
                                                  "scientist": False}


def test_unparsed_vote_is_recorded_and_a_tie_gives_none() -> None:
    model = ScriptedReferees(votes={"General Public": "YES", "Critic": "NO",
                                    "Scientist": "I lean towards yes."})
    verdict = run(ChatEvalJudge(model))
    assert set(verdict.verdicts.values()) == {None}
    assert verdict.overall is None
    assert verdict.details["safety"]["tie"] is True
    assert {(f.role, f.stage) for f in verdict.parse_failures} == {("scientist", "final")}
    assert verdict.n_parse_failures == 3
    assert all("I lean towards yes." in f.raw for f in verdict.parse_failures)


def test_judge_aggregation_reads_the_whole_transcript() -> None:
    model = ScriptedReferees(votes={"General Public": "YES", "Critic": "YES", "Scientist": "YES"})
    verdict = run(ChatEvalJudge(model, aggregate="judge"))
    judge_calls = [c for c in model.calls if c["who"] == "judge"]
    assert len(judge_calls) == 3
    for call in judge_calls:
        debate = [c for c in model.calls if c["criterion"] == call["criterion"] and c["who"] != "judge"]
        assert all(d["text"] in call["prompt"] for d in debate)
    assert set(verdict.verdicts.values()) == {False}
    assert verdict.confidence["feasibility"] == pytest.approx(0.7)
    assert verdict.usage["judge"].calls == 3


def test_token_usage_per_persona_sums_to_the_total() -> None:
    model = ScriptedReferees()
    verdict = run(ChatEvalJudge(model, aggregate="judge"))
    assert set(verdict.usage) == {"general_public", "critic", "scientist", "judge"}
    total = verdict.total_usage
    assert total.input_tokens == sum(c["usage"].input_tokens for c in model.calls)
    assert total.output_tokens == sum(c["usage"].output_tokens for c in model.calls)
    assert total.calls == len(model.calls)
    assert sum(u.calls for u in verdict.stage_usage.values()) == total.calls


def test_custom_personas_and_criteria() -> None:
    personas = [Persona("Engineer", "You check the mechanics."), Persona("Nurse", "You check harm.")]
    model = ScriptedReferees(votes={"Engineer": "YES", "Nurse": "YES"})
    verdict = run(ChatEvalJudge(model, personas=personas, rounds=1,
                                criteria={"clarity": "Easy to follow."}), domain="x")
    assert verdict.verdicts == {"clarity": True}
    assert [c["who"] for c in model.calls] == ["Engineer", "Nurse"]
    assert "You check harm." in model.calls[1]["prompt"]


@pytest.mark.parametrize("kwargs", [{"rounds": 0}, {"aggregate": "mean"}, {"personas": []},
                                    {"personas": [Persona("A", "x"), Persona("a", "y")]},
                                    {"prompt_files": {"judge_ma_verdict": "x"}}])
def test_invalid_settings_are_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises(CrevalError):
        ChatEvalJudge(ScriptedReferees(), **kwargs)
