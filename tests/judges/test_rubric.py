"""Strict rubric parsing and the upstream JCQ pattern."""

from __future__ import annotations

import pytest

from creval.judges import (
    TTCT_CRITERIA_EN,
    TTCT_CRITERIA_JA,
    Criterion,
    RubricParse,
    parse_rubric,
    upstream_jcq_parse,
)

EN = TTCT_CRITERIA_EN
JA = TTCT_CRITERIA_JA
CLEAN_EN = "Fluency: 4\nFlexibility: 3\nOriginality: 2\nElaboration: 5"
CLEAN_JA = "流暢性: 5\n柔軟性: 4\n独創性: 3\n精緻性: 2"
SCORES = {"fluency": 4, "flexibility": 3, "originality": 2, "elaboration": 5}
SCORES_JA = {"fluency": 5, "flexibility": 4, "originality": 3, "elaboration": 2}


def test_clean_four_lines() -> None:
    result = parse_rubric(CLEAN_EN, EN)
    assert isinstance(result, RubricParse)
    assert result.scores == SCORES and result.error is None and result.ok
    assert result.raw == CLEAN_EN
    assert parse_rubric(CLEAN_JA, JA).scores == SCORES_JA


def test_upstream_judgement_layout_with_trailing_spaces() -> None:
    # The staged gpt-4o judgements are written like this (two spaces before each newline).
    text = "流暢性: 5  \n柔軟性: 4  \n独創性: 3  \n精緻性: 3"
    expected = {"fluency": 5, "flexibility": 4, "originality": 3, "elaboration": 3}
    assert parse_rubric(text, JA).scores == expected
    assert upstream_jcq_parse(text) == expected


def test_prose_before_between_and_after_is_ignored() -> None:
    text = (
        "Let me assess the answer carefully.\n\n"
        "Fluency: 4\n"
        "The ideas are varied, spanning cooking and art.\n"
        "Flexibility: 3\n"
        "Originality: 2\n"
        "Elaboration: 5\n\n"
        "Overall a solid answer."
    )
    assert parse_rubric(text, EN).scores == SCORES


def test_case_insensitive_latin_labels() -> None:
    text = "FLUENCY: 4\nflexibility: 3\nOriginality: 2\nelaboration: 5"
    assert parse_rubric(text, EN).scores == SCORES


def test_out_of_range_is_an_error_never_clipped() -> None:
    result = parse_rubric(CLEAN_EN.replace("Fluency: 4", "Fluency: 6"), EN)
    assert result.scores is None
    assert result.error == "fluency = 6 is outside 1..5"
    assert parse_rubric(CLEAN_EN.replace("Elaboration: 5", "Elaboration: 0"), EN).error == (
        "elaboration = 0 is outside 1..5"
    )
    assert parse_rubric(CLEAN_EN.replace("Fluency: 4", "Fluency: -1"), EN).error == (
        "fluency = -1 is outside 1..5"
    )


def test_custom_range() -> None:
    text = "Fluency: 9\nFlexibility: 0\nOriginality: 10\nElaboration: 5"
    assert parse_rubric(text, EN, low=0, high=10).scores == {
        "fluency": 9, "flexibility": 0, "originality": 10, "elaboration": 5,
    }  # fmt: skip
    assert parse_rubric(text, EN).error == (
        "fluency = 9 is outside 1..5; flexibility = 0 is outside 1..5; "
        "originality = 10 is outside 1..5"
    )


def test_missing_line() -> None:
    result = parse_rubric("Fluency: 4\nFlexibility: 3\nElaboration: 5", EN)
    assert result.scores is None and result.error == "missing originality"
    refusal = "申し訳ありませんが、評価を行うためには具体的な回答内容が必要です。"
    assert parse_rubric(refusal, JA).error == (
        "missing fluency; missing flexibility; missing originality; missing elaboration"
    )


def test_bold_markdown_and_list_markers() -> None:
    text = "**Fluency**: 4\n**Flexibility:** 3\n- Originality: **2**\n### Elaboration: 5"
    assert parse_rubric(text, EN).scores == SCORES
    text = "* **流暢性**: 5\n1. 柔軟性: 4\n2) 独創性: 3\n> 精緻性: 2"
    assert parse_rubric(text, JA).scores == SCORES_JA


def test_brackets_and_out_of_forms() -> None:
    text = "Fluency: [4]\nFlexibility: 3/5\nOriginality: 【2】\nElaboration: 5 / 5"
    assert parse_rubric(text, EN).scores == SCORES
    assert parse_rubric("[Fluency]: 4\nFlexibility: 3\nOriginality: 2\nElaboration: 5",
                        EN).scores == SCORES  # fmt: skip
    wrong_scale = parse_rubric(CLEAN_EN.replace("Fluency: 4", "Fluency: 8/10"), EN)
    assert wrong_scale.error == "fluency = 8/10 is not on the 1..5 scale"


def test_full_width_digits_and_colon() -> None:
    text = "流暢性：５\n柔軟性：４\n独創性: ３\n精緻性 ： 2"
    assert parse_rubric(text, JA).scores == SCORES_JA
    # The upstream regex wants an ASCII colon and digit: it fails on the same verdict.
    assert upstream_jcq_parse(text) is None


