"""The retrieval-based multi-agent judge against a scripted, deterministic stand-in model."""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.judges.criteria import DOMAIN_CRITERIA
from creval.judges.multiagent import MultiAgentJudge
from creval.models.base import Completion, GenerateRequest, Usage
from judges.hash_embedder import HashEmbedder

PROBLEM = ("A kite is stuck 5 m up in a tree. You have a 2 m broom, a 10 m garden hose, "
           "duct tape and a bucket. How do you get the kite down?")
SOLUTION = "Step 1: Tape the broom to a long branch. Step 2: Push the kite off the branch."


def tokens(text: str) -> int:
    """About four characters per token, like BPE tokenisers on English."""
    return max(1, math.ceil(len(text) / 4))


class ScriptedModel:
    """Answers like a panel of analysts would, according to the role and stage in the prompt.

    ``confidences[(role, criterion)]`` is a number, a list (one per round) or a raw string
    (an unparsable answer); ``verdicts[role]`` is "YES", "NO" or a raw string.
    """

    def __init__(self, confidences: dict[tuple[str, str], Any] | None = None,
                 verdicts: dict[str, str] | None = None, default_confidence: float | str = 0.8,
                 discussion_raw: str | None = None) -> None:
        self.confidences = confidences or {}
        self.verdicts = verdicts or {}
        self.default_confidence = default_confidence
        self.discussion_raw = discussion_raw
        self.calls: list[dict[str, Any]] = []
        self._seen: Counter[tuple[str, str]] = Counter()

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        await asyncio.sleep(0)
        prompt = request.messages[-1].text()
        role = re.search(r"You are the (problem|solution|criterion) analyst", prompt)
        assert role is not None, prompt
        who = f"{role.group(1)}_analyst"
        crit = re.search(r"^Criterion: (.+)$", prompt, re.MULTILINE)
        criterion = crit.group(1).strip() if crit else "*"
        if "[[POINT]]" in prompt:
            stage, text = "init", self._init(who, criterion)
        elif "three labelled parts" in prompt:
            stage, text = "discussion", self._discussion(who, criterion, prompt)
        elif "How certain are you" in prompt:
            stage, text = "confidence", self._confidence(who, criterion)
        else:
            stage = "verdict"
            v = self.verdicts.get(who, "YES")
            text = f"[[{v}]] The {criterion} evidence decides it." if v in ("YES", "NO") else v
        usage = Usage(input_tokens=tokens(prompt), output_tokens=tokens(text))
        self.calls.append({"role": who, "stage": stage, "criterion": criterion,
                           "prompt": prompt, "text": text, "usage": usage,
                           "temperature": request.temperature})
        return [Completion(text=text, usage=usage)]

    def _init(self, who: str, criterion: str) -> str:
        topic = {"problem_analyst": "tree height and kite position",
                 "solution_analyst": "broom and tape steps",
                 "criterion_analyst": f"what {criterion} demands"}[who]
        return "\n".join(f"[[POINT]] Note {i} from the {who.replace('_', ' ')} on {topic}: "
                         f"detail number {i} matters." for i in range(1, 5))

    def _discussion(self, who: str, criterion: str, prompt: str) -> str:
        if self.discussion_raw is not None:
            return self.discussion_raw
        asked = "To solution analyst: Is the tape strong enough?" if who == "problem_analyst" else "None"
        answers = "None"
        if "Is the tape strong enough?" in prompt.split("Questions addressed to you:")[1]:
            answers = "To problem analyst's question about tape: duct tape holds a broom."
        return (f"[[ANSWERS]] {answers}\n[[OPINION]] Opinion on {criterion} by {who}: the "
                f"steps look workable for {criterion}.\n[[QUESTIONS]] {asked}")

    def _confidence(self, who: str, criterion: str) -> str:
        self._seen[(who, criterion)] += 1
        value = self.confidences.get((who, criterion), self.default_confidence)
        if isinstance(value, list):
            value = value[self._seen[(who, criterion)] - 1]
        if isinstance(value, str):
            return value
        return f"The discussion settled the key facts. Thus [[{value:.1f}]]. ([YES])"

    def of(self, stage: str, criterion: str | None = None) -> list[dict[str, Any]]:
        return [c for c in self.calls
                if c["stage"] == stage and (criterion is None or c["criterion"] == criterion)]


