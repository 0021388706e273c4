"""The released-words check (docs/sweep.md): the five models' DAT lists per temperature,
re-scored by creval's scorer, rise with temperature for every model but GPT-4, as Chen and
Ding (2023) claim; the per-temperature means are checked against a direct computation."""

from __future__ import annotations

import json
import statistics

import pytest

from creval.evaluation.sweep.released import released_trends
from tests.tests_paths import REPO, shared_data_path


@pytest.fixture(scope="module")
def result() -> dict:
    return released_trends(shared_data_path("dat-humans"), resamples=500)


def test_the_claim_holds_under_crevals_scorer(result: dict) -> None:
    directions = {m["model"]: m["direction"] for m in result["models"]}
    assert directions == {"chatglm-6b": "rises", "gpt-3.5-turbo": "rises", "oa-30b": "rises",
                          "vicuna-13b": "rises", "gpt-4": "falls"}
    assert result["claim_holds"] is True
    for m in result["models"]:
        assert m["low"] <= m["rho"] <= m["high"] and m["p"] < 0.01
        assert [r["temperature"] for r in m["temperatures"]] == [0.1, 0.4, 0.7, 0.9, 1.0]
    page = (REPO / "docs" / "sweep.md").read_text(encoding="utf-8")
    assert "The claim holds under creval's scorer" in page  # the outcome the docs state


def test_means_match_a_direct_computation(result: dict) -> None:
    from creval.benchmarks.dat import DATOptions
    from creval.benchmarks.dat.scoring import DATScorer

    scorer = DATScorer.from_options(DATOptions())
    path = shared_data_path("dat-humans", "models", "temperature", "gpt-4.json")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    at = [scorer.score_words(r["words"]).score for r in rows if r["t"] == 0.1]
    gpt4 = next(m for m in result["models"] if m["model"] == "gpt-4")
    first = gpt4["temperatures"][0]
    assert first["lists"] == 40 and first["valid"] == sum(s is not None for s in at)
    assert first["dat"] == pytest.approx(statistics.fmean(s for s in at if s is not None))
