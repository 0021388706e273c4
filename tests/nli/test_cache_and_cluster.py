"""The caching wrapper and the batched async clustering driver."""

from __future__ import annotations

import asyncio
import random

import pytest

from creval.metrics.partition import partition
from creval.nli import CachingEntailment, NLIResult, partition_texts
from nli.oracle import OracleEntailment


def _prefix(a: str, b: str) -> str:
    return "entailment" if a.split("-")[0] == b.split("-")[0] else "neutral"


def test_cache_classifies_each_ordered_pair_once_and_counts() -> None:
    inner = OracleEntailment(_prefix)
    cache = CachingEntailment(inner)

    async def go() -> tuple[list[NLIResult], list[NLIResult]]:
        first = await cache.classify([("a-1", "a-2"), ("a-2", "a-1"), ("a-1", "a-2"), ("a-1", "b-1")])
        second = await cache.classify([("a-1", "b-1"), ("b-1", "a-1")])
        return first, second

    first, second = asyncio.run(go())
    assert [r.label for r in first] == ["entailment", "entailment", "entailment", "neutral"]
    assert [r.label for r in second] == ["neutral", "neutral"]
    # Duplicates within a call and pairs seen before never reach the backend; order matters.
    assert inner.batches == [[("a-1", "a-2"), ("a-2", "a-1"), ("a-1", "b-1")], [("b-1", "a-1")]]
    assert cache.counts() == {"requested": 6, "calls": 4, "batches": 2, "hits": 2}
    assert cache.known("a-1", "b-1") == NLIResult(label="neutral")
    assert cache.known("b-1", "b-1") is None
    assert cache.identity() == {"backend": "oracle"} and cache.spec == "oracle"


def test_concurrent_requests_for_the_same_pair_share_one_call() -> None:
    inner = OracleEntailment(_prefix, delay=0.05)
    cache = CachingEntailment(inner)

    async def go() -> list[list[NLIResult]]:
        return list(await asyncio.gather(
            cache.classify([("a-1", "b-1"), ("b-1", "a-1")]),
            cache.classify([("b-1", "a-1"), ("c-1", "a-1")]),
        ))

    left, right = asyncio.run(go())
    assert [r.label for r in left + right] == ["neutral"] * 4
    assert sorted(inner.pairs) == [("a-1", "b-1"), ("b-1", "a-1"), ("c-1", "a-1")]
    assert cache.calls == 3


def test_a_failed_batch_is_not_cached() -> None:
    state = {"fail": True}

    def verdict(a: str, b: str) -> str:
        if state["fail"]:
            raise RuntimeError("backend down")
        return "entailment"

    cache = CachingEntailment(OracleEntailment(verdict))
    with pytest.raises(RuntimeError, match="backend down"):
        asyncio.run(cache.classify([("x", "y")]))
    state["fail"] = False
    assert [r.label for r in asyncio.run(cache.classify([("x", "y")]))] == ["entailment"]
    assert cache.calls == 1


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_driver_matches_the_pure_function_on_random_relations(mode: str) -> None:
    rng = random.Random(11 if mode == "strict" else 12)
    for _ in range(60):
        vocab = [f"t{i}" for i in range(rng.randint(1, 7))]
        texts = [rng.choice(vocab) for _ in range(rng.randint(0, 10))]
        table = {(a, b): rng.choice(["entailment", "entailment", "neutral", "contradiction"])
                 for a in vocab for b in vocab}

        def verdict(a: str, b: str, table: dict[tuple[str, str], str] = table) -> str:
            return table[(a, b)]

        inner = OracleEntailment(verdict)
        cache = CachingEntailment(inner)
        got = asyncio.run(partition_texts(texts, cache, mode=mode))
        expected = partition(texts, verdict, mode=mode)
        assert got == expected
        # Exactly the pairs the greedy algorithm needs, each once, one batch per
        # representative that had someone to compare with.
        assert cache.calls == expected.entailment_calls == len(set(inner.pairs)) == len(inner.pairs)
        assert len(inner.batches) <= max(expected.n_classes, 0)


def test_one_batch_per_representative_with_both_directions() -> None:
    texts = ["a-0", "b-0", "a-1", "c-0", "b-1"]
    inner = OracleEntailment(_prefix)
    result = asyncio.run(partition_texts(texts, inner))
    assert result.class_ids == (0, 1, 0, 2, 1)
    assert inner.batches == [
        [("a-0", "b-0"), ("b-0", "a-0"), ("a-0", "a-1"), ("a-1", "a-0"), ("a-0", "c-0"),
         ("c-0", "a-0"), ("a-0", "b-1"), ("b-1", "a-0")],
        [("b-0", "c-0"), ("c-0", "b-0"), ("b-0", "b-1"), ("b-1", "b-0")],
    ]
    assert result.entailment_calls == 12


def test_a_shared_cache_serves_a_repeated_set() -> None:
    cache = CachingEntailment(OracleEntailment(_prefix))
    texts = ["a-0", "b-0", "a-1"]
    first = asyncio.run(partition_texts(texts, cache))
    calls = cache.calls
    second = asyncio.run(partition_texts(texts, cache))
    assert first == second and cache.calls == calls == first.entailment_calls == 4


def test_driver_validates() -> None:
    with pytest.raises(ValueError, match="mode"):
        asyncio.run(partition_texts(["a"], OracleEntailment(_prefix), mode="both"))
    with pytest.raises(TypeError, match="not one string"):
        asyncio.run(partition_texts("abc", OracleEntailment(_prefix)))
