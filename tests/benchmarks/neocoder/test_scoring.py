"""NeoGauge scoring of judged solutions (seed 000): pass@k under sampling, incorrect solutions
with unparsed techniques, and the human divergent score (Eq. 6). The sandbox judge is
replaced by fixed verdicts so that the aggregation is checked by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from creval.benchmarks.neocoder import scoring
from creval.benchmarks.neocoder.benchmark import starter_dir
from creval.benchmarks.neocoder.data import NeoCoderDataset, Problem, load_neocoder
from creval.benchmarks.neocoder.scoring import ScoreSettings, score_items
from creval.metrics.neogauge import state_of_rounds
from tests.benchmarks.scores_contract import assert_per_item_means


def _dataset(human: dict[str, list[list[str]]]) -> NeoCoderDataset:
    problems = [Problem(problem_id=pid, problem_statements=["s0", "s1"],
                        constraints_list=[["this is the og problem"], ["for loop"]])
                for pid in human]
    return NeoCoderDataset(problems=problems, human_techniques=human)


def _fix_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge's verdicts without the sandbox: an answer that starts with "ok" is correct."""
    def judge(dataset: Any, items: Sequence[dict[str, Any]], settings: Any) -> list[list[dict[str, Any]]]:
        return [[{"program": a, "correct": a.startswith("ok"), "verdict": "x"} for a in item["answers"]]
                for item in items]
    monkeypatch.setattr(scoring, "_judge", judge)


def _item(pid: str, t: int, answers: list[str], techniques: Sequence[list[str] | None]) -> dict[str, Any]:
    return {"problem_id": pid, "round": t, "t": t, "constraints": ["for loop"] if t else [],
            "answers": answers, "llm_techniques": techniques}


