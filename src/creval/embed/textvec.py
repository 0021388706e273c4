"""Streaming reader for word vectors in text format, with an optional on-disk cache.

Formats (plain or ``.gz``):

* GloVe: one ``word v1 v2 ... vd`` line per word; ``d`` is taken from the first line.
* word2vec / fastText text: the same, after a ``count dim`` header line.

A few GloVe 840B tokens contain spaces, so a line's *last* ``d`` fields are the vector and
everything before them, joined by single spaces, is the word. The first occurrence of a
word wins. With ``vocabulary`` only the words in that set are parsed and kept, which is how
a 5.6 GB file like GloVe 840B is loaded against a dictionary without 2.6 GB of floats.

Big files are cached as ``.npy`` + word list keyed by (path, size, mtime, vocabulary), so the
second load is a memory map.
"""

from __future__ import annotations

import gzip
import json
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from creval.embed.base import short_hash
from creval.errors import CrevalError

CHUNK_ROWS = 16384
AUTO_CACHE_BYTES = 64 * 1024 * 1024
CACHE_FORMAT = 1


@dataclass
class TextVectors:
    """What :func:`read_text_vectors` found: words, their ``(n, dim)`` matrix and facts."""

    words: list[str]
    matrix: np.ndarray
    format: str
    dim: int
    from_cache: bool = False
    info: dict[str, Any] = field(default_factory=dict)


