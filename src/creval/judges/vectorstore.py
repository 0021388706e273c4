"""Fragment stores for the retrieval-based judge: cosine top-k over embedded text fragments.

:class:`NumpyVectorStore` keeps unit-normalised embeddings in one in-process matrix and
answers :meth:`~NumpyVectorStore.query` by exact cosine similarity (ties keep insertion
order). :class:`ChromaVectorStore` does the same through an in-memory ChromaDB collection
with ``hnsw:space = cosine``, as the paper's code did; ``chromadb`` is optional and imported
only when that store is built. Both take any :class:`~creval.embed.base.Embedder`.

:func:`split_fragments` is the rule that turns an analyst's answer into fragments:

1. If the text contains ``[[POINT]]`` headers, every header starts a fragment (text before
   the first header is a fragment too when it is not blank).
2. Otherwise every bullet or numbered line (``-``, ``*``, ``•``, ``1.``, ``2)``) starts a
   fragment, and the remaining text is cut into paragraphs at blank lines.
3. A fragment longer than ``max_words`` words is cut at sentence ends into consecutive
   pieces of at most ``max_words`` words (a single longer sentence stays whole).
4. Whitespace is collapsed; fragments without a letter or digit are dropped.

>>> split_fragments("[[POINT]] Ladder is 2 m.\\n[[POINT]] Rope is short.")
['Ladder is 2 m.', 'Rope is short.']
>>> split_fragments("Intro line.\\n- first item\\n- second item\\n\\nA closing paragraph.")
['Intro line.', 'first item', 'second item', 'A closing paragraph.']
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

from creval.embed.base import Embedder
from creval.errors import CrevalError

__all__ = [
    "ChromaVectorStore", "Hit", "NumpyVectorStore", "VectorStore", "make_store",
    "split_fragments",
]  # fmt: skip

Metadata = Mapping[str, str | int | float | bool]

_POINT = re.compile(r"\[\[\s*POINT\s*\]\]:?", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])")


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().strip("*").strip()


def _cap_words(text: str, max_words: int) -> list[str]:
    if len(text.split()) <= max_words:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        words = len(sentence.split())
        if current and len(" ".join(current).split()) + words > max_words:
            pieces.append(" ".join(current))
            current = []
        current.append(sentence)
    if current:
        pieces.append(" ".join(current))
    return pieces


def split_fragments(text: str, *, max_words: int = 80) -> list[str]:
    """Split one analyst answer into retrievable fragments (rule in the module docstring).

    >>> split_fragments("One. Two. Three.", max_words=2)
    ['One. Two.', 'Three.']
    >>> split_fragments("   ")
    []
    """
    if not isinstance(text, str):
        raise CrevalError(f"split_fragments takes a string, got {type(text).__name__}.")
    if max_words < 1:
        raise CrevalError(f"max_words must be at least 1, got {max_words}.")
    if _POINT.search(text):
        raw = _POINT.split(text)
    else:
        raw = []
        paragraph: list[str] = []
        for line in text.splitlines():
            if _BULLET.match(line) or not line.strip():
                raw.append("\n".join(paragraph))
                paragraph = []
            if _BULLET.match(line):
                raw.append(_BULLET.sub("", line, count=1))
            elif line.strip():
                paragraph.append(line)
        raw.append("\n".join(paragraph))
    out: list[str] = []
    for piece in raw:
        cleaned = _clean(piece)
        if re.search(r"\w", cleaned):
            out.extend(_cap_words(cleaned, max_words))
    return out


@dataclass(frozen=True)
class Hit:
    """One retrieved fragment: its text, metadata and cosine similarity to the query."""

    id: str
    text: str
    metadata: dict[str, Any]
    score: float


class VectorStore(Protocol):
    """What the judge needs from a fragment store."""

    def add(self, texts: Sequence[str], metadata: Metadata | Sequence[Metadata] | None = None
            ) -> list[str]: ...  # fmt: skip

    def query(self, query: str | np.ndarray, k: int) -> list[Hit]: ...

    def copy(self) -> VectorStore: ...

    def __len__(self) -> int: ...


def _metadata_rows(
    metadata: Metadata | Sequence[Metadata] | None, n: int
) -> list[dict[str, Any]]:
    if metadata is None:
        return [{} for _ in range(n)]
    if isinstance(metadata, Mapping):
        return [dict(metadata) for _ in range(n)]
    rows = [dict(m) for m in metadata]
    if len(rows) != n:
        raise CrevalError(f"Got {n} texts but {len(rows)} metadata entries; give one per text.")
    return rows


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise CrevalError(f"add() takes a list of texts, not one string: wrap it as [{texts!r}].")
    out = list(texts)
    if not all(isinstance(t, str) for t in out):
        raise CrevalError("add() takes strings only.")
    return out


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise CrevalError(f"k must be a positive integer, got {k!r}.")


@dataclass
class NumpyVectorStore:
    """Exact cosine top-k over an in-process matrix of unit-normalised embeddings.

    >>> class Letters:  # a toy embedder: counts of a, b, c
    ...     spec = "letters"
    ...     def identity(self): return {"spec": self.spec}
    ...     def embed(self, texts):
    ...         return np.array([[t.count(ch) for ch in "abc"] for t in texts], dtype=np.float32)
    >>> store = NumpyVectorStore(Letters())
    >>> store.add(["aaa", "bbb", "abc"], {"role": "demo"})
    ['0', '1', '2']
    >>> [h.text for h in store.query("abb", k=2)]
    ['bbb', 'abc']
    """

    embedder: Embedder
    _ids: list[str] = field(default_factory=list)
    _texts: list[str] = field(default_factory=list)
    _meta: list[dict[str, Any]] = field(default_factory=list)
    _matrix: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._texts)

    def _unit_rows(self, vectors: np.ndarray) -> np.ndarray:
        arr = np.atleast_2d(np.asarray(vectors, dtype=np.float64))
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        return np.divide(arr, norms, out=np.zeros_like(arr), where=norms > 0)

    def add(self, texts: Sequence[str], metadata: Metadata | Sequence[Metadata] | None = None
            ) -> list[str]:  # fmt: skip
        """Embed and store ``texts``; ``metadata`` is one mapping for all or one per text."""
        items = _check_texts(texts)
        rows = _metadata_rows(metadata, len(items))
        if not items:
            return []
        vectors = self._unit_rows(self.embedder.embed(items))
        if vectors.shape[0] != len(items):
            raise CrevalError(
                f"The embedder returned {vectors.shape[0]} vectors for {len(items)} texts."
            )
        if self._matrix is not None and vectors.shape[1] != self._matrix.shape[1]:
            raise CrevalError("All fragments must come from the same embedder (dimension differs).")
        self._matrix = vectors if self._matrix is None else np.vstack([self._matrix, vectors])
        ids = [str(len(self._ids) + i) for i in range(len(items))]
        self._ids.extend(ids)
        self._texts.extend(items)
        self._meta.extend(rows)
        return ids

    def query(self, query: str | np.ndarray, k: int) -> list[Hit]:
        """The ``k`` fragments most cosine-similar to ``query`` (text or vector), best first."""
        _check_k(k)
        if self._matrix is None:
            return []
        vector = self.embedder.embed([query]) if isinstance(query, str) else query
        scores = self._matrix @ self._unit_rows(vector)[0]
        order = np.argsort(-scores, kind="stable")[:k]
        return [Hit(self._ids[i], self._texts[i], dict(self._meta[i]), float(scores[i]))
                for i in order]  # fmt: skip

    def copy(self) -> NumpyVectorStore:
        """An independent store holding the same fragments (no re-embedding)."""
        return NumpyVectorStore(self.embedder, list(self._ids), list(self._texts),
                                [dict(m) for m in self._meta],
                                None if self._matrix is None else self._matrix.copy())  # fmt: skip


class ChromaVectorStore:
    """The same store backed by an in-memory ChromaDB collection (cosine HNSW index).

    Needs the optional ``chromadb`` package. Similarity scores are ``1 - cosine distance``.
    """

    def __init__(self, embedder: Embedder, *, _client: Any = None) -> None:
        try:
            import chromadb
        except ImportError:
            raise CrevalError(
                "The ChromaDB fragment store needs the optional 'chromadb' package: "
                "pip install chromadb (or use store='numpy', the default)."
            ) from None
        self.embedder = embedder
        self._client = _client if _client is not None else chromadb.EphemeralClient()
        self._collection: Any = self._client.create_collection(
            name=f"creval-{uuid.uuid4().hex}", metadata={"hnsw:space": "cosine"}
        )
        self._rows: list[tuple[str, str, dict[str, Any], list[float]]] = []

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, texts: Sequence[str], metadata: Metadata | Sequence[Metadata] | None = None
            ) -> list[str]:  # fmt: skip
        items = _check_texts(texts)
        rows = _metadata_rows(metadata, len(items))
        if not items:
            return []
        vectors = np.asarray(self.embedder.embed(items), dtype=np.float64).tolist()
        return self._add_rows(items, rows, vectors)

    def _add_rows(self, items: list[str], rows: list[dict[str, Any]],
                  vectors: list[list[float]]) -> list[str]:  # fmt: skip
        ids = [str(len(self._rows) + i) for i in range(len(items))]
        self._collection.add(ids=ids, embeddings=vectors, documents=items,
                             metadatas=[r or {"_": 0} for r in rows])  # fmt: skip
        self._rows.extend(zip(ids, items, rows, vectors, strict=True))
        return ids

    def query(self, query: str | np.ndarray, k: int) -> list[Hit]:
        _check_k(k)
        if not self._rows:
            return []
        vector = self.embedder.embed([query]) if isinstance(query, str) else query
        flat = np.asarray(vector, dtype=np.float64).reshape(-1).tolist()
        result = self._collection.query(query_embeddings=[flat], n_results=min(k, len(self._rows)))
        by_id = {row[0]: row for row in self._rows}
        return [Hit(i, by_id[i][1], dict(by_id[i][2]), 1.0 - float(d))
                for i, d in zip(result["ids"][0], result["distances"][0], strict=True)]  # fmt: skip

    def copy(self) -> ChromaVectorStore:
        twin = ChromaVectorStore(self.embedder, _client=self._client)
        if self._rows:
            twin._add_rows([r[1] for r in self._rows], [dict(r[2]) for r in self._rows],
                           [r[3] for r in self._rows])  # fmt: skip
        return twin


def make_store(kind: Literal["numpy", "chroma"], embedder: Embedder) -> VectorStore:
    """An empty fragment store of ``kind`` (``numpy``, the default, or ``chroma``)."""
    if kind == "numpy":
        return NumpyVectorStore(embedder)
    if kind == "chroma":
        return ChromaVectorStore(embedder)
    raise CrevalError(f"Unknown vector store {kind!r}; use 'numpy' or 'chroma'.")
