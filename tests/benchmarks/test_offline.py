"""``creval run ... --dry-run`` lists every unit's first prompt, calls no model, writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval

from creval.benchmarks.base import registry
from creval.benchmarks.offline import dry_run


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_benchmark_names_its_first_requests(name: str) -> None:
    bench = registry()[name]()
    options = bench.parse_options({"limit": 2})
    listed: list[dict[str, Any]] = dry_run(bench, options)
    assert listed, f"{name} has no unit with limit 2"
    for item in listed:  # a unit asks a model (its prompt is listed) or asks none
        assert (item["role"] is None) == (not item["messages"]), item
        assert not item["messages"] or item["messages"][-1]["content"]


def test_dry_run_from_the_command_line_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = creval("run", "dat", "--trials", "2", "--dry-run", "--model", "openai:none",
                  "--base-url", "http://127.0.0.1:9/v1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "dat: 2 unit(s)" in done.stdout and "trial-00001" in done.stdout
    assert "10 nouns" in done.stdout
    assert not out.exists()


WORDS = ["cat", "violin", "thimble", "tomato", "hippo", "jumper", "machinery", "prickle", "tickets",
         "dog"]


def test_a_file_of_answers_is_scored_by_the_benchmark_scorer(tmp_path: Path) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"key": "trial-00001", "answer": "\n".join(WORDS)}) + "\n")
    done = creval("score", "answers", "dat", str(answers), "--trials", "3",
                  "--out", str(tmp_path / "scores.json"))
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "scores.json").read_text())
    direct = creval("score", "dat", *WORDS)
    expected = float(direct.stdout.split("dat_mean=")[1].split()[0])
    assert scores["headline"]["dat_mean"] == pytest.approx(expected, abs=1e-4)
    assert scores["headline"]["valid_trials"] == 1
    assert "2 unit(s) had none" in " ".join(scores["notes"])


def test_answers_for_a_judged_benchmark_point_to_replay(tmp_path: Path) -> None:
    from creval.benchmarks.base import get_benchmark

    bench = get_benchmark("ttct")
    options = bench.parse_options({"limit": 1, "answers": 1})
    key = bench.units(options)[0].key
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"key": key, "answer": "A ladder as a bridge."}) + "\n")
    done = creval("score", "answers", "ttct", str(answers), "--limit", "1", "--answers", "1")
    assert done.returncode == 2
    assert "judge call" in done.stderr and "replay:" in done.stderr


def test_a_unit_that_scores_a_text_lists_the_text() -> None:
    bench = registry()["metric-validity"]()
    listed = dry_run(bench, bench.parse_options({"limit": 2, "metrics": "ppl"}))
    assert [item["kind"] for item in listed] == ["score text", "score text"]
    assert all(item["messages"][0]["content"].strip() for item in listed)
