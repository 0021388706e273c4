"""Single-agent one-shot, chain-of-thought and few-shot judges with a scripted model."""

from __future__ import annotations

import asyncio
import math
import re
from pathlib import Path
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.judges.single import BUILTIN_EXAMPLES, FewShotExample, SingleAgentJudge
from creval.models.base import Completion, GenerateRequest, Usage

PROBLEM = "A kite is stuck 5 m up in a tree. You have a 2 m broom and duct tape."
SOLUTION = "Step 1: Tape the broom to a branch. Step 2: Push the kite off."


def tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


class ScriptedJudge:
    """Answers ``answers[criterion]`` (default YES with 0.8) and records every prompt."""

    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.answers = answers or {}
        self.calls: list[dict[str, Any]] = []

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        await asyncio.sleep(0)
        prompt = request.messages[-1].text()
        criterion = re.search(r"^Criterion: (.+)$", prompt, re.MULTILINE).group(1)  # type: ignore[union-attr]
        text = self.answers.get(criterion, "Looks fine. [[YES]] [[0.8]]")
        usage = Usage(input_tokens=tokens(prompt), output_tokens=tokens(text))
        self.calls.append({"criterion": criterion, "prompt": prompt, "usage": usage})
        return [Completion(text=text, usage=usage)]


def run(judge: SingleAgentJudge, domain: str = "macgyver") -> Any:
    return asyncio.run(judge.evaluate(PROBLEM, SOLUTION, domain=domain))


def test_oneshot_is_one_call_per_criterion() -> None:
    model = ScriptedJudge({"Safety": "[[NO]] [[0.6]]"})
    verdict = run(SingleAgentJudge(model))
    assert sorted(c["criterion"] for c in model.calls) == ["Effectiveness", "Feasibility", "Safety"]
    assert verdict.verdicts == {"feasibility": True, "safety": False, "effectiveness": True}
    assert verdict.confidence == {"feasibility": 0.8, "safety": 0.6, "effectiveness": 0.8}
    assert verdict.overall == pytest.approx(2 / 3)
    assert verdict.rounds == {"feasibility": 0, "safety": 0, "effectiveness": 0}
    assert verdict.judge == "single-oneshot"
    assert verdict.usage["judge"].calls == 3
    assert verdict.total_usage.input_tokens == sum(c["usage"].input_tokens for c in model.calls)


def test_cot_asks_for_reasoning_first() -> None:
    model = ScriptedJudge({"Safety": "Step 1 is harmless; step 2 too.\nVerdict: [[YES]] [[0.9]]"})
    verdict = run(SingleAgentJudge(model, mode="cot"))
    assert all("step by step" in c["prompt"] for c in model.calls)
    assert verdict.verdicts["safety"] is True and verdict.confidence["safety"] == 0.9


@pytest.mark.parametrize("mode", ["fewshot", "fewshot_cot"])
def test_fewshot_shows_the_criterion_examples(mode: str) -> None:
    model = ScriptedJudge()
    run(SingleAgentJudge(model, mode=mode))  # type: ignore[arg-type]
    for call in model.calls:
        name = call["criterion"].lower()
        mine = [ex for ex in BUILTIN_EXAMPLES if ex.criterion == name]
        assert call["prompt"].count("\nExample ") + call["prompt"].startswith("Example ") == len(mine)
        shown = [ex.rationale in call["prompt"] for ex in mine]
        assert all(shown) if mode == "fewshot_cot" else not any(shown)
        others = [ex.rationale for ex in BUILTIN_EXAMPLES if ex.criterion != name]
        assert not any(r in call["prompt"] for r in others)


def test_builtin_examples_cover_both_outcomes() -> None:
    for name in ("feasibility", "effectiveness"):
        assert {ex.verdict for ex in BUILTIN_EXAMPLES if ex.criterion == name} == {True, False}


def test_fewshot_outside_macgyver_needs_user_examples() -> None:
    with pytest.raises(CrevalError, match="examples"):
        run(SingleAgentJudge(ScriptedJudge(), mode="fewshot"), domain="bookmia")
    mine = [FewShotExample("Start: A. End: Z.", "A then Z.", c, True, "Fine.")
            for c in ("coherence", "realism", "plot_completion")]
    model = ScriptedJudge()
    verdict = run(SingleAgentJudge(model, mode="fewshot", examples=mine), domain="bookmia")
    assert list(verdict.verdicts) == ["coherence", "realism", "plot_completion"]
    assert all("A then Z." in c["prompt"] for c in model.calls)


def test_unparsable_answers_are_recorded() -> None:
    model = ScriptedJudge({"Safety": "It could go [[YES]] or [[NO]].", "Feasibility": "[[YES]]"})
    verdict = run(SingleAgentJudge(model))
    assert verdict.verdicts == {"feasibility": True, "safety": None, "effectiveness": True}
    assert verdict.confidence["safety"] is None and verdict.confidence["feasibility"] is None
    stages = {(f.criterion, f.stage) for f in verdict.parse_failures}
    assert stages == {("safety", "verdict"), ("feasibility", "confidence")}
    assert verdict.overall == 1.0


def test_prompt_file_replaces_the_template(tmp_path: Path) -> None:
    file = tmp_path / "mine.txt"
    file.write_text("MY JUDGE\nCriterion: {criterion}\n{problem}\n{solution}", encoding="utf-8")
    model = ScriptedJudge()
    run(SingleAgentJudge(model, prompt_files={"judge_single_oneshot": str(file)}))
    assert all(c["prompt"].startswith("MY JUDGE") for c in model.calls)
    with pytest.raises(CrevalError):
        SingleAgentJudge(model, mode="cot", prompt_files={"judge_single_oneshot": str(file)})
    with pytest.raises(CrevalError):
        SingleAgentJudge(model, mode="zero")  # type: ignore[arg-type]
