"""The technique vocabulary, the LLM detector's request, its strict parser and agreement."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.static_techniques import detect_static
from creval.benchmarks.neocoder.techniques import (
    ALGORITHMS,
    CONTROL_FLOWS,
    DATA_STRUCTURES,
    SYNONYMS,
    VOCABULARY,
    agreement,
    agreement_table,
    canonical_technique,
    detection_request,
    parse_techniques,
)
from creval.errors import CrevalError

# --- vocabulary -------------------------------------------------------------------------


def test_vocabulary_is_the_papers_34_names_without_repeats() -> None:
    assert len(VOCABULARY) == 34 == len(set(VOCABULARY))
    assert (len(CONTROL_FLOWS), len(DATA_STRUCTURES), len(ALGORITHMS)) == (8, 8, 18)
    assert VOCABULARY == CONTROL_FLOWS + DATA_STRUCTURES + ALGORITHMS


def test_vocabulary_covers_every_constraint_in_the_published_benchmark() -> None:
    problems = json.loads(shared_data_path("neocoder", "NeoCoder", "NeoCoder.json").read_text())
    used = {c for p in problems for cs in p["constraints_list"] for c in cs}
    assert used - {"this is the og problem"} <= set(VOCABULARY)


def test_published_human_labels_are_vocabulary_names_except_the_documented_few() -> None:
    # The data README: 18 occurrences in 7 problems lie outside the vocabulary.
    path = shared_data_path("neocoder", "NeoCoder", "human_solution_techniques.json")
    labels = json.loads(path.read_text())
    outside = Counter(
        (pid, name)
        for pid, lists in labels.items()
        for names in lists
        for name in names
        if name not in VOCABULARY
    )
    assert sum(outside.values()) == 18
    assert len({pid for pid, _ in outside}) == 7


def test_every_synonym_points_at_a_vocabulary_name() -> None:
    assert set(SYNONYMS.values()) <= set(VOCABULARY)


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("For Loop", "for loop"),
        ("for-loops", "for loop"),
        ("  WHILE   loop ", "while loop"),
        ("two_pointer", "two pointers"),
        ("BFS", "width first search"),
        ("Breadth-first search", "width first search"),
        ("divide and conquer", "divide & conquer"),
        ("Kadane\u2019s algorithm", "Kadanes algorithm"),
        ("hash table", "hashmap"),
        ("dictionaries", "dictionary"),
        ("passes", None),
        ("pass", "pass statement"),
        ("list", None),
    ],
)
def test_canonical_technique_spellings(spelling: str, expected: str | None) -> None:
    assert canonical_technique(spelling) == expected


# --- parser ---------------------------------------------------------------------------


def test_bullet_answer_in_order_without_repeats() -> None:
    answer = "- if statement\n- For loop\n- sorting (to order the list)\n- for loops\n- tuple"
    parsed = parse_techniques(answer)
    assert parsed.techniques == ["if statement", "for loop", "sorting", "tuple"]
    assert parsed.ok and parsed.unknown == [] and parsed.raw == answer and parsed.error is None


@pytest.mark.parametrize(
    "answer",
    [
        "['recursion', 'set']",
        "1. Recursion\n2. Set",
        "* recursion\n* **set**",
        "recursion, set",
        "```\n- recursion\n- set\n```",
        "\u2022 recursion\n\u2022 sets.",
    ],
)
def test_common_answer_layouts(answer: str) -> None:
    assert parse_techniques(answer).techniques == ["recursion", "set"]


def test_unlisted_items_are_kept_as_unknown() -> None:
    parsed = parse_techniques("Techniques used:\n- for loop\n- list\n- cin statement\n- list")
    assert parsed.techniques == ["for loop"]
    assert parsed.unknown == ["Techniques used", "list", "cin statement"]
    assert parsed.ok


@pytest.mark.parametrize("answer", ["", "I cannot tell.", "- list\n- vector", "for-each construct"])
def test_an_answer_naming_nothing_is_a_failure_not_a_for_loop(answer: str) -> None:
    parsed = parse_techniques(answer)
    assert not parsed.ok
    assert parsed.techniques == []  # the research code returned ["for loop"] here
    assert parsed.raw == answer and parsed.error


def test_an_explicit_none_is_a_valid_empty_answer() -> None:
    for answer in ("- none", "None.", "No techniques"):
        parsed = parse_techniques(answer)
        assert parsed.ok and parsed.techniques == []


def test_none_next_to_real_names_is_ignored() -> None:
    assert parse_techniques("- none\n- heap").techniques == ["heap"]


def test_only_the_given_vocabulary_counts() -> None:
    parsed = parse_techniques("- for loop\n- heap", vocabulary=["heap"])
    assert parsed.techniques == ["heap"] and parsed.unknown == ["for loop"]
    # A synonym only counts when its target is in the vocabulary.
    assert parse_techniques("- BFS", vocabulary=["heap"]).ok is False


def test_echoing_the_vocabulary_fails_with_max_techniques() -> None:
    echo = "\n".join(f"- {name}" for name in VOCABULARY)
    assert parse_techniques(echo).ok
    parsed = parse_techniques(echo, max_techniques=10)
    assert not parsed.ok and len(parsed.techniques) == 34 and "34" in (parsed.error or "")
    with pytest.raises(CrevalError):
        parse_techniques(echo, max_techniques=0)


def test_parser_rejects_non_text() -> None:
    with pytest.raises(CrevalError):
        parse_techniques(["for loop"])  # type: ignore[arg-type]


# --- request ---------------------------------------------------------------------------


def test_detection_request_is_context_free_and_greedy() -> None:
    code = "def solve():\n    print(sum(map(int, input().split())))\n"
    request = detection_request(code)
    assert request.temperature == 0.0 and request.n == 1
    assert [m.role for m in request.messages] == ["system", "user"]
    assert request.messages[1].text() == code
    system = request.messages[0].text()
    for name in VOCABULARY:
        assert f"- {name}\n" in system + "\n"
    assert "{" not in system  # every placeholder filled
    assert detection_request(code) == request  # same code, same request (cacheable)


def test_detection_request_custom_template_and_vocabulary() -> None:
    request = detection_request("x = 1", template="Pick from:\n{vocabulary}\n", vocabulary=["heap"])
    assert request.messages[0].text() == "Pick from:\n- heap"
    with pytest.raises(CrevalError, match="placeholder"):
        detection_request("x = 1", template="Pick from {choices}")


def test_shipped_prompt_answers_parse_with_the_parser() -> None:
    # The shipped prompt asks for "- name" lines; such an answer must parse cleanly.
    system = detection_request("pass").messages[0].text()
    listed = [line[2:] for line in system.splitlines() if line.startswith("- ")]
    assert listed == list(VOCABULARY)
    assert parse_techniques("\n".join(f"- {n}" for n in listed)).techniques == listed


# --- agreement ------------------------------------------------------------------------


def test_agreement_hand_calculation() -> None:
    detectable = {"for loop", "if statement", "while loop", "set"}
    llm = {"for loop", "if statement", "greedy algorithm"}  # greedy: not detectable, ignored
    static = {"for loop", "while loop", "set"}
    a = agreement(llm, static, detectable)
    # both = {for loop}; llm-only = {if statement}; static-only = {while loop, set}
    assert a["both"] == ["for loop"]
    assert a["llm_only"] == ["if statement"]
    assert a["static_only"] == ["while loop", "set"]
    assert a["precision"] == pytest.approx(1 / 3)
    assert a["recall"] == pytest.approx(1 / 2)
    assert a["jaccard"] == pytest.approx(1 / 4)


def test_agreement_with_nothing_detectable_found() -> None:
    a = agreement({"greedy algorithm"}, set(), {"for loop"})
    assert a["precision"] is None and a["recall"] is None and a["jaccard"] == 1.0


def test_agreement_table_counts() -> None:
    pairs = [
        ({"for loop", "set"}, {"for loop"}),
        ({"for loop"}, {"for loop", "set"}),
        (set(), set()),
    ]
    table = agreement_table(pairs, {"for loop", "set"})
    assert table["for loop"] == {
        "both": 2, "llm_only": 0, "static_only": 0, "neither": 1,
        "precision": 1.0, "recall": 1.0, "jaccard": 1.0,
    }  # fmt: skip
    assert (table["set"]["both"], table["set"]["llm_only"], table["set"]["static_only"]) == (
        0,
        1,
        1,
    )
    assert table["set"]["jaccard"] == 0.0


def test_static_detector_agrees_with_gpt4_on_loops_in_human_solutions() -> None:
    """The published GPT-4 labels of human solutions against the static detector."""
    root = ("neocoder", "NeoCoder")
    solutions = json.loads(shared_data_path(*root, "human_solutions.json").read_text())
    labels = json.loads(shared_data_path(*root, "human_solution_techniques.json").read_text())
    pairs = []
    for pid, lists in labels.items():
        for code, names in zip(solutions[pid], lists, strict=True):
            found = detect_static(code)
            if not found.unparseable:
                pairs.append((set(names), set(found.techniques)))
    assert len(pairs) > 4000  # most human solutions are Python 3
    table = agreement_table(pairs, found.detectable)
    assert table["for loop"]["jaccard"] > 0.95
    assert table["while loop"]["jaccard"] > 0.8
    assert table["set"]["jaccard"] > 0.75
    assert table["if statement"]["jaccard"] > 0.75
