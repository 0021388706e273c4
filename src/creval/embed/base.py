"""The :class:`Embedder` protocol and small pure helpers shared by every backend.

An embedder turns texts into a float32 matrix, one row per text. Its :meth:`identity` is the
plain-data description of what makes its vectors its own (backend, model, version, prefix...);
manifests record it and caches key on it.

>>> split_spec("st:sentence-transformers/all-MiniLM-L6-v2")
('st', 'sentence-transformers/all-MiniLM-L6-v2')
>>> split_spec("minilm")
('minilm', '')
>>> cosine_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([[3.0, 0.0]])).round(3).tolist()
[[1.0], [0.0]]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from creval.errors import CrevalError, require

EMBED_EXTRA = "embed"


@runtime_checkable
class Embedder(Protocol):
    """Sentence (or word) embeddings behind one interface.

    ``embed`` returns a ``(len(texts), dim)`` float32 array; an empty input gives ``(0, dim)``.
    """

    spec: str

    def identity(self) -> dict[str, Any]:
        """What makes this embedder's vectors its own (for manifests and caches)."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: a ``(len(texts), dim)`` float32 array."""
        ...


def split_spec(spec: str) -> tuple[str, str]:
    """Split ``"kind:rest"`` into ``(kind, rest)``; a spec without a colon has ``rest == ""``.

    >>> split_spec("openai:text-embedding-3-small")
    ('openai', 'text-embedding-3-small')
    >>> split_spec("vectors:C:/data/glove.txt")
    ('vectors', 'C:/data/glove.txt')
    """
    if not isinstance(spec, str) or not spec.strip():
        raise CrevalError(f"An embedding spec must be a non-empty string, got {spec!r}.")
    kind, sep, rest = spec.strip().partition(":")
    return kind.strip().lower(), rest.strip() if sep else ""


def check_texts(texts: Sequence[str]) -> list[str]:
    """Validate ``texts`` (a sequence of strings, not one bare string) and return it as a list.

    >>> check_texts(("a", "b"))
    ['a', 'b']
    >>> check_texts("ab")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: embed() takes a list of strings, not one string: wrap it as ['ab'].
    """
    if isinstance(texts, str):
        raise CrevalError(
            f"embed() takes a list of strings, not one string: wrap it as [{texts!r}]."
        )
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise CrevalError(
                f"embed() takes strings only; item {i} is a {type(t).__name__}: {t!r}."
            )
    return out


def batches(items: Sequence[str], size: int) -> Iterable[list[str]]:
    """Consecutive slices of at most ``size`` items.

    >>> [b for b in batches(["a", "b", "c"], 2)]
    [['a', 'b'], ['c']]
    """
    if size < 1:
        raise CrevalError(f"batch_size must be at least 1, got {size}.")
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


def as_float32_matrix(rows: Any, dim: int) -> np.ndarray:
    """``rows`` as a C-contiguous ``(n, dim)`` float32 array (``(0, dim)`` when empty).

    >>> as_float32_matrix([], 3).shape
    (0, 3)
    >>> as_float32_matrix([[1, 2]], 2).dtype
    dtype('float32')
    """
    arr = np.asarray(rows, dtype=np.float32)
    if arr.size == 0:
        return np.zeros((0, dim), dtype=np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    return np.ascontiguousarray(arr)


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``a`` with every row of ``b``: shape ``(len(a), len(b))``.

    Zero rows have similarity 0 with everything.

    >>> cosine_matrix(np.array([[1.0, 1.0]]), np.array([[1.0, 1.0], [-1.0, -1.0]])).round(3).tolist()
    [[1.0, -1.0]]
    """
    a = np.atleast_2d(np.asarray(a, dtype=np.float64))
    b = np.atleast_2d(np.asarray(b, dtype=np.float64))
    na = np.linalg.norm(a, axis=1, keepdims=True)
    nb = np.linalg.norm(b, axis=1, keepdims=True)
    a = np.divide(a, na, out=np.zeros_like(a), where=na > 0)
    b = np.divide(b, nb, out=np.zeros_like(b), where=nb > 0)
    return np.asarray(a @ b.T)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors (0.0 if either is all zeros).

    >>> round(cosine(np.array([1.0, 0.0]), np.array([1.0, 1.0])), 4)
    0.7071
    """
    return float(cosine_matrix(np.ravel(a), np.ravel(b))[0, 0])


def require_embed(module: str, package: str, purpose: str) -> None:
    """Raise :class:`~creval.errors.MissingDependency` (extra ``embed``) if ``module`` is absent."""
    require(module, package=package, extra=EMBED_EXTRA, purpose=purpose)


def package_version(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or None.

    >>> package_version("surely-not-an-installed-distribution-xyz") is None
    True
    """
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def short_hash(value: Any) -> str:
    """A 16-hex-digit SHA-256 digest of ``value`` as canonical JSON.

    >>> short_hash(["a", "b"]) == short_hash(["a", "b"])
    True
    >>> len(short_hash({"x": 1}))
    16
    """
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
