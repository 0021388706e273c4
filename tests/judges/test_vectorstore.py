"""Fragment splitting and the cosine top-k fragment stores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from creval.errors import CrevalError
from creval.judges.vectorstore import NumpyVectorStore, make_store, split_fragments
from judges.hash_embedder import HashEmbedder


class AxisEmbedder:
    """Maps text 'x,y' to the vector (x, y): exact geometry for ranking checks."""

    spec = "axis"

    def identity(self) -> dict[str, Any]:
        return {"spec": self.spec}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([[float(v) for v in t.split(",")] for t in texts], dtype=np.float32)


def test_point_headers_start_fragments() -> None:
    text = "Preamble here.\n[[POINT]] Constraints: no ladder.\n[[POINT]]: Outcome: kite down.\n"
    assert split_fragments(text) == ["Preamble here.", "Constraints: no ladder.",
                                     "Outcome: kite down."]


def test_bullets_numbers_and_paragraphs() -> None:
    text = ("Overview sentence one.\nstill the same paragraph.\n\n1. First step\n2) Second step"
            "\n* starred\n\nLast paragraph.")
    assert split_fragments(text) == ["Overview sentence one. still the same paragraph.",
                                     "First step", "Second step", "starred", "Last paragraph."]


def test_long_fragments_are_cut_at_sentence_ends() -> None:
    text = " ".join(f"Sentence number {i} has six words." for i in range(10))
    pieces = split_fragments(text, max_words=20)
    assert all(len(p.split()) <= 20 for p in pieces)
    assert " ".join(pieces) == text
    assert len(pieces) == 4  # 3 sentences (18 words) per piece, 10 sentences


def test_split_rejects_bad_input() -> None:
    assert split_fragments("[[POINT]] ** \n[[POINT]] ...") == []
    with pytest.raises(CrevalError):
        split_fragments("x", max_words=0)


def test_numpy_store_ranks_by_cosine_and_keeps_metadata() -> None:
    store = NumpyVectorStore(AxisEmbedder())
    ids = store.add(["1,0", "0,1", "1,1", "-1,0"], [{"n": i} for i in range(4)])
    assert ids == ["0", "1", "2", "3"] and len(store) == 4
    hits = store.query("2,1", k=3)
    assert [h.text for h in hits] == ["1,1", "1,0", "0,1"]
    assert [h.metadata["n"] for h in hits] == [2, 0, 1]
    assert hits[0].score == pytest.approx(3 / np.sqrt(10))
    assert [h.text for h in store.query(np.array([-1.0, 0.0]), k=1)] == ["-1,0"]


def test_k_larger_than_the_store_returns_everything_and_ties_keep_order() -> None:
    store = NumpyVectorStore(AxisEmbedder())
    store.add(["1,0", "2,0", "0,1"])
    assert [h.text for h in store.query("3,0", k=10)] == ["1,0", "2,0", "0,1"]
    assert NumpyVectorStore(AxisEmbedder()).query("1,0", k=3) == []


def test_copy_is_independent() -> None:
    store = NumpyVectorStore(HashEmbedder())
    store.add(["the ladder is short"], {"role": "a"})
    twin = store.copy()
    twin.add(["the rope is long"], {"role": "b"})
    assert len(store) == 1 and len(twin) == 2
    assert [h.text for h in store.query("rope", k=5)] == ["the ladder is short"]


def test_store_validates_input() -> None:
    store = NumpyVectorStore(HashEmbedder())
    with pytest.raises(CrevalError, match="metadata"):
        store.add(["a", "b"], [{"x": 1}])
    with pytest.raises(CrevalError, match="not one string"):
        store.add("a lone string")
    with pytest.raises(CrevalError, match="k must"):
        store.query("a", k=0)
    with pytest.raises(CrevalError, match="Unknown vector store"):
        make_store("faiss", HashEmbedder())  # type: ignore[arg-type]


def test_packaged_sentence_embedder_retrieves_by_meaning() -> None:
    pytest.importorskip("sentence_transformers")
    from creval.embed import get_embedder

    store = make_store("numpy", get_embedder("minilm"))
    store.add(["The ladder is about two metres tall.",
               "Duct tape can hold a broom to a pole.",
               "Boiling water can scald the skin."])
    assert store.query("How high can the ladder reach?", k=1)[0].text.startswith("The ladder")
    assert store.query("Is there a burn risk?", k=1)[0].text.startswith("Boiling")


def test_chroma_store_matches_the_numpy_store() -> None:
    pytest.importorskip("chromadb")
    texts = ["1,0", "0,1", "1,1", "-1,0", "3,1"]
    numpy_store = make_store("numpy", AxisEmbedder())
    chroma_store = make_store("chroma", AxisEmbedder())
    for store in (numpy_store, chroma_store):
        store.add(texts, [{"i": i} for i in range(len(texts))])
    for query in ("2,1", "0,1", "-1,-1"):
        a = numpy_store.query(query, k=3)
        b = chroma_store.query(query, k=3)
        assert [h.text for h in a] == [h.text for h in b]
        assert [h.score for h in b] == pytest.approx([h.score for h in a], abs=1e-5)
        assert [h.metadata for h in a] == [h.metadata for h in b]
    twin = chroma_store.copy()
    twin.add(["0,-1"])
    assert len(twin) == 6 and len(chroma_store) == 5
    assert twin.query("0,-2", k=1)[0].text == "0,-1"
