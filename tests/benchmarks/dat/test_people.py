"""DAT runs placed among people re-scored by the run's own scorer (never the `dat` column)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.dat.humans import PEOPLE_ENV, read_model_words, read_people
from creval.benchmarks.dat.people import people_scores, place_among_people
from creval.benchmarks.dat.scoring import DATScorer
from creval.metrics.percentile import human_percentile, percentile_of_score
from creval.records import Scores
from tests._cli import creval
from tests._servers import ChatServer
from tests.tests_paths import shared_data_path

GPT4 = ["Giraffe", "Microscope", "Volcano", "Tambourine", "Philosophy", "Refrigerator",
        "Asteroid", "Calligraphy", "Marshmallow", "Shoelace"]


def _scorer(**options: Any) -> DATScorer:
    return DATScorer.from_options(get_benchmark("dat").parse_options(options))


def _run(values: list[float]) -> Scores:
    """The scores of a run whose valid trials scored ``values``."""
    items: list[float | None] = list(values)
    return Scores(per_item={"dat_mean": items})


def _small_people(folder: Path, rows: int = 200, official: str | None = None) -> Path:
    """The first ``rows`` people of study 2 in a dat-humans folder; ``official`` replaces
    every official score (to show it is not used)."""
    source = shared_data_path("dat-humans", "human-level", "study2.tsv")
    lines = source.read_text(encoding="utf-8").splitlines()[: rows + 1]
    if official is not None:
        column = lines[0].split("\t").index("dat")
        lines = [lines[0]] + ["\t".join(official if i == column else c
                                        for i, c in enumerate(line.split("\t"))) for line in lines[1:]]
    (folder / "human-level").mkdir(parents=True)
    (folder / "human-level" / "study2.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_percentile_is_among_the_rescored_people_and_cached(tmp_path: Path) -> None:
    scorer = _scorer()
    root = _small_people(tmp_path / "people")
    model = [s for s in (scorer.score_words(w).score for w in (GPT4, GPT4[::-1][:8] + ["cat", "dog"]))
             if s is not None]
    scores = place_among_people(_run(model), scorer, str(root))
    rescored = [s for s in (scorer.score_words(list(p.words)).score for p in read_people(root))
                if s is not None]
    expected = human_percentile(model, rescored)
    assert scores.headline["human_percentile"] == pytest.approx(
        percentile_of_score(rescored, sum(model) / len(model)), abs=0.005)
    # two trials: too few for an interval (test_percentile.py checks the interval itself)
    assert expected.low is None and scores.headline["human_percentile_low"] is None
    assert scores.headline["human_percentile_high"] is None
    assert any("(n=2: too few trials for an interval (needs 10))" in n for n in scores.notes)
    assert scores.extra("people")["scored"] == len(rescored)
    assert any("re-scored by the same scorer as the model" in n for n in scores.notes)
    # the official column plays no part: the same people with every dat = 0
    zeroed = _small_people(tmp_path / "zeroed", official="0")
    again = place_among_people(_run(model), scorer, str(zeroed))
    assert again.headline["human_percentile"] == scores.headline["human_percentile"]
    # the second pass reads the cache (keyed by scorer and data), a new scorer does not
    assert people_scores(scorer, root).cached
    assert not people_scores(_scorer(minimum=5), root).cached


def test_without_the_people_the_report_says_how_to_get_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(PEOPLE_ENV, raising=False)
    scores = place_among_people(_run([80.0]), _scorer(), None)
    assert "human_percentile" not in scores.headline
    assert any("creval data fetch dat-humans" in n and "--people" in n for n in scores.notes)
    wrong = place_among_people(_run([80.0]), _scorer(), str(tmp_path / "nowhere"))
    assert "human_percentile" not in wrong.headline and wrong.extra("people") is None
    assert any("not a dat-humans folder" in w for w in wrong.warnings)


def test_gpt4_greedy_is_placed_among_study2_people_by_the_default_scorer() -> None:
    root = shared_data_path("dat-humans")
    gpt4 = next(m for m in read_model_words(root, "greedy") if m.model == "gpt-4")
    scorer = _scorer()
    score = scorer.score_words(list(gpt4.words)).score
    assert score is not None
    placed = place_among_people(_run([score]), scorer, str(root))
    assert 0.0 <= placed.headline["human_percentile"] <= 100.0
    assert placed.extra("people")["people"] == 8572


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    return 200, "\n".join(f"{i}. {w}" for i, w in enumerate(GPT4, 1))


def test_a_dat_run_reports_the_people_percentile(tmp_path: Path) -> None:
    root = _small_people(tmp_path / "people")
    server = ChatServer(reply=_reply)
    try:
        done = creval("run", "dat", "--model", "openai:m", "--base-url", server.url, "--api-key",
                      "x", "--trials", "3", "--people", str(root), "--no-progress", "--no-cache",
                      "--out", str(tmp_path / "runs"))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "runs" / "scores.json").read_text(encoding="utf-8"))
    assert 0 <= scores["headline"]["human_percentile"] <= 100
    assert scores["people"]["people"] == 200
    assert "People's percentile" in (tmp_path / "runs" / "report.md").read_text(encoding="utf-8")
    assert "People&#x27;s percentile" in (tmp_path / "runs" / "report.html").read_text(encoding="utf-8")


def test_scoring_a_word_list_places_it_among_people(tmp_path: Path) -> None:
    root = _small_people(tmp_path / "people")
    done = creval("score", "dat", *GPT4, "--people", str(root))
    assert done.returncode == 0, done.stderr
    assert "human_percentile=" in done.stdout and "People's percentile" in done.stdout


def test_one_trial_gives_no_interval_and_repeats_count_as_one_trial(tmp_path: Path) -> None:
    root = _small_people(tmp_path / "people", rows=60)
    scorer = _scorer()
    one = place_among_people(_run([80.0]), scorer, str(root))
    assert one.headline["human_percentile_low"] is None
    assert any("(n=1: too few trials for an interval (needs 10))" in n for n in one.notes)
    values = [70.0 + i for i in range(12) for _ in range(2)]
    repeats = Scores(per_item={"dat_mean": values}).with_extra(trials=[
        {"key": f"trial-{i // 2:05d}" + ("~r1" if i % 2 else ""), "score": v}
        for i, v in enumerate(values)])
    grouped = place_among_people(repeats, scorer, str(root))
    assert grouped.extra("people")["interval_covers"] == "groups of trials and people"
    assert grouped.headline["human_percentile_low"] is not None
    assert any("each with its repeats" in n for n in grouped.notes)
