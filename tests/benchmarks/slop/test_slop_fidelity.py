"""Fidelity: three released models' published metrics re-derived from their released
outputs, read in place from the staged copy of sam-paech/slop-score.

What must hold (the causes are in docs/benchmarks/slop.md): the texts pooled and their length
exactly; the seven metrics that need no list or profile to 1e-9; the slop-word and
slop-trigram rates within 1% (upstream's lists changed after some models were scored, and its
leaderboard keeps cached results); the repetition score at least the published one (without
upstream's unreleased human profile the 40 n-grams counted are the 40 most frequent, which
no other choice of 40 outnumbers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from creval.benchmarks.slop.fidelity import fidelity

MODELS = ["claude-sonnet-4-20250514", "gemma-3-4b-it", "claude-sonnet-4-5"]
EXACT = ("not_x_but_y_per_1k_chars", "mattr_500", "type_token_ratio", "vocab_level",
         "avg_sentence_length", "avg_paragraph_length", "dialogue_frequency")


@pytest.fixture(scope="module")
def rows(slop_data: Path) -> list[dict]:
    missing = [m for m in MODELS if not (slop_data / "results" / f"{m}.json.gz").is_file()]
    if missing:
        pytest.skip(f"released outputs {missing} not in {slop_data / 'results'}")
    return fidelity(slop_data, slop_data / "results", MODELS)


def test_three_released_models_are_re_derived(rows: list[dict]) -> None:
    assert sorted(r["file"] for r in rows) == sorted(MODELS)
    for row in rows:
        assert row["published"], row["model"]
        assert row["sample_count"] == row["sample_count_published"]
        assert row["total_chars"] == row["total_chars_published"]
        for name in EXACT:
            assert row[name] == pytest.approx(row[f"{name}_published"], rel=1e-9), (row["model"], name)
        for name in ("slop_list_matches_per_1k_words", "slop_trigram_matches_per_1k_words"):
            assert abs(row[f"{name}_diff"]) <= 0.01, (row["model"], name, row[f"{name}_diff"])
        assert row["ngram_repetition_score"] >= row["ngram_repetition_score_published"]
