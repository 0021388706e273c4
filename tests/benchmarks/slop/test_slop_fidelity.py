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


def test_the_repetition_score_counts_what_upstream_counted(slop_data: Path) -> None:
    """Upstream's human profile is not released, but what the score counts is: every published
    over-used n-gram has the count creval finds in the first 150 outputs, and the human
    frequency its published ratio implies for an n-gram absent from the profile (the
    profile's floor) comes out the same for every model, as it must when creval's n-gram
    totals are upstream's."""
    import json
    from collections import Counter

    from creval.benchmarks.slop.data import read_released
    from creval.metrics.slop import (
        alpha_tokens,
        content_tokens,
        leaderboard_text,
        ngrams,
        words_only_lower,
    )

    published = {r["model"]: r for r in json.loads(
        (slop_data / "data" / "leaderboard_results.json").read_text(encoding="utf-8"))["results"]}
    floors: dict[str, list[float]] = {"bigrams": [], "trigrams": []}
    for stem in MODELS:
        path = slop_data / "results" / f"{stem}.json.gz"
        if not path.is_file():
            pytest.skip(f"{path} not found")
        model, samples = read_released(path)
        text = leaderboard_text([str(s.get("output") or "") for s in samples], first=150)
        content = content_tokens(alpha_tokens(words_only_lower(text)))
        for kind, n in (("bigrams", 2), ("trigrams", 3)):
            grams = ngrams(content, n)
            counts = Counter(grams)
            rows = published[model]["top_over_represented"][kind]
            assert len(rows) == 40
            assert [counts[r["phrase"]] for r in rows] == [r["count"] for r in rows], (model, kind)
            floors[kind].append(min(r["count"] / len(grams) / r["ratio"] for r in rows))
    for values in floors.values():
        assert max(values) == pytest.approx(min(values), rel=1e-9)
