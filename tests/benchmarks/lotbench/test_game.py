"""LoTbench: the sample format, the evaluators' strict parsing, whole games with scripted
players and evaluators (solved at a known round, and never solved), and S_c from records."""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.common import load_prompt
from creval.benchmarks.lotbench.data import load_samples
from creval.benchmarks.lotbench.evaluators import parse_answer, parse_verdict
from creval.benchmarks.lotbench.game import GameSettings, Templates, play_game
from creval.benchmarks.lotbench.scoring import (
    leaderboard_position,
    load_leaderboard,
    score_lotbench,
)
from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest, Usage
from creval.runner.store import Record

SAMPLE = {"id": "s1", "input": "Describe your cat at 5 a.m.", "caption": "A cat wakes its owner.",
          "response": "A [[debt collector]] with whiskers", "explanation": "It demands payment.",
          "clues": ["It is a job.", "", "It is about money."]}
TEMPLATES = Templates(fill=(load_prompt("lotbench_fill"), "lotbench_fill"),
                      ask=(load_prompt("lotbench_ask"), "lotbench_ask"))


def write(tmp_path: Path, *items: dict[str, Any]) -> str:
    path = tmp_path / "samples.jsonl"
    path.write_text("\n".join(json.dumps(i) for i in items) + "\n")
    return str(path)


class Script:
    """A generate function answering from ``reply(prompt)``; it records every prompt."""

    def __init__(self, reply: Any) -> None:
        self.reply, self.prompts = reply, []  # type: ignore[var-annotated]

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        prompt = request.messages[-1].text()
        self.prompts.append(prompt)
        text = self.reply(prompt)
        return [Completion(text=text, usage=Usage(input_tokens=len(prompt.split()),
                                                  output_tokens=len(text.split())))]


def player(fills: list[str]) -> Script:
    """Fills in order (one per round); always asks the same question."""
    state = {"round": 0}

    def reply(prompt: str) -> str:
        if "Reply with the question only" in prompt:
            return "Question: Is it a job?"
        state["round"] += 1
        return f"Fill: {fills[state['round'] - 1]}"

    return Script(reply)


def e1_accepting(word: str) -> Script:
    def reply(prompt: str) -> str:
        if "Write three short sections" in prompt:
            return "Scene chain: cat -> owner\nResponse chain: collector -> debt\nMapping: food is rent"
        fill = re.search(r"Candidate's words in place of the key words: (.*)", prompt).group(1)  # type: ignore[union-attr]
        return "Same leap.\nVerdict: DAESO" if word in fill else "Literal.\nVerdict: NOT DAESO"

    return Script(reply)


def game(sample: Any, tested: Script, e1: Script, e2: Script, **settings: Any) -> dict[str, Any]:
    return asyncio.run(play_game(sample, GameSettings(**settings), TEMPLATES, tested=tested, e1=e1, e2=e2))


def test_sample_format_and_key_text(tmp_path: Path) -> None:
    (sample,) = load_samples(write(tmp_path, SAMPLE))
    assert (sample.key, sample.masked, sample.response) == (
        "debt collector", "A <MASK> with whiskers", "A debt collector with whiskers")
    assert sample.clues == ("It is a job.", "It is about money.")  # the empty clue is no clue
    assert len(load_samples(None)) == 20