def test_sampling_pass_at_1_is_the_unbiased_estimate_and_pass_at_k_is_reported(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fix_verdicts(monkeypatch)
    human = {"A": [["for loop"]], "B": [["for loop"]]}
    five = [["set"]] * 5
    items = [_item("A", 0, ["ok", "bad", "bad", "bad", "bad"], five),   # c/n = 1/5
             _item("B", 0, ["ok", "ok", "bad", "bad", "bad"], five)]    # c/n = 2/5
    scores = score_items(_dataset(human), items, ScoreSettings())
    (row,) = scores.extra("states")
    assert row["pass_at_1"] == pytest.approx((1 / 5 + 2 / 5) / 2)  # not "any of 5" (= 1.0)
    assert row["pass_at_k"] == pytest.approx(1.0) and row["k"] == 5
    assert scores.headline["pass@1@0"] == pytest.approx(0.3)
    assert scores.headline["pass@5@0"] == pytest.approx(1.0)
    assert scores.per_item["pass@1@0"] == [pytest.approx(1 / 5), pytest.approx(2 / 5)]
    assert_per_item_means(scores)


def test_incorrect_solutions_with_unparsed_techniques_score_zero_in_eq2_and_eq4(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fix_verdicts(monkeypatch)
    human = {"A": [["for loop"]], "B": [["for loop"]], "C": [["for loop"]]}
    items = [_item("A", 0, ["ok"], [["recursion"]]),   # correct, free, all new: 1
             _item("B", 0, ["bad"], [None]),           # incorrect, detection unparsed: 0
             _item("C", 0, ["ok"], [None])]            # correct, unparsed: unknown, left out
    scores = score_items(_dataset(human), items, ScoreSettings())
    (row,) = scores.extra("states")
    assert row["convergent"] == pytest.approx(1 / 2)
    assert row["neogauge"] == pytest.approx(1 / 2)
    assert row["divergent"] == pytest.approx(1.0)  # Eq. 3 needs techniques: A only
    assert row["constraint_following"] == pytest.approx(1.0)
    assert row["pass_at_1"] == pytest.approx(2 / 3)
    assert any("did not parse" in note for note in scores.notes)


def test_human_divergent_is_one_number_over_all_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    _fix_verdicts(monkeypatch)
    # A's solutions: {loop, set} vs {loop} -> 1/2 and 0; B's: {x} vs {y} -> 1 and 1
    human = {"A": [["for loop", "set"], ["for loop"]], "B": [["dp"], ["recursion"]]}
    items = [_item("A", 0, ["ok"], [["set"]]), _item("B", 0, ["ok"], [["set"]]),
             _item("A", 1, ["ok"], [["set"]])]  # state 1 holds problem A only
    scores = score_items(_dataset(human), items, ScoreSettings())
    expected = (1 / 2 + 0 + 1 + 1) / 4
    assert scores.headline["human_divergent"] == pytest.approx(expected)
    assert [r["human_divergent"] for r in scores.extra("states")] == [pytest.approx(expected)] * 2


def test_per_item_values_are_the_problems_behind_each_state_mean(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fix_verdicts(monkeypatch)
    human = {"A": [["for loop"]], "B": [["for loop"]], "C": [["for loop"]], "D": []}
    items = [_item("A", 0, ["ok", "bad"], [["recursion", "for loop"], ["set"]]),  # best: 1/2 new
             _item("B", 0, ["bad", "bad"], [None, None]),   # incorrect, unparsed: 0, no Eq. 3
             _item("C", 0, ["ok", "ok"], [None, None]),     # correct, unparsed: left out
             _item("D", 0, ["ok", "bad"], [["set"], ["set"]])]  # no human techniques: left out
    scores = score_items(_dataset(human), items, ScoreSettings())
    per_item = scores.per_item
    assert per_item["pass@1@0"] == [0.5, 0.0, 1.0, 0.5]
    assert per_item["pass@2@0"] == [1.0, 0.0, 1.0, 1.0]
    assert per_item["convergent@0"] == [1.0, 0.0, None, None]
    assert per_item["divergent@0"] == [0.5, None, None, None]
    assert per_item["neogauge@0"] == [0.5, 0.0, None, None]
    assert scores.headline["convergent@0"] == pytest.approx(0.5)
    assert scores.headline["divergent@0"] == pytest.approx(0.5)
    assert_per_item_means(scores)


def test_divergent_with_every_solution_excluded_is_none_not_nan(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _fix_verdicts(monkeypatch)
    items = [_item("A", 0, ["ok"], [[]])]  # no technique detected: left out with empty="exclude"
    scores = score_items(_dataset({"A": [["for loop"]]}), items, ScoreSettings(empty="exclude"))
    assert scores.headline["divergent@0"] is None and scores.per_item["divergent@0"] == [None]
    assert_per_item_means(scores)


def test_starter_set_judged_in_the_sandbox_keeps_the_scores_contract() -> None:
    """The real judge and the static detector on the starter set's own codes (one wrong
    answer per state, so that the means are not all 1)."""
    dataset = load_neocoder(starter_dir())
    items = []
    for problem in dataset.problems:
        states = state_of_rounds(problem.constraints_list)
        for rnd in range(3):
            code = (problem.codes or [])[rnd]
            wrong = problem.problem_id == f"CRV0{rnd + 1}A"
            answer = "```python\nprint(0)\n```" if wrong else f"```python\n{code}\n```"
            items.append({"problem_id": problem.problem_id, "round": rnd, "t": states[rnd],
                          "constraints": problem.constraints_list[rnd], "answers": [answer]})
    scores = score_items(dataset, items, ScoreSettings(detector="static"))
    states = [row["t"] for row in scores.extra("states")]
    assert states == [0, 1, 2]
    for t in states:
        for name in ("pass@1", "convergent", "divergent", "neogauge"):
            assert len(scores.per_item[f"{name}@{t}"]) == 6
        assert 0.0 < scores.headline[f"pass@1@{t}"] < 1.0
        assert scores.headline[f"convergent@{t}"] is not None
    assert_per_item_means(scores)
