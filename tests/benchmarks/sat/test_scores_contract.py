"""SAT's per_item: one distance per scored story, whose mean is sat_mean (empty rewrites
left out). Loads the packaged MiniLM (sentence-transformers)."""

from __future__ import annotations

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.common import text_digest
from creval.benchmarks.sat.stories import load_stories
from creval.records import Scores
from creval.runner.store import Record
from tests.benchmarks.scores_contract import assert_per_item_means


def test_sat_mean_is_the_mean_of_the_story_distances() -> None:
    bench = get_benchmark("sat")
    options = bench.parse_options({"limit": 3})
    stories = load_stories(None, "en")[:3]
    rewrites = [stories[0].story, "", "A courier races e-scooters through a city of apps."]
    records = [Record(key=f"story-{s.id}", status="ok", output={"text": text},
                      unit={"id": s.id, "title": s.title, "story_digest": text_digest(s.story)})
               for s, text in zip(stories, rewrites, strict=True)]
    scores: Scores = bench.score(records, options)
    assert scores.headline["stories"] == 2 and scores.headline["empty_rewrites"] == 1
    first, second = scores.per_item["sat_mean"]
    assert abs(first or 0.0) < 1e-5 and (second or 0.0) > 0.3  # the copy is at distance 0
    assert_per_item_means(scores)
