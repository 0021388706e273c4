"""What our own prompts ask for (issue 12, departure 9): the tested model is told the task,
not how it is scored; an instrument is not offered an answer the paper's did not offer; the
open-ended steps are asked to be creative and novel, as upstream's step prompts ask."""

from __future__ import annotations

import re

import pytest

from creval.benchmarks.common import load_prompt
from creval.benchmarks.neocoder.techniques import detection_request


def test_the_neocoder_solve_prompt_does_not_say_how_solutions_are_scored() -> None:
    text = load_prompt("neocoder_solve").lower()
    for scoring_word in ("grader", "graded", "score", "counts as", "wrong", "passes the examples"):
        assert scoring_word not in text, scoring_word
    assert "do not use the following techniques" in text  # the constraints are still explained


def test_the_detection_prompt_offers_no_none_answer() -> None:
    system = detection_request("print(1)").messages[0].text()
    assert not re.search(r"\bnone\b", system, flags=re.IGNORECASE), system


@pytest.mark.parametrize("domain", ["macgyver", "hypogen", "bookmia"])
def test_the_step_prompts_ask_for_creative_novel_steps(domain: str) -> None:
    text = load_prompt(f"openended_step_{domain}").lower()
    assert "creative" in text and "novel" in text