def judge(model: ScriptedModel, **kwargs: Any) -> MultiAgentJudge:
    return MultiAgentJudge(model, embedder=HashEmbedder(), **kwargs)


def run(j: MultiAgentJudge, domain: str = "macgyver") -> Any:
    return asyncio.run(j.evaluate(PROBLEM, SOLUTION, domain=domain))


def retrieved_lines(prompt: str, start: str, end: str) -> int:
    section = prompt.split(start, 1)[1].split(end, 1)[0]
    return sum(1 for line in section.splitlines() if line.startswith("- ("))


def test_confident_panel_stops_after_one_round() -> None:
    model = ScriptedModel(default_confidence=0.8)
    verdict = run(judge(model))
    assert verdict.rounds == {"feasibility": 1, "safety": 1, "effectiveness": 1}
    for c in ("Feasibility", "Safety", "Effectiveness"):
        assert len(model.of("discussion", c)) == 3
        assert len(model.of("confidence", c)) == 3
        assert len(model.of("verdict", c)) == 1
    # problem and solution analysts initialise once; the criterion analyst once per criterion
    assert Counter(c["role"] for c in model.of("init")) == {
        "problem_analyst": 1, "solution_analyst": 1, "criterion_analyst": 3}
    assert verdict.verdicts == {"feasibility": True, "safety": True, "effectiveness": True}
    assert verdict.overall == 1.0
    assert verdict.confidence["safety"] == pytest.approx(0.8)


def test_unconfident_panel_uses_every_round() -> None:
    model = ScriptedModel(default_confidence=0.2)
    verdict = run(judge(model, max_rounds=2))
    assert set(verdict.rounds.values()) == {2}
    assert len(model.of("discussion", "Safety")) == 6
    assert verdict.details["safety"]["stopped_by_confidence"] is False
    model3 = ScriptedModel(default_confidence=0.2)
    assert set(run(judge(model3, max_rounds=3)).rounds.values()) == {3}


def test_threshold_is_inclusive_and_uses_the_mean() -> None:
    at = {(r, "Safety"): 0.5 for r in ("problem_analyst", "solution_analyst", "criterion_analyst")}
    below = {**at, ("problem_analyst", "Safety"): 0.4}
    assert run(judge(ScriptedModel(confidences=at, default_confidence=0.9))).rounds["safety"] == 1
    assert run(judge(ScriptedModel(confidences=below, default_confidence=0.9))).rounds["safety"] == 2
    # one analyst at 0.9 lifts a 0.3/0.3 panel to mean 0.5: stop; a higher threshold continues
    mixed = {("problem_analyst", "Safety"): 0.9, ("solution_analyst", "Safety"): 0.3,
             ("criterion_analyst", "Safety"): 0.3}
    assert run(judge(ScriptedModel(confidences=mixed))).rounds["safety"] == 1
    assert run(judge(ScriptedModel(confidences=mixed), threshold=0.6)).rounds["safety"] == 2


@pytest.mark.parametrize("winner", ["problem_analyst", "solution_analyst", "criterion_analyst"])
def test_most_confident_analyst_gives_the_verdict(winner: str) -> None:
    roles = ("problem_analyst", "solution_analyst", "criterion_analyst")
    conf = {(r, c): (0.9 if r == winner else 0.3) for r in roles
            for c in ("Feasibility", "Safety", "Effectiveness")}
    verdicts = {r: ("YES" if r == winner else "NO") for r in roles}
    model = ScriptedModel(confidences=conf, verdicts=verdicts)
    verdict = run(judge(model))
    assert {c["role"] for c in model.of("verdict")} == {winner}
    assert set(verdict.verdicts.values()) == {True}
    assert verdict.details["feasibility"]["verdict_analyst"] == winner
    assert all(c["temperature"] == 0.0 for c in model.of("verdict"))


