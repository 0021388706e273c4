"""The step-wise protocol: parsing steps, trimming log-probabilities, continuing, finishing.

The protocol is driven by a scripted model: a plain function of the request that stands in
for a remote model, so each control-flow rule can be checked exactly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from creval.benchmarks.openended.stepwise import (
    StepSettings,
    parse_step,
    render_steps,
    solve_stepwise,
    trimmed_logprobs,
)
from creval.models.base import Completion, GenerateRequest, TokenLogprob

TEMPLATE = "Problem: {problem}\nSo far:\n{steps}\nWrite step {step} of at most {max_steps}."


def completion(text: str, logprob: float) -> Completion:
    """A completion whose every token (one per word) has log-probability ``logprob``."""
    words = text.split(" ")
    tokens = [TokenLogprob(token=(w if i == 0 else " " + w), logprob=logprob) for i, w in enumerate(words)]
    return Completion(text=text, tokens=tokens)


Script = Callable[[GenerateRequest, int], tuple[str, float]]


def scripted(script: Script) -> tuple[Callable[[GenerateRequest], object], list[GenerateRequest]]:
    seen: list[GenerateRequest] = []

    async def generate(request: GenerateRequest) -> list[Completion]:
        seen.append(request)
        out = []
        for i in range(request.n):
            text, lp = script(request, i)
            out.append(completion(text, lp))
        return out

    return generate, seen


def step_of(request: GenerateRequest) -> int:
    return int(request.messages[-1].text().rsplit("Write step ", 1)[1].split(" ")[0])


def run(script: Script, **settings: object) -> tuple[dict[str, object], list[GenerateRequest]]:
    generate, seen = scripted(script)
    out = asyncio.run(solve_stepwise(generate, TEMPLATE, "test", {"problem": "open a jar"},  # type: ignore[arg-type]
                                     StepSettings(**settings)))  # type: ignore[arg-type]
    return out, seen


def test_parse_step_variants() -> None:
    assert parse_step("Step 3: Heat the lid.", 3).text == "Heat the lid."
    assert parse_step("step 3 - Heat the lid.\nStep 4: Twist.", 3).text == "Heat the lid."
    assert parse_step("Step 3: Heat it. Step 4: Twist.", 3).text == "Heat it."
    assert parse_step("DONE", 2).finished and parse_step("stop.", 2).finished
    assert not parse_step("", 1).valid and not parse_step("   ", 1).valid
    assert parse_step("Done deal: tap the lid", 1).finished  # starts with DONE: a finish signal


def test_trimmed_logprobs_keep_only_the_step_tokens() -> None:
    c = completion("Step 1: Tap the lid\nStep 2: More", -1.0)
    parsed = parse_step(c.text, 1)
    assert parsed.text == "Tap the lid"
    values = trimmed_logprobs(c.tokens or [], c.text, parsed.start, parsed.end)
    assert len(values) == 3  # " Tap", " the", " lid\nStep": tokens overlapping the step


def test_greedy_continuation_until_done() -> None:
    def script(request: GenerateRequest, i: int) -> tuple[str, float]:
        step = step_of(request)
        if request.temperature == 0:
            return ("DONE" if step == 3 else f"Step {step}: greedy {step}", -0.1)
        return (f"Step {step}: sample {i}", -1.0 - i)

    out, seen = run(script, n=4, max_steps=10)
    assert out["solution_steps"] == ["greedy 1", "greedy 2"]
    assert out["stop_reason"] == "finished"
    # per step: one sampled request with n=4 and the model's log-probabilities (Eq. 1), one greedy
    sampled = [r for r in seen if r.temperature > 0]
    # the greedy answer comes first: at step 3 it says DONE, so nothing is sampled there
    assert len(sampled) == 2 and all(r.n == 4 and r.top_p == 0.9 and r.logprobs for r in sampled)
    assert all(r.logprob_source == "model" for r in sampled)
    assert out["logprob_source"] == "model"
    assert "Step 1: greedy 1\nStep 2: greedy 2" in seen[-1].messages[-1].text()
    step1 = out["steps"][0]["candidates"]  # type: ignore[index]
    assert [c["logprob_sum"] for c in step1] == pytest.approx([-2.0, -4.0, -6.0, -8.0])
    assert [c["logprob_mean"] for c in step1] == pytest.approx([-1.0, -2.0, -3.0, -4.0])


def test_highest_probability_continuation_is_the_upstream_choice() -> None:
    def script(request: GenerateRequest, i: int) -> tuple[str, float]:
        assert request.temperature > 0, "no greedy call in this mode"
        return (f"Step {step_of(request)}: sample {i}", -3.0 + i * 0.5)  # sample 3 most probable

    out, seen = run(script, n=4, max_steps=2, continuation="highest_probability")
    assert out["solution_steps"] == ["sample 3", "sample 3"]
    assert out["stop_reason"] == "max_steps" and len(seen) == 2


def test_majority_finish_rule() -> None:
    def script(request: GenerateRequest, i: int) -> tuple[str, float]:
        if request.temperature == 0:
            return (f"Step {step_of(request)}: go on", -0.1)
        return ("DONE" if i < 2 and step_of(request) == 2 else "Step 9: x", -1.0)

    out, _ = run(script, n=4, finish="majority")
    assert out["solution_steps"] == ["go on"] and out["stop_reason"] == "finished"
    # under the default rule the greedy answer decides, so the same samples do not stop it
    out, _ = run(script, n=4, max_steps=3)
    assert out["solution_steps"] == ["go on"] * 3


def test_empty_greedy_answer_falls_back_to_most_probable_candidate() -> None:
    def script(request: GenerateRequest, i: int) -> tuple[str, float]:
        if request.temperature == 0:
            return ("", 0.0)
        return (f"Step 1: s{i}", -float(i))

    out, _ = run(script, n=3, max_steps=1)
    assert out["solution_steps"] == ["s0"]


def test_render_steps() -> None:
    assert render_steps(["a", "b"]) == "Step 1: a\nStep 2: b"


def test_a_step_that_copies_the_answer_format_is_not_valid() -> None:
    from creval.benchmarks.common import answer_placeholders, load_prompt
    from creval.benchmarks.openended.stepwise import candidate_record
    from creval.models.base import Completion

    placeholders = answer_placeholders(load_prompt("openended_step_macgyver"))
    echo = candidate_record(Completion(text="Step 1: <the step>"), 1, placeholders=placeholders)
    real = candidate_record(Completion(text="Step 1: Bend the wire."), 1, placeholders=placeholders)
    assert not echo["valid"] and echo["rejected"] == "copied the answer format's placeholder"
    assert real["valid"] and "rejected" not in real


def test_log_probabilities_of_the_sampling_distribution_are_an_option() -> None:
    def script(request: GenerateRequest, i: int) -> tuple[str, float]:
        return ("Step 1: greedy" if request.temperature == 0 else f"Step 1: s{i}", -1.0)

    out, seen = run(script, n=2, max_steps=1, logprob_source="sampling")
    assert [r.logprob_source for r in seen if r.temperature > 0] == ["sampling"]
    assert out["logprob_source"] == "sampling"
