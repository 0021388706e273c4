"""Instruments asking for their answer's shape: schemas built from the strict parsers, judges
that send them (real llama.cpp where a model answers), departure 6's knobs and baselines."""

from __future__ import annotations

import asyncio
import json

import pytest

from creval.benchmarks.dat import render_word_list, word_list_schema
from creval.benchmarks.dat.lists import parse_word_list
from creval.benchmarks.neocoder.techniques import detection_request, parse_techniques
from creval.judges.criteria import parse_binary, parse_confidence, parse_stance
from creval.judges.multiagent import MultiAgentJudge
from creval.judges.multiagent_roles import parse_discussion
from creval.judges.registry import get_judge, judge_names, register_judge
from creval.judges.rubric import TTCT_CRITERIA_EN, TTCT_CRITERIA_JA, parse_rubric
from creval.judges.single import SingleAgentJudge
from creval.judges.structured import (
    as_text,
    confidence_schema,
    discussion_schema,
    render_confidence,
    render_discussion,
    render_rubric,
    render_short_verdict,
    render_verdict,
    rubric_schema,
    verdict_schema,
)
from creval.models import GenerateRequest, get_model
from judges.recorder import Recorder

PROBLEM = ("Your cat is stuck on a 3-metre shelf. You have a chair, a blanket and a broom. "
           "How do you get the cat down?")  # fmt: skip
SOLUTION = "Step 1: Stand on the chair. Step 2: Lift the cat down gently."


# -- renderings the strict parsers read --------------------------------------------------------
def test_rendered_shapes_parse_strictly() -> None:
    rubric = as_text('{"流暢性": 5, "柔軟性": 4, "独創性": 3, "精緻性": 2}', render_rubric)
    assert parse_rubric(rubric, TTCT_CRITERIA_JA).scores == {
        "fluency": 5, "flexibility": 4, "originality": 3, "elaboration": 2}  # fmt: skip
    # strict parsing stays: a value out of range in the JSON is still an error
    bad = as_text('{"Fluency": 6, "Flexibility": 4, "Originality": 3, "Elaboration": 2}', render_rubric)
    assert parse_rubric(bad, TTCT_CRITERIA_EN).error == "fluency = 6 is outside 1..5"
    verdict = as_text('{"reasoning": "ok", "verdict": "NO", "confidence": "0.7"}', render_verdict)
    assert parse_binary(verdict) == (False, None) and parse_confidence(verdict) == (0.7, None)
    conf = as_text('{"explanation": "clear", "confidence": "0.6", "stance": "YES"}', render_confidence)
    assert parse_confidence(conf) == (0.6, None) and parse_stance(conf) == (True, None)
    turn = parse_discussion(as_text(json.dumps({"answers": "", "opinion": "It works.", "questions": [
        {"to": "solution", "question": "Is the chair stable?"}]}), render_discussion),
        speaker="problem_analyst")  # fmt: skip
    assert turn.opinion == "It works." and turn.questions == {"solution_analyst": ["Is the chair stable?"]}
    short = as_text('{"verdict": "NO", "justification": "The shelf is too high."}', render_short_verdict)
    assert parse_binary(short) == (False, None)
    # a raw line break inside a string (let through by some grammars) still decodes
    broken = '{"answers": "", "opinion": "It works,\n", "questions": []}'
    assert parse_discussion(as_text(broken, render_discussion), speaker="problem_analyst").opinion
    # a cut-off answer is left for the parser to reject, never completed
    assert parse_binary(as_text('{"verdict": "YE', render_verdict))[0] is None
    words = parse_word_list(as_text('["cat", "ocean", "justice"]', render_word_list), expected=3)
    assert words == ["cat", "ocean", "justice"]


def _local_answer(request: GenerateRequest) -> str:
    (c,) = asyncio.run(get_model("local").generate(request))
    return c.text


def test_small_model_constrained_rubric_and_detection_parse() -> None:
    labels = [c.labels[0].capitalize() for c in TTCT_CRITERIA_EN]
    prompt = "Rate this answer to 'uses of a brick': 'build a wall, a doorstop'. Fluency, " \
             "Flexibility, Originality, Elaboration, 1-5 each."
    req = GenerateRequest.chat(prompt, temperature=0.0, max_tokens=64, response_schema=rubric_schema(labels))
    assert parse_rubric(as_text(_local_answer(req), render_rubric), TTCT_CRITERIA_EN).ok
    code = "def solve():\n    for i in range(3):\n        print(i)\n"
    text = _local_answer(detection_request(code, constrained=True))
    assert detection_request(code).response_schema is None
    assert parse_techniques(text).ok, text
    for schema in (verdict_schema(reasoning=True), confidence_schema(), discussion_schema()):
        json.dumps(schema)  # plain JSON: sent as it is


def test_dat_word_list_schema_constrains_ten_words() -> None:
    req = GenerateRequest.chat("Name 10 nouns as different from each other as possible.",
                               temperature=1.0, max_tokens=80, seed=3,
                               response_schema=word_list_schema(10))  # fmt: skip
    words = parse_word_list(as_text(_local_answer(req), render_word_list), expected=10)
    assert len(words) == 10 and all(w.replace("-", "").isalpha() for w in words)


# -- judges send the schema and record it ------------------------------------------------------


