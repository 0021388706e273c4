"""The multi-agent judge's ``panel="joint"`` (one discussion of all criteria) against the default
per-criterion panel, with the scripted stand-in of ``test_multiagent``."""

from __future__ import annotations

from collections import Counter

import pytest

from creval.errors import CrevalError
from creval.judges.multiagent import MultiAgentJudge
from judges.hash_embedder import HashEmbedder
from judges.test_multiagent import ScriptedModel, run

JOINT = "Feasibility, safety and effectiveness"
ROLES = ("problem_analyst", "solution_analyst", "criterion_analyst")


def judge(model: ScriptedModel, **kwargs: object) -> MultiAgentJudge:
    return MultiAgentJudge(model, embedder=HashEmbedder(), **kwargs)  # type: ignore[arg-type]


def test_default_panel_is_per_criterion_and_unchanged() -> None:
    model = ScriptedModel()
    verdict = run(judge(model))
    assert judge(ScriptedModel()).panel == "per_criterion"
    assert len(model.calls) == 26  # 2 + 3 criterion inits, 3 x (3 + 3 + 1)
    assert "panel" not in verdict.details["safety"]


def test_joint_panel_discusses_once_and_decides_each_criterion() -> None:
    model = ScriptedModel(default_confidence=0.8)
    verdict = run(judge(model, panel="joint"))
    # One criterion-analyst initialisation, one round of 3 turns and 3 confidences about
    # all criteria together, then one verdict per criterion: 12 calls instead of 26.
    assert Counter(c["role"] for c in model.of("init")) == dict.fromkeys(ROLES, 1)
    assert {c["criterion"] for c in model.of("discussion") + model.of("confidence")} == {JOINT}
    assert len(model.of("discussion")) == len(model.of("confidence")) == 3
    assert sorted(c["criterion"] for c in model.of("verdict")) == [
        "Effectiveness", "Feasibility", "Safety"]
    assert len(model.calls) == 12
    assert verdict.verdicts == {"feasibility": True, "safety": True, "effectiveness": True}
    assert set(verdict.rounds.values()) == {1}
    assert verdict.details["safety"]["panel"] == "joint"
    # The joint definition lists every criterion's own definition.
    prompt = model.of("discussion")[0]["prompt"]
    assert "- Feasibility:" in prompt and "- Safety:" in prompt and "- Effectiveness:" in prompt
    assert verdict.total_usage.calls == 12


def test_joint_panel_costs_fewer_tokens_than_per_criterion() -> None:
    per, joint = run(judge(ScriptedModel())), run(judge(ScriptedModel(), panel="joint"))
    assert joint.total_usage.total_tokens < 0.6 * per.total_usage.total_tokens
    assert joint.verdicts == per.verdicts


def test_joint_panel_keeps_rounds_and_the_most_confident_analyst() -> None:
    conf = {("problem_analyst", JOINT): [0.2, 0.3], ("solution_analyst", JOINT): [0.2, 0.9],
            ("criterion_analyst", JOINT): [0.2, 0.1]}
    model = ScriptedModel(confidences=conf, verdicts={"solution_analyst": "NO"})
    verdict = run(judge(model, panel="joint"))
    assert set(verdict.rounds.values()) == {2}
    assert len(model.of("discussion")) == 6
    assert {c["role"] for c in model.of("verdict")} == {"solution_analyst"}
    assert verdict.verdicts == {"feasibility": False, "safety": False, "effectiveness": False}
    assert verdict.confidence["safety"] == pytest.approx((0.3 + 0.9 + 0.1) / 3)


def test_joint_panel_on_one_criterion_and_bad_panel() -> None:
    model = ScriptedModel()
    verdict = run(judge(model, panel="joint", criteria={"clarity": "The steps are clear."}))
    assert verdict.verdicts == {"clarity": True}
    assert {c["criterion"] for c in model.of("discussion")} == {"Clarity"}
    with pytest.raises(CrevalError, match="panel must be"):
        judge(ScriptedModel(), panel="shared")