def test_duplicates_same_value_ok_different_values_conflict() -> None:
    again = CLEAN_EN + "\n\nSummary:\nFluency: 4"
    assert parse_rubric(again, EN).scores == SCORES
    conflict = parse_rubric(CLEAN_EN + "\nFluency: 3", EN)
    assert conflict.scores is None
    assert conflict.error == "conflicting values for fluency: 4, 3"


def test_non_integer_and_ambiguous_values_are_errors() -> None:
    assert parse_rubric(CLEAN_EN.replace("Fluency: 4", "Fluency: 4.5"), EN).error == (
        "fluency = 4.5 is not an integer"
    )
    assert parse_rubric(CLEAN_EN.replace("Fluency: 4", "Fluency: 3-4"), EN).error == (
        "fluency has an ambiguous value '3-4'"
    )
    assert parse_rubric(CLEAN_EN.replace("Fluency: 4", "Fluency: 3 or 4"), EN).error == (
        "fluency has an ambiguous value '3 or 4'"
    )
    # An echoed output template is not a score, so it cannot silently pass.
    echoed = "流暢性: [1-5]\n柔軟性: [1-5]\n独創性: [1-5]\n精緻性: [1-5]\n\n" + CLEAN_JA
    assert parse_rubric(echoed, JA).error == (
        "fluency has an ambiguous value '[1-5]'; flexibility has an ambiguous value '[1-5]'; "
        "originality has an ambiguous value '[1-5]'; elaboration has an ambiguous value '[1-5]'"
    )


def test_trailing_text_after_the_number_is_ignored() -> None:
    text = "流暢性: 4 (7-8個のアイデア)\n柔軟性: 4点\n独創性: 3。\n精緻性: 2 - 説明が少ない"
    assert parse_rubric(text, JA).scores == {
        "fluency": 4, "flexibility": 4, "originality": 3, "elaboration": 2,
    }  # fmt: skip


def test_label_followed_by_prose_is_not_a_score() -> None:
    # An echoed rubric heading ("# 流暢性: 質問と...") is prose, not a value.
    text = "# 流暢性: 質問と関連する異なるアイデアの量を評価してください。\n" + CLEAN_JA
    assert parse_rubric(text, JA).scores == SCORES_JA
    assert parse_rubric("Fluency: high\nFlexibility: 3\nOriginality: 2\nElaboration: 5",
                        EN).error == "missing fluency"  # fmt: skip


def test_several_scores_on_one_line() -> None:
    assert parse_rubric("流暢性: 5 柔軟性: 4 独創性: 3 精緻性: 2", JA).scores == SCORES_JA
    assert parse_rubric("Fluency: 4, Flexibility: 3 | Originality: 2; Elaboration: 5",
                        EN).scores == SCORES  # fmt: skip


def test_labels_need_a_boundary() -> None:
    # "disfluency:" is not "fluency:", and a label glued to Japanese text is prose.
    text = "Disfluency: 1\n" + CLEAN_EN
    assert parse_rubric(text, EN).scores == SCORES
    assert parse_rubric("回答の流暢性: 1\n" + CLEAN_JA, JA).scores == SCORES_JA


def test_custom_criteria_with_several_labels() -> None:
    crit = (Criterion("fluency", ("fluency", "流暢性")), Criterion("novelty", ("novelty",)))
    assert parse_rubric("流暢性: 3\nNovelty: 2", crit).scores == {"fluency": 3, "novelty": 2}
    assert parse_rubric("Fluency: 3\n流暢性: 4\nNovelty: 2", crit).error == (
        "conflicting values for fluency: 3, 4"
    )


def test_argument_validation() -> None:
    with pytest.raises(ValueError, match="non-empty sequence"):
        parse_rubric(CLEAN_EN, ())
    with pytest.raises(ValueError, match="unique"):
        parse_rubric(CLEAN_EN, (EN[0], EN[0]))
    with pytest.raises(ValueError, match="two criteria"):
        parse_rubric("x", (Criterion("a", ("same",)), Criterion("b", ("Same",))))
    with pytest.raises(ValueError, match="low must not exceed high"):
        parse_rubric(CLEAN_EN, EN, low=5, high=1)
    with pytest.raises(ValueError, match="must be a string"):
        parse_rubric(None, EN)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="labels"):
        Criterion("fluency", "fluency")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="without a colon"):
        Criterion("fluency", ("fluency:",))


def test_upstream_pattern_semantics() -> None:
    assert upstream_jcq_parse(CLEAN_JA) == SCORES_JA
    # Brackets and prose around are allowed; the four labels must be adjacent and in order.
    bracketed = "評価:\n流暢性: [5]\n柔軟性: [4]\n独創性: [3]\n精緻性: [2]\n以上"
    assert upstream_jcq_parse(bracketed) == SCORES_JA
    assert upstream_jcq_parse("柔軟性: 4\n流暢性: 5\n独創性: 3\n精緻性: 2") is None
    assert upstream_jcq_parse("流暢性: 5\n理由\n柔軟性: 4\n独創性: 3\n精緻性: 2") is None
    # Its [1-5] class means a 6 fails the match instead of being reported.
    assert upstream_jcq_parse(CLEAN_JA.replace("流暢性: 5", "流暢性: 6")) is None
    # It reads the first digit of "10" ... then fails, as the next token is not whitespace.
    assert upstream_jcq_parse(CLEAN_JA.replace("流暢性: 5", "流暢性: 10")) is None