def test_verdict_comes_from_the_last_round() -> None:
    conf = {("problem_analyst", "Safety"): [0.4, 0.1], ("solution_analyst", "Safety"): [0.1, 0.3],
            ("criterion_analyst", "Safety"): [0.1, 0.1]}
    model = ScriptedModel(confidences=conf, verdicts={"problem_analyst": "YES",
                                                      "solution_analyst": "NO"})
    verdict = run(judge(model))
    assert verdict.rounds["safety"] == 2
    assert verdict.details["safety"]["verdict_analyst"] == "solution_analyst"
    assert verdict.verdicts["safety"] is False


@pytest.mark.parametrize(("k", "j", "l"), [(5, 4, 8), (3, 2, 7)])
def test_retrieval_sizes_reach_the_prompts(k: int, j: int, l: int) -> None:  # noqa: E741
    model = ScriptedModel()
    run(judge(model, k_discussion=k, j_confidence=j, l_verdict=l))
    for call in model.of("discussion"):
        assert retrieved_lines(call["prompt"], "earlier discussion:", "Questions addressed") == k
    for call in model.of("confidence"):
        assert retrieved_lines(call["prompt"], "Points raised in the discussion:", "How certain") == j
    for call in model.of("verdict"):
        assert retrieved_lines(call["prompt"], "panel's discussion:", "Does the solution") == l


def test_questions_are_routed_to_the_addressee() -> None:
    model = ScriptedModel()
    run(judge(model))
    sa_turn = [c for c in model.of("discussion", "Safety") if c["role"] == "solution_analyst"][0]
    questions = sa_turn["prompt"].split("Questions addressed to you:")[1].split("Rules:")[0]
    assert "Is the tape strong enough?" in questions
    ca_turn = [c for c in model.of("discussion", "Safety") if c["role"] == "criterion_analyst"][0]
    assert "Is the tape strong enough?" not in ca_turn["prompt"].split("Questions addressed")[1]


def test_criteria_do_not_share_discussion_fragments() -> None:
    model = ScriptedModel(default_confidence=0.2)
    run(judge(model, l_verdict=50, j_confidence=50))
    for call in model.of("verdict", "Safety") + model.of("confidence", "Safety"):
        assert "Opinion on Safety" in call["prompt"]
        assert "Opinion on Feasibility" not in call["prompt"]
        assert "what Feasibility demands" not in call["prompt"]


def test_unparsable_answers_are_recorded_not_coerced() -> None:
    conf = {("solution_analyst", "Safety"): "I am fairly sure, maybe 70 percent."}
    model = ScriptedModel(confidences=conf, default_confidence=0.6,
                          verdicts={"problem_analyst": "Hard to say; [[YES]] or [[NO]]."})
    verdict = run(judge(model))
    failures = {(f.role, f.stage, f.criterion) for f in verdict.parse_failures}
    assert ("solution_analyst", "confidence", "safety") in failures
    # the unparsed confidence is left out of the mean, not replaced
    assert verdict.confidence["safety"] == pytest.approx(0.6)
    assert verdict.verdicts == {"feasibility": None, "safety": None, "effectiveness": None}
    assert verdict.overall is None
    raw = [f.raw for f in verdict.parse_failures if f.stage == "verdict"]
    assert raw and all("[[YES]] or [[NO]]" in r for r in raw)