@pytest.mark.parametrize(
    ("change", "message"),
    [({"response": "A debt collector with whiskers"}, "no marked key text"),
     ({"response": "A [[debt]] [[collector]]"}, "marks 2 key texts"),
     ({"input": None}, "give the input text or an image"),
     ({"caption": ""}, "field 'caption'"),
     ({"input": None, "image": "missing.png"}, "missing.png does not exist")],
)
def test_bad_samples_are_named(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    with pytest.raises(CrevalError, match=message):
        load_samples(write(tmp_path, SAMPLE | change))


def test_evaluator_parsing_is_strict() -> None:
    assert parse_verdict("**Verdict:** NOT DAESO").daeso is False
    assert parse_verdict("verdict: daeso.").daeso is True
    assert parse_verdict("Verdict: DAESO\nVerdict: NOT DAESO").error == "both DAESO and NOT DAESO verdict lines"
    assert parse_verdict("They are DAESO.").daeso is None
    assert parse_answer("Answer: Irrelevant").answer == "IRRELEVANT"
    assert parse_answer("Yes, it is.").answer is None


def test_game_reaches_daeso_at_round_three_with_a_clue_after_round_two(tmp_path: Path) -> None:
    (sample,) = load_samples(write(tmp_path, SAMPLE))
    tested = player(["pet", "landlord", "loan shark"])
    e1 = e1_accepting("loan shark")
    e2 = Script(lambda p: "Answer: YES")
    result = game(sample, tested, e1, e2, clue_every=2, max_rounds=10)
    assert result["solved_round"] == 3
    rounds = result["rounds"]
    assert [r["verdict"] for r in rounds] == ["NOT DAESO", "NOT DAESO", "DAESO"]
    assert rounds[2]["candidate"] == "A loan shark with whiskers"
    assert "clue" not in rounds[0] and rounds[1]["clue"] == "It is a job."
    assert "question" not in rounds[2]  # solved: no question asked
    # the third fill prompt shows the history: both fills, the Q/A, and the clue
    third = [p for p in tested.prompts if "Reply with the words" in p][2]
    assert '"pet": not it' in third and '"landlord": not it' in third
    assert "The answer: YES" in third and "Clue: It is a job." in third
    # E1's causal analysis is built once per game; one verdict per round
    assert sum("Write three short sections" in p for p in e1.prompts) == 1
    assert len(e1.prompts) == 4 and len(e2.prompts) == 2
    usage = result["usage"]
    assert usage["tested"]["calls"] == 5 and usage["e1"]["calls"] == 4 and usage["e2"]["calls"] == 2
    assert usage["e1"]["input_tokens"] == sum(len(p.split()) for p in e1.prompts)
    assert rounds[0]["usage"]["e1"]["calls"] == 2 and rounds[1]["usage"]["e1"]["calls"] == 1


def test_game_that_never_reaches_daeso(tmp_path: Path) -> None:
    (sample,) = load_samples(write(tmp_path, SAMPLE))
    tested = player(["pet"] * 7)
    result = game(sample, tested, e1_accepting("loan shark"),
                  Script(lambda p: "no idea"), clue_every=3, max_rounds=7)
    assert result["solved_round"] is None and len(result["rounds"]) == 7
    assert [r.get("clue") for r in result["rounds"]] == [None, None, "It is a job.", None, None,
                                                          "It is about money.", None]
    assert result["e2_parse_failures"] == 7 and result["e2_answers"] == 7
    second = [p for p in tested.prompts if "Reply with the words" in p][1]
    assert "The answer: no usable answer" in second


def test_unparsable_verdicts_and_empty_fills_are_counted(tmp_path: Path) -> None:
    (sample,) = load_samples(write(tmp_path, SAMPLE))
    e1 = Script(lambda p: "Mapping: x" if "Write three" in p else "I think so.")
    result = game(sample, player(["", "pet", "pet"]), e1, Script(lambda p: "Answer: NO"), max_rounds=3)
    assert result["solved_round"] is None
    assert result["empty_fills"] == 1 and result["rounds"][0]["verdict"] is None
    assert result["e1_parse_failures"] == 2 and result["e1_verdicts"] == 2
    assert len(e1.prompts) == 3  # analysis + 2 verdicts: the empty fill was not judged


def games_record(sample: str, repeat: int, solved: int | None) -> Record:
    return Record(key=f"{sample}-{repeat}", status="ok", unit={"sample_id": sample, "repeat": repeat},
                  output={"sample_id": sample, "solved_round": solved, "rounds": [
                      {"round": 1, "fill": "x", "usage": {"tested": {"input_tokens": 10, "output_tokens": 2, "calls": 2}}}],
                      "usage": {"tested": {"input_tokens": 10, "output_tokens": 2, "calls": 2}},
                      "e1_verdicts": 1, "e1_parse_failures": 1, "e2_answers": 0, "e2_parse_failures": 0,
                      "empty_fills": 0})


def options(**kw: Any) -> SimpleNamespace:
    base = dict(alpha=0.2, beta=1.0, unsolved=0.0, max_rounds=10, confidence=0.95, seed=0,
                e1_mode="causal", leaderboard=None)
    return SimpleNamespace(**(base | kw))


def test_sc_from_records_hand_calculation() -> None:
    # s1 solved at rounds 1 and 4, s2 once unsolved and once at 10:
    # S_c = (e^-0.2 + e^-0.8 + 0 + e^-2) / 4 = (0.818731 + 0.449329 + 0.135335) / 4 = 0.350849
    records = [games_record("s1", 0, 1), games_record("s1", 1, 4), games_record("s2", 0, None),
               games_record("s2", 1, 10)]
    scores = score_lotbench(records, options())
    h = scores.headline
    assert h["S_c"] == pytest.approx((math.exp(-0.2) + math.exp(-0.8) + math.exp(-2)) / 4)
    assert h["S_c_low"] is None and h["S_c_high"] is None  # 2 samples: too few for an interval
    assert h["games"] == 4 and h["solved"] == 3 and h["e1_parse_failure_rate"] == 1.0
    hist = {r["round"]: r["games"] for r in scores.sections[0]["rows"]}
    assert hist == {1: 1, 4: 1, 10: 1, "unsolved": 1}
    assert h["rounds_to_daeso"] == "round 1: 1, round 4: 1, round 10: 1, unsolved: 1"
    (per_round,) = scores.sections[1]["rows"]  # every game's one round: 10 + 2 tokens, 2 calls
    assert (per_round["tested_tokens"], per_round["tested_requests"], per_round["e1_requests"]) == (12, 2, 0)
    tested = scores.sections[2]["rows"][0]
    assert (tested["role"], tested["tokens"], tested["requests_per_game"]) == ("tested", 48, 2)
    unsolved_counts = score_lotbench(records, options(unsolved=0.1)).headline["S_c"]
    assert unsolved_counts == pytest.approx(h["S_c"] + 0.1 / 4)


def test_leaderboard_position_on_the_published_board() -> None:
    board = load_leaderboard(str(shared_data_path("lotbench", "leaderboard.json")))
    models = [r for r in board if r["type"] != "human_expert"]
    assert len(models) == 32 and len(board) == 35
    pos = leaderboard_position(0.1, board)
    above = sum(r["score"] > 0.1 for r in models)
    assert pos["rank_among_models"] == f"{above + 1} of 33"
    assert pos["human_groups_below"] == ["Human (low)", "Human (medium)"]
    assert pos["human_groups_above"] == ["Human (high)"]


def test_bad_leaderboard(tmp_path: Path) -> None:
    bad = tmp_path / "b.json"
    bad.write_text('{"records": [{"title": "x"}]}')
    with pytest.raises(CrevalError, match="expected"):
        load_leaderboard(str(bad))


def test_evaluator_prompts_are_replaceable(tmp_path: Path) -> None:
    from creval.benchmarks.lotbench.evaluators import AnswerJudge, DaesoJudge

    (sample,) = load_samples(write(tmp_path, SAMPLE))
    chain, verdict, answer = tmp_path / "chain.txt", tmp_path / "verdict.txt", tmp_path / "e2.txt"
    chain.write_text("MY CHAIN for {key} in {caption}")
    verdict.write_text("MY VERDICT {candidate} vs {response} after {analysis}")
    answer.write_text("MY E2 {question} about {key}")
    model = Script(lambda p: "Mapping: ok" if p.startswith("MY CHAIN") else "Verdict: DAESO\nAnswer: NO")
    judge = DaesoJudge(model, prompt_file=str(verdict), chain_prompt_file=str(chain))
    assert asyncio.run(judge.evaluate(sample, "loan shark")).daeso is True
    assert asyncio.run(AnswerJudge(model, prompt_file=str(answer)).evaluate(sample, "Is it?")).answer == "NO"
    assert model.prompts == [
        "MY CHAIN for debt collector in A cat wakes its owner.",
        "MY VERDICT A loan shark with whiskers vs A debt collector with whiskers after Mapping: ok",
        "MY E2 Is it? about debt collector"]
    assert judge.ledger.by_role()["e1"].calls == 2
    bad = tmp_path / "bad.txt"
    bad.write_text("{nope}")
    with pytest.raises(CrevalError, match="placeholder"):
        asyncio.run(DaesoJudge(model, prompt_file=str(bad), mode="zeroshot").evaluate(sample, "x"))


def test_constrained_evaluators_ask_for_json_and_parse_it_strictly(tmp_path: Path) -> None:
    (sample,) = load_samples(write(tmp_path, SAMPLE))
    schemas: list[Any] = []

    class JsonJudge(Script):
        async def __call__(self, request: GenerateRequest) -> list[Completion]:
            schemas.append(request.response_schema)
            return await super().__call__(request)

    def e1_reply(prompt: str) -> str:
        if "Write three short sections" in prompt:
            return "Mapping: food is rent"
        if "landlord" in prompt:
            return '{"reasoning": "Cut off at max_tok'  # JSON cut short: a parse failure
        word = "loan shark" in prompt.split("Candidate (R_t):")[1]
        return json.dumps({"reasoning": "Same leap." if word else "Literal.",
                           "verdict": "DAESO" if word else "NOT DAESO"})

    e1 = JsonJudge(e1_reply)
    e2 = JsonJudge(lambda p: '{"answer": "NO"}')
    result = asyncio.run(play_game(sample, GameSettings(max_rounds=5), TEMPLATES,
                                   tested=player(["pet", "landlord", "loan shark"]), e1=e1, e2=e2,
                                   structured=True))
    assert result["solved_round"] == 3 and result["evaluators_constrained"] is True
    assert [r["verdict"] for r in result["rounds"]] == ["NOT DAESO", None, "DAESO"]
    assert result["e1_parse_failures"] == 1 and result["rounds"][0]["answer"] == "NO"
    # the analysis is free text; the verdicts and the answers carry their JSON schema
    kinds = [None if s is None else sorted(s["properties"]) for s in schemas]
    assert kinds.count(None) == 1 and kinds.count(["reasoning", "verdict"]) == 3
    assert kinds.count(["answer"]) == 2
