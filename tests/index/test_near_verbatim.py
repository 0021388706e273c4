"""Near-verbatim matching on a real local index with the packaged English embedder: a
paraphrase the exact search misses is found, and the similarities are the embedder's."""

from __future__ import annotations

import numpy as np
import pytest
from tests_paths import write_jsonl_texts

pytest.importorskip("infini_gram", reason="needs the 'index' extra (infini-gram)")
pytest.importorskip("sentence_transformers", reason="needs the 'embed' extra")

from creval.embed import get_embedder  # noqa: E402
from creval.errors import CrevalError  # noqa: E402
from creval.index import LocalIndex, build_index, score_text, words  # noqa: E402
from creval.index.near import NearVerbatim, corpus_documents  # noqa: E402

CORPUS = [
    "The old lighthouse keeper climbed the stairs every night to light the lamp.",
    "A storm came from the west and the lamp went out at midnight.",
]
PARAPHRASE = "Each evening the aged lighthouse keeper climbed the steps every night to light the lantern."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> LocalIndex:
    root = tmp_path_factory.mktemp("near")
    build_index([str(write_jsonl_texts(root / "corpus.jsonl", CORPUS))], root / "index")
    return LocalIndex(root / "index")


@pytest.fixture(scope="module")
def near(index: LocalIndex) -> NearVerbatim:
    return NearVerbatim(index, get_embedder("minilm"), threshold=0.9)


def test_documents_read_back_from_the_index(index: LocalIndex) -> None:
    assert corpus_documents(index) == [words(t) for t in CORPUS]


def test_similarity_is_the_best_cosine_over_every_corpus_span(index: LocalIndex, near: NearVerbatim) -> None:
    tokens = words(PARAPHRASE)
    best = near.best_similarity(tokens, [5])[5]
    embedder = get_embedder("minilm")
    grams = sorted({" ".join(d[i : i + 5]) for d in map(words, CORPUS) for i in range(len(d) - 4)})
    corpus = embedder.embed(grams)
    span = embedder.embed([" ".join(tokens[3:8])])[0]
    brute = max(float(np.dot(span, c) / np.linalg.norm(span) / np.linalg.norm(c)) for c in corpus)
    assert best[3] == pytest.approx(brute, abs=1e-5)
    assert len(best) == len(tokens) - 4


def test_a_paraphrase_is_less_unique_with_near_matches(index: LocalIndex, near: NearVerbatim) -> None:
    exact = score_text(index, PARAPHRASE, min_l=5, max_l=7)
    both = score_text(index, PARAPHRASE, min_l=5, max_l=7, near=near)
    assert exact.result is not None and both.result is not None
    assert both.near_spans > 0
    assert both.result.mean < exact.result.mean
    # A verbatim copy is covered either way: near matches only add spans.
    copy = score_text(index, CORPUS[0], min_l=5, max_l=7, near=near)
    assert copy.result is not None and copy.result.mean == 0.0 and copy.near_spans == 0


def test_limits_are_errors(index: LocalIndex) -> None:
    with pytest.raises(CrevalError, match="cosine similarity in -1..1"):
        NearVerbatim(index, get_embedder("minilm"), threshold=1.5)
    small = NearVerbatim(index, get_embedder("minilm"), max_ngrams=3)
    with pytest.raises(CrevalError, match="distinct 5-word spans, more than the 3"):
        small.spans(words(PARAPHRASE), min_l=5, max_l=5)
    with pytest.raises(CrevalError, match="needs a local index"):
        NearVerbatim(object(), get_embedder("minilm"))
