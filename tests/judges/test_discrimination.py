"""The judge checks by hand: a judge that says 1, 2, 3, 4 to everything, a judge that varies,
small samples, and the binomial rule of the position check."""

from __future__ import annotations

from typing import Any

import pytest

from creval.judges import check_rubric, follows_criterion_order, no_variance, position_bias
from creval.records import JudgeCheck, Scores

CRITERIA = ["fluency", "flexibility", "originality", "elaboration"]


def test_the_self_judge_of_the_issue_1_2_3_4_on_35_judgements() -> None:
    checks = check_rubric([[1, 2, 3, 4]] * 35, CRITERIA, judge="rubric judge (jcq)")
    assert [c.check for c in checks] == ["no_variance"] * 4 + ["criterion_order"]
    assert all(c.items == 35 and c.judge == "rubric judge (jcq)" for c in checks)
    assert checks[0].detail == "fluency was 1 on all 35 judgements (sd 0)"
    assert checks[3].detail == "elaboration was 4 on all 35 judgements (sd 0)"
    assert "on 35 of 35 judgements (most often 1, 2, 3, 4)" in checks[4].detail
    assert "rose" in checks[4].detail


def test_a_judge_with_normal_variance_gives_no_check() -> None:
    rows = [[4, 3, 2, 5], [2, 2, 1, 3], [5, 4, 4, 4], [3, 1, 2, 2], [4, 4, 3, 5],
            [1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 3, 3], [5, 2, 4, 1], [2, 4, 1, 3]]
    assert check_rubric(rows, CRITERIA) == []


def test_small_samples_are_not_flagged() -> None:
    # four identical judgements: below min_items (5)
    assert check_rubric([[1, 2, 3, 4]] * 4, CRITERIA) == []
    # unparsed judgements (None) do not count towards min_items
    assert no_variance({"fluency": [3, 3, None, 3, None, 3]}) == []
    assert len(no_variance({"fluency": [3, 3, None, 3, None, 3]}, min_items=4)) == 1


def test_order_share_is_counted_by_hand() -> None:
    # 9 of 10 strictly decreasing: 0.9 reaches share=0.9; 8 of 10 does not
    down = [[5, 4, 2, 1]] * 9 + [[3, 3, 3, 3]]
    (check,) = follows_criterion_order(down, CRITERIA)
    assert check.check == "criterion_order" and "fell" in check.detail and "9 of 10" in check.detail
    assert follows_criterion_order([[5, 4, 2, 1]] * 8 + [[3, 3, 3, 3]] * 2, CRITERIA) == []
    # all-equal rows are no_variance's sign, not an order
    assert follows_criterion_order([[2, 2, 2, 2]] * 10, CRITERIA) == []
    # two criteria: "a < b" on every item may be real, so never a check
    assert follows_criterion_order([[1, 2]] * 20, ["a", "b"]) == []
    # rows with an unparsed score are left out
    assert follows_criterion_order([[1, 2, None, 4]] * 10, CRITERIA) == []


def test_binary_verdicts_count_as_numbers() -> None:
    (check,) = no_variance({"feasibility": [True] * 12, "safety": [True, False] * 6})
    assert check.detail == "feasibility was 1 on all 12 judgements (sd 0)"


def test_position_bias_uses_share_and_a_binomial_test() -> None:
    # 10 of 10 firsts: p = 2**-10 = 0.00098 < 0.01
    (check,) = position_bias([0] * 10, 2)
    assert check.check == "position_bias" and check.items == 10
    assert "position 1 of 2 was chosen in 10 of 10 decisions" in check.detail
    # 9 of 10: share 0.9 reached but p = 11/1024 = 0.0107 >= 0.01
    assert position_bias([0] * 9 + [1], 2) == []
    # 45 of 50: share 0.9 and p tiny
    assert len(position_bias([1] * 45 + [0] * 5, 2)) == 1
    # a balanced judge and a small sample
    assert position_bias([0, 1] * 30, 2) == []
    assert position_bias([0] * 9, 2) == []
    # four positions: 10 of 10 on the third, p = 0.25**10
    (four,) = position_bias([2] * 10, 4)
    assert "position 3 of 4" in four.detail
    # unparsed decisions are left out
    assert position_bias([0] * 9 + [None] * 5, 2) == []


@pytest.mark.parametrize(("call", "message"), [
    (lambda: position_bias([0, 2], 2), r"choices\[1\]"),
    (lambda: position_bias([0], 1), "n_positions"),
    (lambda: no_variance({"a": [1, "x"]}), r"scores\['a'\]\[1\]"),
    (lambda: follows_criterion_order([[1, 2]], CRITERIA), r"rows\[0\] has 2 scores"),
    (lambda: check_rubric([[1, 2, 3, 4]], CRITERIA, share=0.3), "share"),
    (lambda: no_variance({"a": [1]}, min_items=0), "min_items"),
])
def test_bad_arguments_are_named(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_old_scores_without_judge_checks_still_load() -> None:
    old = '{"schema_version": 2, "benchmark": "jcq", "headline": {"mean": 2.5}, "warnings": []}'
    assert Scores.model_validate_json(old).judge_checks == []
    check = JudgeCheck(judge="j", check="no_variance", detail="d", items=5)
    again = Scores.model_validate_json(Scores(judge_checks=[check]).model_dump_json())
    assert again.judge_checks == [check]


def test_a_pairwise_novelty_judge_that_always_says_1_is_flagged() -> None:
    import asyncio

    from creval.judges.novelty import NoveltyItem, PairwiseNoveltyJudge
    from creval.models.base import Completion, GenerateRequest

    def always(label: str) -> Any:
        async def generate(request: GenerateRequest) -> list[Completion]:
            return [Completion(text=label)]
        return generate

    items = [NoveltyItem(id=f"s{i}", problem="Cross the river.", solution="x" * (i + 1))
             for i in range(8)]
    lazy = asyncio.run(PairwiseNoveltyJudge.create(always("1")).evaluate(items))
    assert set(lazy.positions) == {0} and len(lazy.positions) == 2 * len(lazy.comparisons)
    (check,) = lazy.judge_checks()
    assert check.check == "position_bias" and check.judge == "pairwise novelty judge"

    async def longer(request: GenerateRequest) -> list[Completion]:  # reads the solutions
        first, second = [line for line in request.messages[-1].text().splitlines()
                         if line.startswith("Solution: ")]
        return [Completion(text="1" if len(first) > len(second) else "2")]

    fair = asyncio.run(PairwiseNoveltyJudge.create(longer).evaluate(items))
    assert fair.judge_checks() == [] and fair.order == [f"s{i}" for i in reversed(range(8))]
