"""The SAT story-rating judge asking for ``{"rating": n}``: the real small model (llama.cpp)
answers in that shape and the strict parser reads its number."""

from __future__ import annotations

import asyncio

from creval.judges.story import StoryRatingJudge, parse_rating, rating_schema, render_rating
from creval.judges.structured import as_text
from judges.recorder import Recorder

ORIGINAL = "A fox cannot reach the grapes and decides they must be sour."
REWRITE = "A startup founder cannot get funding and tells everyone investors are overrated."


def test_rendered_rating_parses_strictly() -> None:
    assert parse_rating(as_text('{"rating": 4}', render_rating)) == (4, None)
    assert parse_rating(as_text('{"rating": 7}', render_rating))[0] is None  # out of range stays an error
    assert parse_rating(as_text('{"rati', render_rating))[0] is None  # cut off: not completed


def test_small_model_constrained_rating_parses() -> None:
    generate = Recorder()
    requests = generate.requests
    model = generate.model
    assert model is not None
    judge = StoryRatingJudge.create(generate, structured=model.capabilities.structured_output)
    rating = asyncio.run(judge.evaluate(ORIGINAL, REWRITE))
    assert requests[0].response_schema == rating_schema() and requests[0].max_tokens == 16
    assert rating.error is None and rating.rating in range(1, 6), rating
    assert rating.raw.lstrip().startswith("{")  # the raw JSON is what is kept
    free = StoryRatingJudge.create(generate)
    asyncio.run(free.evaluate(ORIGINAL, REWRITE))
    assert requests[1].response_schema is None and requests[1].max_tokens == 8
