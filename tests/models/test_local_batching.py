"""The ``local`` backend's batch engine: requests decoded together give what one-at-a-time
llama-cpp-python gives for the same seeds, the samples of a request share one prompt
evaluation, and a prompt kept from an earlier request is not evaluated again (with the same
texts). Run for real on the packaged SmolLM2-135M-Instruct."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from creval.models import Completion, GenerateRequest, ModelError, ModelOptions, get_model
from creval.models.local import LocalModel

SCHEMA = {
    "type": "object",
    "properties": {"word": {"type": "string", "maxLength": 12}, "score": {"type": "integer"}},
    "required": ["word", "score"],
}
REQUESTS = [
    GenerateRequest.chat("Name three unusual uses for a brick.", n=3, seed=3, max_tokens=14, top_p=0.9),
    GenerateRequest.chat("Write a haiku about rain.", seed=8, max_tokens=14, temperature=0.7,
                         stop=(",", "\n")),
    GenerateRequest.chat("Answer with one word: what colour is the sky?", seed=1, max_tokens=10,
                         temperature=0.0),
    GenerateRequest.chat("Give a word and a score from 1 to 10 for its beauty.", seed=5,
                         max_tokens=30, response_schema=SCHEMA),
]


@pytest.fixture(scope="module")
def pair() -> Iterator[LocalModel]:
    model = get_model("local", ModelOptions(concurrency=3, threads=1, replicas=1))
    assert isinstance(model, LocalModel)
    yield model
    asyncio.run(model.aclose())


def _one_at_a_time(model: LocalModel, request: GenerateRequest) -> list[Completion]:
    """llama-cpp-python's own create_chat_completion, one sample after the other."""
    replica = model.replicas[0]
    done: list[Completion] = asyncio.run(
        replica.on_thread(lambda: model._generate_sync(replica, request)))
    return done


def _outcome(completions: list[Completion]) -> list[tuple[str, str | None, int, int]]:
    return [(c.text, c.finish_reason, c.usage.input_tokens, c.usage.output_tokens) for c in completions]


@pytest.mark.slow
def test_requests_in_flight_give_the_texts_of_one_at_a_time(pair: LocalModel) -> None:
    async def together() -> list[list[Completion]]:
        return list(await asyncio.gather(*(pair.generate(r) for r in REQUESTS)))

    batched = asyncio.run(together())  # 6 sequences on 3 slots: some wait for a free one
    alone = [_one_at_a_time(pair, r) for r in REQUESTS]
    assert [_outcome(b) for b in batched] == [_outcome(a) for a in alone]
    assert len({c.text for c in batched[0]}) == 3  # three seeds, three samples
    assert {c.finish_reason for b in batched for c in b} == {"length", "stop"}
    assert json.loads(batched[3][0].text).keys() == {"word", "score"}  # the grammar held
    assert pair.max_concurrency == 3


@pytest.mark.slow
def test_a_prompt_is_evaluated_once_for_its_samples_and_for_later_requests(pair: LocalModel) -> None:
    request = REQUESTS[0].with_n(3, seed=40)
    asyncio.run(pair.generate(REQUESTS[2]))  # the engine exists, another prompt kept
    engine = pair.replicas[0].worker.engine  # type: ignore[union-attr]
    assert engine is not None
    before = engine.prompt_tokens
    first = asyncio.run(pair.generate(request))
    prompt = first[0].usage.input_tokens
    assert engine.prompt_tokens - before == prompt  # once, not three times
    # the same samples as three later requests of one sample each, seeds 40, 41, 42: the
    # prompt is kept, so it is not evaluated again, and the texts are the same
    apart = [asyncio.run(pair.generate(request.with_n(1, seed=40 + i)))[0] for i in range(3)]
    assert [c.text for c in apart] == [c.text for c in first]
    assert engine.prompt_tokens - before == prompt
    assert [c.text for c in _one_at_a_time(pair, request)] == [c.text for c in first]


@pytest.mark.slow
def test_a_kept_prompt_gives_the_texts_of_a_fresh_evaluation(pair: LocalModel) -> None:
    """Greedy, top-p, stop strings, a grammar, n = 3: each request twice in a row (the second
    from the prompt the first left), both as llama-cpp-python gives them from a fresh prompt."""
    for request in REQUESTS:
        once = asyncio.run(pair.generate(request))
        engine = pair.replicas[0].worker.engine  # type: ignore[union-attr]
        assert engine is not None
        before = engine.prompt_tokens
        again = asyncio.run(pair.generate(request))
        assert engine.prompt_tokens == before  # no evaluation: the prompt was kept
        alone = _one_at_a_time(pair, request)
        assert _outcome(again) == _outcome(once) == _outcome(alone)


@pytest.mark.slow
def test_a_failing_request_leaves_the_others_alone() -> None:
    model = get_model("local", ModelOptions(n_ctx=128, concurrency=2, threads=1))
    assert isinstance(model, LocalModel)

    async def mixed() -> list[list[Completion] | BaseException]:
        return list(await asyncio.gather(
            model.generate(GenerateRequest.chat("word " * 400, max_tokens=4)),
            model.generate(REQUESTS[2]),
            return_exceptions=True,
        ))

    try:
        too_long, fine = asyncio.run(mixed())
        assert isinstance(too_long, ModelError) and "context" in str(too_long)
        assert isinstance(fine, list) and fine[0].text
    finally:
        asyncio.run(model.aclose())
    assert model.replicas[0].worker is None and not model.loaded
