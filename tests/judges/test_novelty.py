"""Pairwise novelty judge: both orders, strict parsing, merge and bubble sort rankings.

The judge model is a scripted, deterministic ``generate`` that reads the prompt it is
sent and answers from the text, standing in for a remote model.
"""

from __future__ import annotations

import asyncio
import math
import random
import re
from pathlib import Path
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.judges.novelty import (
    NoveltyItem,
    PairwiseNoveltyJudge,
    merge_sort_bound,
    parse_choice,
)
from creval.models.base import Completion, GenerateRequest, Usage


def solutions_in(prompt: str) -> tuple[str, str]:
    """The two solutions of a prompt, in the order shown."""
    first, second = re.findall(r"^Solution: (.*)$", prompt, flags=re.MULTILINE)
    return first, second


class ScriptedJudge:
    """Prefers the longer solution; ``bias`` answers '1' when lengths differ by <= bias."""

    def __init__(
        self, *, bias: int = -1, garble: str | None = None, labels: tuple[str, str] = ("1", "2")
    ) -> None:
        self.bias = bias
        self.garble = garble
        self.labels = labels
        self.calls = 0
        self.prompts: list[str] = []

    def answer(self, prompt: str) -> str:
        first, second = solutions_in(prompt)
        if self.garble and (self.garble in first or self.garble in second):
            return "Both are equally novel."
        if abs(len(first) - len(second)) <= self.bias:
            return self.labels[0]
        return self.labels[0] if len(first) > len(second) else self.labels[1]

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        self.calls += 1
        prompt = request.messages[-1].text()
        self.prompts.append(prompt)
        await asyncio.sleep(0)
        usage = Usage(input_tokens=len(prompt.split()), output_tokens=1)
        return [Completion(text=self.answer(prompt), usage=usage)]


def items_of_lengths(lengths: list[int]) -> list[NoveltyItem]:
    return [
        NoveltyItem(id=f"s{length:03d}", problem="Cross the river.", solution="x" * length)
        for length in lengths
    ]


def judge_for(model: ScriptedJudge, **options: Any) -> PairwiseNoveltyJudge:
    return PairwiseNoveltyJudge.create(model, **options)


def test_parse_choice_is_strict() -> None:
    labels = ("1", "2")
    for text, choice in [("1", "first"), (" 2\n", "second"), ("**1**", "first"),
                         ("Pair 2.", "second"), ('"1"', "first"), ("`2`", "second")]:  # fmt: skip
        assert parse_choice(text, labels).choice == choice, text
    for text in ["", "EQUAL", "1 or 2", "12", "I choose 1", "Pair 1 is more novel", "3"]:
        verdict = parse_choice(text, labels)
        assert verdict.choice is None and verdict.error and verdict.raw == text


def test_compare_asks_both_orders_and_agrees_on_the_winner() -> None:
    model = ScriptedJudge()
    judge = judge_for(model)
    short, long = items_of_lengths([5, 30])
    comparison = asyncio.run(judge.compare(short, long))
    assert model.calls == 2
    assert solutions_in(model.prompts[0]) != solutions_in(model.prompts[1])
    assert sorted(solutions_in(model.prompts[0])) == sorted(solutions_in(model.prompts[1]))
    assert comparison.outcome == "b"  # the longer one, whichever position it was shown in
    assert (comparison.ab.choice, comparison.ba.choice) == ("second", "first")


def test_position_bias_cancels_to_a_tie() -> None:
    model = ScriptedJudge(bias=10)  # cannot tell lengths within 10 apart: always says '1'
    judge = judge_for(model)
    a, b, c = items_of_lengths([20, 25, 60])
    close = asyncio.run(judge.compare(a, b))
    assert (close.ab.choice, close.ba.choice) == ("first", "first")
    assert close.outcome == "tie"
    assert asyncio.run(judge.compare(a, c)).outcome == "b"


def test_fully_position_biased_judge_keeps_input_order() -> None:
    items = items_of_lengths([3, 50, 10, 40, 20])
    ranking = asyncio.run(judge_for(ScriptedJudge(bias=10**6)).evaluate(items))
    assert ranking.order == [i.id for i in items]  # every comparison a tie; sorts are stable
    assert len(ranking.ties) == len(ranking.comparisons) > 0


@pytest.mark.parametrize("n", [1, 2, 5, 13, 30])
def test_merge_sort_ranks_and_stays_within_n_log_n(n: int) -> None:
    lengths = random.Random(n).sample(range(1, 500), n)
    items = items_of_lengths(lengths)
    model = ScriptedJudge()
    ranking = asyncio.run(judge_for(model).evaluate(items, method="merge"))
    assert ranking.order == [i.id for i in sorted(items, key=lambda i: -len(i.solution))]
    assert ranking.ranks[ranking.order[0]] == 1
    bound = n * math.ceil(math.log2(n)) if n > 1 else 0
    assert ranking.n_comparisons <= bound == merge_sort_bound(n)
    assert ranking.n_model_calls == model.calls == 2 * len(ranking.comparisons)
    assert not ranking.failures


