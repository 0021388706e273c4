"""Loaders of the creative/uncreative sets: starter, staged MacGyver and writing sets, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.metric_validity.data import balanced_sample, load_domain, remove_prompt
from creval.errors import CrevalError


def test_starter_sets_are_balanced_and_ours() -> None:
    for domain in ("writing", "problem-solving"):
        items = load_domain(domain)
        assert len(items) == 20 and sum(i.label for i in items) == 10
        assert all(len(i.text.split()) > 7 for i in items)


def test_macgyver_staged_is_stripped_and_sampled_with_a_seed() -> None:
    path = shared_data_path("creative_eval", "problem_solving", "macgyver_solvable_labeled.jsonl")
    items = load_domain("problem-solving", str(path))
    assert len(items) == 1306 and sum(i.label for i in items) == 956
    assert not any("<br" in i.text.lower() for i in items)
    sample = balanced_sample(items, per_class=20, seed=1)
    assert [i.label for i in sample] == [1] * 20 + [0] * 20
    assert sample == balanced_sample(items, per_class=20, seed=1)
    assert sample != balanced_sample(items, per_class=20, seed=2)
    full = balanced_sample(items, per_class=None, seed=0)
    assert len(full) == 700  # 350 per class, the size of the smaller class


def test_upstream_sheet_gives_the_same_labelled_solutions() -> None:
    pytest.importorskip("openpyxl", reason="needs the 'data' extra")
    folder = shared_data_path("creative_eval", "problem_solving")
    sheet = load_domain("problem-solving", str(folder / "macgyver_problem_solution_pair.xlsx"))
    jsonl = load_domain("problem-solving", str(folder / "macgyver_solvable_labeled.jsonl"))
    assert [(i.id, i.label, i.text) for i in sheet] == [(i.id, i.label, i.text) for i in jsonl]


def test_creativity_index_writing_sets_lose_their_prompt() -> None:
    folder = shared_data_path("creative_eval", "creative_writing", "creativity_index")
    items = load_domain("writing", str(folder))
    human = [i for i in items if i.label == 1]
    assert len(human) == 100 + 247 + 235
    raw = json.loads((folder / "book" / "Human_book.json").read_text(encoding="utf-8"))
    first = next(i for i in human if i.id == "book/Human_book/0")
    assert raw[0]["text"].startswith(raw[0]["prompt"])
    assert not first.text.startswith(raw[0]["prompt"]) and first.text in raw[0]["text"]


def test_remove_prompt_of_model_instructions() -> None:
    llama = "[INST] <<SYS>>\nhelper\n<</SYS>>\n\nPlease write a poem starting with the following line: Swiftly walk, [/INST]"
    assert remove_prompt("Swiftly walk, greet the sun.", llama) == "greet the sun."
    assert remove_prompt("Another start.", llama) == "Another start."


def test_custom_needs_both_files(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="--creative FILE and --uncreative FILE"):
        load_domain("custom", creative=str(tmp_path / "a.jsonl"))
    good = tmp_path / "c.jsonl"
    good.write_text('{"text": "one"}\n{"id": "x", "text": "two"}\n', encoding="utf-8")
    bad = tmp_path / "u.jsonl"
    bad.write_text('{"body": "one"}\n', encoding="utf-8")
    with pytest.raises(CrevalError, match="u.jsonl:1: no string field 'text'"):
        load_domain("ideation", creative=str(good), uncreative=str(bad))
    items = load_domain("ideation", creative=str(good), uncreative=str(good))
    assert [i.label for i in items] == [1, 1, 0, 0] and items[1].id == "x"
    with pytest.raises(CrevalError, match="--domain takes"):
        load_domain("poetry")