def test_no_parsed_confidence_falls_back_and_keeps_going() -> None:
    model = ScriptedModel(default_confidence="no idea", verdicts={"criterion_analyst": "NO"})
    verdict = run(judge(model))
    assert set(verdict.rounds.values()) == {2}
    assert verdict.confidence == {"feasibility": None, "safety": None, "effectiveness": None}
    assert verdict.verdicts["safety"] is False
    assert verdict.details["safety"]["verdict_analyst"] == "criterion_analyst"
    assert sum(f.stage == "confidence" for f in verdict.parse_failures) == 3 * 3 * 2


def test_unstructured_discussion_is_a_recorded_failure() -> None:
    model = ScriptedModel(discussion_raw="The steps are fine. Nothing else to add.")
    verdict = run(judge(model))
    assert sum(f.stage == "discussion" for f in verdict.parse_failures) == 9
    assert all(v is True for v in verdict.verdicts.values())


def test_token_usage_per_role_sums_to_the_total() -> None:
    model = ScriptedModel(default_confidence=0.3)
    verdict = run(judge(model))
    total = verdict.total_usage
    assert total.input_tokens == sum(c["usage"].input_tokens for c in model.calls)
    assert total.output_tokens == sum(c["usage"].output_tokens for c in model.calls)
    assert total.calls == len(model.calls)
    assert set(verdict.usage) == {"problem_analyst", "solution_analyst", "criterion_analyst"}
    for role, usage in verdict.usage.items():
        mine = [c for c in model.calls if c["role"] == role]
        assert usage.calls == len(mine)
        assert usage.input_tokens == sum(c["usage"].input_tokens for c in mine)
    assert sum(u.input_tokens for u in verdict.stage_usage.values()) == total.input_tokens
    assert verdict.stage_usage["verdict"].calls == 3
    assert verdict.to_dict()["total_usage"]["calls"] == len(model.calls)


def test_user_criteria_and_prompt_files(tmp_path: Path) -> None:
    custom = tmp_path / "verdict.txt"
    custom.write_text("You are the {role_name}. Criterion: {criterion}\nNOTES:\n{discussion}\n"
                      "Decide.", encoding="utf-8")
    model = ScriptedModel()
    verdict = run(judge(model, criteria={"clarity": "The steps are easy to follow."},
                        prompt_files={"judge_ma_verdict": str(custom)}), domain="custom")
    assert list(verdict.verdicts) == ["clarity"]
    (call,) = model.of("verdict")
    assert call["prompt"].startswith("You are the ") and "NOTES:" in call["prompt"]


@pytest.mark.parametrize("kwargs", [{"k_discussion": 0}, {"threshold": 1.5},
                                    {"prompt_files": {"nope": "x"}}, {"fallback_analyst": "x"}])
def test_invalid_settings_are_rejected(kwargs: dict[str, Any]) -> None:
    with pytest.raises((CrevalError, ValueError)):
        judge(ScriptedModel(), **kwargs)


def test_unknown_domain_needs_criteria() -> None:
    with pytest.raises(CrevalError, match="criteria"):
        run(judge(ScriptedModel()), domain="poetry")


def test_defaults_follow_the_paper() -> None:
    j = MultiAgentJudge(ScriptedModel())
    assert (j.k_discussion, j.j_confidence, j.l_verdict) == (5, 4, 8)
    assert (j.max_rounds, j.threshold) == (2, 0.5)
    assert [c.name for c in DOMAIN_CRITERIA["hypogen"]] == [
        "feasibility", "relevance", "scientific_accuracy"]


def test_runs_with_the_packaged_sentence_embedder() -> None:
    pytest.importorskip("sentence_transformers")
    from creval.embed import get_embedder

    model = ScriptedModel(default_confidence=0.7)
    verdict = asyncio.run(MultiAgentJudge(model, embedder=get_embedder("minilm")).evaluate(
        PROBLEM, SOLUTION, domain="macgyver"))
    assert verdict.verdicts == {"feasibility": True, "safety": True, "effectiveness": True}
    for call in model.of("discussion"):
        assert retrieved_lines(call["prompt"], "earlier discussion:", "Questions addressed") == 5