@pytest.mark.slow
def test_single_agent_judge_structured_on_the_small_model() -> None:
    gen = Recorder()
    judge = SingleAgentJudge(gen, mode="oneshot", max_tokens=48, structured=True)
    verdict = asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain="macgyver"))
    assert all(r.response_schema == verdict_schema() for r in gen.requests)
    assert verdict.constrained and verdict.to_dict()["constrained"] is True
    assert verdict.n_parsed == 3 and not verdict.parse_failures, verdict.parse_failures


def test_free_judge_sends_no_schema() -> None:
    gen = Recorder("Verdict: [[YES]] [[0.9]]")
    verdict = asyncio.run(SingleAgentJudge(gen, mode="cot").evaluate(PROBLEM, SOLUTION, domain="macgyver"))
    assert all(r.response_schema is None for r in gen.requests) and not verdict.constrained


def test_multiagent_structured_stages_and_300_word_initial_analyses() -> None:
    from tests.judges.hash_embedder import HashEmbedder

    gen = Recorder('{"explanation": "x", "confidence": "0.9", "stance": "YES"}')
    judge = MultiAgentJudge(gen, embedder=HashEmbedder(), criteria={"safety": "No harm."},
                            structured=True, max_rounds=1)  # fmt: skip
    verdict = asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain="macgyver"))
    inits = [r for r in gen.requests if r.response_schema is None]
    assert len(inits) == 3 and all("at most 300 words" in r.messages[0].text() for r in inits)
    shaped = {json.dumps(r.response_schema, sort_keys=True) for r in gen.requests if r.response_schema}
    assert json.dumps(confidence_schema(), sort_keys=True) in shaped
    assert json.dumps(discussion_schema(), sort_keys=True) in shaped
    assert verdict.constrained
    discussion = [r for r in gen.requests if "Reply in exactly three" in r.messages[0].text()]
    assert "at most 150 words" in discussion[0].messages[0].text()


def test_registry_fewshot_cot_and_knobs_reach_the_factory() -> None:
    assert "fewshot_cot" in judge_names()
    single = get_judge("fewshot_cot", Recorder("x"), embedder="minilm", max_tokens=64, structured=True)
    assert isinstance(single, SingleAgentJudge) and single.mode == "fewshot_cot" and single.structured
    ma = get_judge("multiagent", Recorder("x"), embedder="minilm", max_tokens=64, threshold=0.7,
                   k_discussion=3, j_confidence=2, l_verdict=6, max_rounds=4)  # fmt: skip
    assert isinstance(ma, MultiAgentJudge)
    assert (ma.threshold, ma.k_discussion, ma.j_confidence, ma.l_verdict, ma.max_rounds) == (0.7, 3, 2, 6, 4)

    def plain(generate, *, embedder, max_tokens):  # type: ignore[no-untyped-def]  # a plug-in
        return SingleAgentJudge(generate)

    register_judge("plain-test", plain)
    assert isinstance(get_judge("plain-test", Recorder("x"), embedder="e", max_tokens=8,
                                structured=True, threshold=0.1), SingleAgentJudge)  # fmt: skip


def test_openended_options_reach_the_judge_factory() -> None:
    from creval.benchmarks.openended.benchmark import JUDGES, OpenEndedOptions
    from creval.benchmarks.openended.judging import judge_solution

    assert "fewshot_cot" in JUDGES
    options = OpenEndedOptions(judge_threshold=0.6, judge_k=4, judge_j=5, judge_l=7, judge_rounds=3)
    assert options.structured_judges
    seen: dict[str, object] = {}

    def spy(generate, *, embedder, max_tokens, **knobs):  # type: ignore[no-untyped-def]
        seen.update(knobs)
        return SingleAgentJudge(generate, structured=bool(knobs["structured"]))

    register_judge("spy-test", spy)
    out = asyncio.run(judge_solution(
        ["spy-test"], Recorder('{"verdict": "YES", "confidence": "0.9"}'), problem=PROBLEM,
        solution=SOLUTION, domain="macgyver", embedder="minilm", max_tokens=32, structured=True,
        threshold=options.judge_threshold, k_discussion=options.judge_k,
        j_confidence=options.judge_j, l_verdict=options.judge_l, max_rounds=options.judge_rounds))
    assert seen == {"structured": True, "threshold": 0.6, "k_discussion": 4, "j_confidence": 5,
                    "l_verdict": 7, "max_rounds": 3}  # fmt: skip
    assert out["spy-test"]["constrained"] and out["spy-test"]["overall"] == 1.0


def test_free_text_fields_fit_the_token_budget() -> None:
    # a cot verdict at 1 token per character must still close its JSON within max_tokens
    gen = Recorder('{"reasoning": "r", "verdict": "YES", "confidence": "0.9"}')
    judge = SingleAgentJudge(gen, mode="cot", max_tokens=120, structured=True)
    asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain="macgyver"))
    reasoning = gen.requests[0].response_schema["properties"]["reasoning"]  # type: ignore[index]
    assert reasoning["maxLength"] <= 120 - 40
    props = discussion_schema(256)["properties"]
    total = (props["answers"]["maxLength"] + props["opinion"]["maxLength"]
             + 2 * props["questions"]["items"]["properties"]["question"]["maxLength"])  # fmt: skip
    assert total <= 256 - 60