def _open(path: Path) -> IO[bytes]:
    with path.open("rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def parse_header(line: bytes) -> int | None:
    """The dimension of a word2vec ``count dim`` header line, or None for a data line.

    >>> parse_header(b"3000000 300"), parse_header(b"the 0.1 0.2")
    (300, None)
    """
    parts = line.split(b" ")
    if len(parts) == 2 and all(p.isdigit() for p in parts) and int(parts[1]) > 0:
        return int(parts[1])
    return None


def split_line(line: bytes, dim: int, lineno: int, path: Path) -> tuple[bytes, list[bytes]]:
    """Split one stripped line into ``(word, last dim fields)``.

    >>> split_line(b". . . 1 2", 2, 7, Path("v.txt"))
    (b'. . .', [b'1', b'2'])
    >>> split_line(b"cat 1", 2, 7, Path("v.txt"))
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: v.txt line 7: expected a word and 2 numbers, got 2 fields: 'cat 1'
    """
    parts = line.split(b" ")
    n = len(parts)
    if n < dim + 1:
        shown = line[:80].decode("utf-8", "replace")
        raise CrevalError(
            f"{path} line {lineno}: expected a word and {dim} numbers, got {n} fields: {shown!r}"
        )
    return b" ".join(parts[: n - dim]), parts[n - dim :]


def _decode(word: bytes, lineno: int, path: Path) -> str:
    try:
        return word.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CrevalError(f"{path} line {lineno}: the word is not valid UTF-8 ({exc}).") from exc


def _lines(fh: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    for lineno, raw in enumerate(fh, start=1):
        line = raw.rstrip(b"\r\n").rstrip(b" ")
        if line:
            yield lineno, line


def read_text_vectors(path: Path, vocabulary: set[str] | None = None) -> TextVectors:
    """Stream a GloVe / word2vec text file (optionally gzipped) into memory.

    Raises :class:`~creval.errors.CrevalError` for a missing file or a malformed line (with
    its line number).
    """
    if not path.is_file():
        raise CrevalError(f"Word vector file not found: {path}")
    vocab_b = None if vocabulary is None else {w.encode("utf-8") for w in vocabulary}
    words: list[str] = []
    seen: set[bytes] = set()
    chunks: list[np.ndarray] = []
    chunk = np.empty((0, 0), dtype=np.float32)
    fill = 0
    dim = 0
    fmt = "glove"
    lines_read = 0
    try:
        with _open(path) as fh:
            for lineno, line in _lines(fh):
                lines_read = lineno
                if dim == 0:
                    header = parse_header(line)
                    if header is not None:
                        dim, fmt = header, "word2vec"
                        continue
                    dim = len(line.split(b" ")) - 1
                    if dim < 1:
                        raise CrevalError(
                            f"{path} line {lineno}: expected 'word v1 v2 ...', got {line[:80]!r}"
                        )
                if not chunk.size:
                    chunk = np.empty((CHUNK_ROWS, dim), dtype=np.float32)
                # Fast path: exactly one space-free word before the vector.
                if line.count(b" ") == dim:
                    word_b = line[: line.index(b" ")]
                    if vocab_b is not None and word_b not in vocab_b:
                        continue
                    fields = line.split(b" ")[1:]
                else:
                    word_b, fields = split_line(line, dim, lineno, path)
                    if vocab_b is not None and word_b not in vocab_b:
                        continue
                if word_b in seen:
                    continue
                try:
                    chunk[fill] = np.array(fields, dtype=np.float32)
                except ValueError as exc:
                    raise CrevalError(
                        f"{path} line {lineno}: the vector has a field that is not a number "
                        f"({exc})."
                    ) from exc
                words.append(_decode(word_b, lineno, path))
                seen.add(word_b)
                fill += 1
                if fill == CHUNK_ROWS:
                    chunks.append(chunk)
                    chunk = np.empty((CHUNK_ROWS, dim), dtype=np.float32)
                    fill = 0
    except (OSError, EOFError) as exc:  # unreadable or truncated gzip
        raise CrevalError(f"Could not read word vectors from {path}: {exc}") from exc
    if dim == 0:
        raise CrevalError(f"{path} holds no word vectors (the file is empty).")
    if fill:
        chunks.append(chunk[:fill])
    matrix = np.concatenate(chunks, axis=0) if chunks else np.zeros((0, dim), np.float32)
    return TextVectors(words, matrix, fmt, dim, info={"lines": lines_read})


# -- on-disk cache ---------------------------------------------------------------------------


def default_cache_dir() -> Path:
    """``wordvectors`` in :func:`creval._util.paths.cache_root`."""
    from creval._util.paths import cache_root

    return cache_root() / "wordvectors"


def vocabulary_hash(vocabulary: set[str] | None) -> str | None:
    """A stable digest of a vocabulary set (None for no restriction).

    >>> vocabulary_hash({"b", "a"}) == vocabulary_hash({"a", "b"})
    True
    >>> vocabulary_hash(None) is None
    True
    """
    return None if vocabulary is None else short_hash(sorted(vocabulary))


def cache_stem(path: Path, vocabulary: set[str] | None, cache_dir: Path) -> Path:
    """Where the cache of ``path`` read with ``vocabulary`` lives (without suffix)."""
    st = path.stat()
    key = short_hash({
        "path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns,
        "vocabulary": vocabulary_hash(vocabulary), "format": CACHE_FORMAT,
    })
    return cache_dir / f"{path.name}.{key}"


def _load_cache(stem: Path) -> TextVectors | None:
    npy, meta_path = stem.with_name(stem.name + ".npy"), stem.with_name(stem.name + ".json")
    if not (npy.is_file() and meta_path.is_file()):
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        matrix = np.load(npy, mmap_mode="r")
    except (OSError, ValueError):
        return None
    words = meta.get("words")
    if not isinstance(words, list) or matrix.ndim != 2 or matrix.shape[0] != len(words):
        return None
    return TextVectors(words, matrix, str(meta.get("format")), int(matrix.shape[1]),
                       from_cache=True, info=dict(meta.get("info", {})))


def _write_cache(stem: Path, tv: TextVectors) -> None:
    stem.parent.mkdir(parents=True, exist_ok=True)
    npy, meta_path = stem.with_name(stem.name + ".npy"), stem.with_name(stem.name + ".json")
    tmp_npy = npy.with_name(f"{npy.name}.{os.getpid()}.tmp.npy")
    tmp_meta = meta_path.with_name(f"{meta_path.name}.{os.getpid()}.tmp")
    np.save(tmp_npy, np.ascontiguousarray(tv.matrix, dtype=np.float32))
    tmp_meta.write_text(
        json.dumps({"words": tv.words, "format": tv.format, "info": tv.info}, ensure_ascii=False),
        encoding="utf-8",
    )
    os.replace(tmp_npy, npy)  # the .npy first: the meta file marks a complete entry
    os.replace(tmp_meta, meta_path)


def load_text_vectors(path: Path, vocabulary: set[str] | None = None, *,
                      cache: bool | None = None, cache_dir: Path | None = None) -> TextVectors:
    """:func:`read_text_vectors` behind the on-disk cache.

    ``cache=None`` caches files of 64 MB or more; ``True`` / ``False`` force it on / off.
    A cache that cannot be written only warns.
    """
    if not path.is_file():
        raise CrevalError(f"Word vector file not found: {path}")
    use = path.stat().st_size >= AUTO_CACHE_BYTES if cache is None else cache
    if not use:
        return read_text_vectors(path, vocabulary)
    stem = cache_stem(path, vocabulary, cache_dir or default_cache_dir())
    hit = _load_cache(stem)
    if hit is not None:
        return hit
    tv = read_text_vectors(path, vocabulary)
    try:
        _write_cache(stem, tv)
    except OSError as exc:
        warnings.warn(f"Could not cache word vectors under {stem.parent}: {exc}", stacklevel=2)
    return tv