def test_bubble_sort_makes_n_choose_2_comparisons() -> None:
    n = 9
    items = items_of_lengths(random.Random(1).sample(range(1, 200), n))
    model = ScriptedJudge()
    ranking = asyncio.run(judge_for(model).evaluate(items, method="bubble"))
    assert ranking.n_comparisons == n * (n - 1) // 2
    assert ranking.order == [i.id for i in sorted(items, key=lambda i: -len(i.solution))]
    assert model.calls == ranking.n_model_calls <= n * (n - 1)
    merge = asyncio.run(judge_for(ScriptedJudge()).evaluate(items, method="merge"))
    assert merge.order == ranking.order and merge.n_comparisons < ranking.n_comparisons


def test_usage_is_summed_over_every_call() -> None:
    model = ScriptedJudge()
    ranking = asyncio.run(judge_for(model).evaluate(items_of_lengths([4, 9, 2, 7])))
    assert ranking.usage.output_tokens == model.calls
    assert ranking.usage.input_tokens == sum(len(p.split()) for p in model.prompts)


def test_parse_failures_are_recorded_not_coerced() -> None:
    items = items_of_lengths([10, 80, 30, 60])
    odd = NoveltyItem(id="odd", problem="Cross the river.", solution="weird " * 20)
    model = ScriptedJudge(garble="weird")
    ranking = asyncio.run(judge_for(model).evaluate([*items, odd]))
    assert ranking.failures, "comparisons with the garbled item must be failures"
    for failed in ranking.failures:
        assert "odd" in (failed.a, failed.b)
        assert failed.outcome == "failed"
        assert failed.ab.raw == "Both are equally novel." and failed.ab.choice is None
        assert failed.ab.error and "expected only" in failed.ab.error
    others = [i for i in ranking.order if i != "odd"]
    assert others == [i.id for i in sorted(items, key=lambda i: -len(i.solution))]


def test_empty_model_answer_is_a_failure() -> None:
    async def silent(request: GenerateRequest) -> list[Completion]:
        return []

    a, b = items_of_lengths([1, 2])
    comparison = asyncio.run(judge_for(silent).compare(a, b))  # type: ignore[arg-type]
    assert (
        comparison.outcome == "failed" and comparison.ab.error == "the model returned no completion"
    )


def test_prompt_file_and_labels_can_be_replaced(tmp_path: Path) -> None:
    prompt = tmp_path / "paper_style.txt"
    prompt.write_text(
        "Compare.\nQA1:\nProblem: {problem_1}\nSolution: {solution_1}\n"
        "QA2:\nProblem: {problem_2}\nSolution: {solution_2}\nAnswer {label_1} or {label_2}.",
        encoding="utf-8",
    )
    model = ScriptedJudge(labels=("QA1", "QA2"))
    judge = judge_for(model, prompt_file=str(prompt), labels=("QA1", "QA2"))
    ranking = asyncio.run(judge.evaluate(items_of_lengths([5, 15, 10])))
    assert ranking.order == ["s015", "s010", "s005"]
    assert model.prompts[0].startswith("Compare.")
    bad = tmp_path / "bad.txt"
    bad.write_text("Which is better? {solution_1}", encoding="utf-8")
    with pytest.raises(CrevalError, match="solution_2"):
        judge_for(model, prompt_file=str(bad))
    with pytest.raises(CrevalError, match="does not exist"):
        judge_for(model, prompt_file=str(tmp_path / "missing.txt"))


def test_shipped_prompt_shows_both_pairs_and_labels() -> None:
    judge = judge_for(ScriptedJudge())
    a, b = items_of_lengths([3, 4])
    text = judge.prompt(a, b)
    assert "Pair 1" in text and "Pair 2" in text and "{" not in text
    assert solutions_in(text) == (a.solution, b.solution)


def test_evaluate_validation() -> None:
    judge = judge_for(ScriptedJudge())
    a, b = items_of_lengths([3, 4])
    with pytest.raises(ValueError, match="unique"):
        asyncio.run(judge.evaluate([a, a]))
    with pytest.raises(ValueError, match="method"):
        asyncio.run(judge.evaluate([a, b], method="quick"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="itself"):
        asyncio.run(judge.compare(a, a))
    with pytest.raises(ValueError, match="labels"):
        judge_for(ScriptedJudge(), labels=("A", "a"))
