"""The response cache: keys cover model, parameters, messages and sample index."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from creval.models import get_model
from creval.models.base import Completion, GenerateRequest, ImagePart, Message, TextPart, digest
from creval.runner import ResponseCache, Runner, RunStore, Unit, UnitContext
from creval.runner.cache import cache_key, cache_keys


def test_key_changes_with_every_parameter() -> None:
    base = GenerateRequest.chat("Name a colour.", temperature=0.7, seed=1)
    ident = {"provider": "local", "sha256": "x"}
    k = cache_key(ident, base, 0)
    variants = [
        base.model_copy(update={"temperature": 0.8}),
        base.model_copy(update={"top_p": 0.9}),
        base.model_copy(update={"max_tokens": 7}),
        base.model_copy(update={"stop": ("\n",)}),
        base.model_copy(update={"seed": 2}),
        base.model_copy(update={"logprobs": True}),
        GenerateRequest.chat("Name a color.", temperature=0.7, seed=1),
        GenerateRequest.chat("Name a colour.", system="Be brief.", temperature=0.7, seed=1),
    ]
    assert len({k, *(cache_key(ident, v, 0) for v in variants)}) == len(variants) + 1
    assert cache_key({"provider": "local", "sha256": "y"}, base, 0) != k
    assert cache_key(ident, base, 1) != k
    # n and the runner's bookkeeping are not parameters of a sample
    assert cache_key(ident, base.with_n(5, first_sample=3), 0) == k


def test_keys_are_those_of_earlier_runs() -> None:
    """One dump and one shared hash per request (``cache_keys``) give the keys written
    before: pinned values, computed by the digest of the whole key object."""
    image = Message(role="user", content=[TextPart(text="é?"),
                                          ImagePart(url="data:image/png;base64,AA")])
    requests = [
        GenerateRequest.chat("Name a colour.", temperature=0.7, seed=1),
        GenerateRequest(messages=(image,), n=3, stop=("\n",), logprobs=True, top_logprobs=2,
                        logprob_source="sampling", first_sample=2,
                        response_schema={"type": "object", "b": [1, {"z": 1, "a": 2}]}),
    ]
    ident = {"provider": "openai", "base_url": "http://x/v1", "model": "m"}
    keys = [cache_key(ident, r, i)[:16] for r in requests for i in (0, 4)]
    assert keys == ["5b504712f2575a96", "aed311f640aaa259", "d01531e89cd42128", "76f51238d4572a90"]
    for r in requests:
        whole = [digest({"model": ident, "params": r.params(), "sample": i,
                         "messages": [m.model_dump(mode="json") for m in r.messages]})
                 for i in range(4)]
        assert cache_keys(ident, r, range(4)) == whole
        assert cache_keys(ident, r, range(4), dumped=r.model_dump(mode="json")) == whole


def test_cache_round_trip(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", "m", Completion(text="hello", finish_reason="stop"))
    cache.close()
    again = ResponseCache(tmp_path / "c.sqlite")
    hit = again.get("k")
    assert hit is not None and hit.text == "hello"
    assert again.get("other") is None
    assert len(again) == 1


def _sampling_units(n_units: int, request: GenerateRequest) -> list[Unit]:
    def make(i: int) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, object]:
            out = await ctx.generate(request, first_sample=i)
            return {"text": out[0].text}

        return Unit(key=f"u{i}", run=run)

    return [make(i) for i in range(n_units)]


@pytest.mark.slow
def test_samples_stay_distinct_and_models_never_share_answers(tmp_path: Path) -> None:
    request = GenerateRequest.chat(
        "Write one unusual word.", temperature=1.0, max_tokens=8, seed=11
    )
    cache = ResponseCache(tmp_path / "cache.sqlite")
    local = get_model("local")

    # first pass: 4 samples from the real local model, all sent to the model
    store = RunStore(tmp_path / "run1")
    runner = Runner(store, {"target": local}, cache=cache, progress=False)
    records = asyncio.run(runner.run(_sampling_units(4, request)))
    assert runner.counters.per_model["local"]["requests"] == 4
    texts = [r.output["text"] for r in sorted(records, key=lambda r: r.key)]
    assert len(set(texts)) > 1, "the samples of one request must not collapse into one"

    # second pass, a new run directory: every sample comes from the cache, none is sent
    store2 = RunStore(tmp_path / "run2")
    runner2 = Runner(store2, {"target": local}, cache=cache, progress=False)
    records2 = asyncio.run(runner2.run(_sampling_units(4, request)))
    assert runner2.counters.per_model["local"]["requests"] == 0
    assert runner2.counters.per_model["local"]["cache_hits"] == 4
    assert [r.output["text"] for r in sorted(records2, key=lambda r: r.key)] == texts

    # a batch of n=4 in one call maps onto the same four cached samples
    store3 = RunStore(tmp_path / "run3")
    runner3 = Runner(store3, {"target": local}, cache=cache, progress=False)

    async def batch(ctx: UnitContext) -> dict[str, object]:
        out = await ctx.generate(request.with_n(4))
        return {"texts": [c.text for c in out]}

    (rec,) = asyncio.run(runner3.run([Unit(key="batch", run=batch)]))
    assert rec.output["texts"] == texts
    assert runner3.counters.per_model["local"]["requests"] == 0

    # another model with the same cache: never served the local model's answers
    replay = get_model(f"replay:{tmp_path / 'run1'}")
    other = get_model("local", n_ctx=1024)  # another identity of the same weights
    assert other.identity() != local.identity()
    store4 = RunStore(tmp_path / "run4")
    runner4 = Runner(store4, {"target": replay}, cache=cache, progress=False)
    asyncio.run(runner4.run(_sampling_units(4, request)))
    assert runner4.counters.per_model[replay.spec]["cache_hits"] == 0
    assert runner4.counters.per_model[replay.spec]["requests"] == 4
    asyncio.run(local.aclose())
    cache.close()
