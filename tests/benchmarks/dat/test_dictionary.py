"""Word lists: Olson's words.txt read in place, the english-words stand-in, errors."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tests_paths import SHARED_DATA

from creval.benchmarks.dat.dictionary import (
    OLSON_WORDS_URL,
    default_english_dictionary,
    load_word_list,
)
from creval.errors import CrevalError, MissingDependency

SHARED_DAT = SHARED_DATA / "dat"
needs_shared = pytest.mark.skipif(
    not (SHARED_DAT / "words.txt").is_file() and not os.environ.get("CREVAL_REQUIRE_SHARED"),
    reason=f"shared DAT data not found at {SHARED_DAT} (the folder beside the repository)",
)

# Words of the published example lists that the stand-in lacks (english-words 2.0.2): plurals
# and "burger". Olson's words.txt has them all. A shorter set is fine; a longer one is not.
KNOWN_STANDIN_GAPS = {"burger", "eyes", "shoes", "tickets"}


def test_load_word_list_keeps_olson_pattern(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_text(
        "aardvark\r\ncafé\nCat\ncul-de-sac\n  dog  \na\n-ish\nice cream\nx-\n\nzebra\n",
        encoding="utf-8",
    )
    assert load_word_list(path) == {"aardvark", "cul-de-sac", "dog", "zebra"}


def test_load_word_list_errors(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="does not exist"):
        load_word_list(tmp_path / "missing.txt")
    with pytest.raises(CrevalError, match="is a directory"):
        load_word_list(tmp_path)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(CrevalError, match="not UTF-8"):
        load_word_list(bad)
    empty = tmp_path / "upper.txt"
    empty.write_text("CAT\nDOG\n", encoding="utf-8")
    with pytest.raises(CrevalError, match="no usable word"):
        load_word_list(empty)


def test_olson_url_points_at_the_pinned_commit() -> None:
    assert OLSON_WORDS_URL.endswith(
        "/jayolson/divergent-association-task/9978dd8103670a90c59bc35a7210acc60995dcdb/words.txt"
    )
    assert OLSON_WORDS_URL.startswith("https://raw.githubusercontent.com/")


@needs_shared
def test_olson_words_txt_usable_count() -> None:
    # The shared README: 175,276 lines, 383 with accented letters -> 174,893 usable words.
    words = load_word_list(SHARED_DAT / "words.txt")
    assert len(words) == 174_893
    assert "cul-de-sac" in words and "café" not in words


def test_stand_in_dictionary() -> None:
    pytest.importorskip(
        "english_words", reason="the 'embed' extra (english-words) is not installed"
    )
    words = default_english_dictionary()
    assert default_english_dictionary() is words  # cached
    assert len(words) > 200_000
    assert all(w == w.lower() for w in list(words)[:1000])
    assert {"cat", "dog", "thimble", "cul-de-sac", "e-mail", "email"} <= words


@needs_shared
def test_stand_in_against_olson_words(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip(
        "english_words", reason="the 'embed' extra (english-words) is not installed"
    )
    olson = load_word_list(SHARED_DAT / "words.txt")
    standin = default_english_dictionary()
    common = olson & standin
    with capsys.disabled():
        print(
            f"\nstand-in {len(standin):,} words, Olson {len(olson):,}, both {len(common):,} "
            f"({len(common) / len(olson):.0%} of Olson's)"
        )
    assert len(common) > 50_000

    examples = json.loads((SHARED_DAT / "examples.json").read_text(encoding="utf-8"))
    answer_words = {w for case in examples["dat_cases"] for w in case["words"]}
    answer_words |= {
        w for case in examples["distance_cases"] for w in (case["word1"], case["word2"])
    }
    assert answer_words <= olson
    missing = answer_words - standin
    assert missing <= KNOWN_STANDIN_GAPS, f"the stand-in lost example words: {sorted(missing)}"
    assert len(answer_words & standin) >= len(answer_words) - len(KNOWN_STANDIN_GAPS)


def test_missing_english_words_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    default_english_dictionary.cache_clear()
    monkeypatch.setitem(sys.modules, "english_words", None)
    try:
        with pytest.raises(MissingDependency, match=r"pip install 'creval\[embed\]'"):
            default_english_dictionary()
    finally:
        default_english_dictionary.cache_clear()


def test_the_stand_in_is_kept_on_disk_and_read_back_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREVAL_CACHE_DIR", str(tmp_path))
    default_english_dictionary.cache_clear()
    try:
        built = default_english_dictionary()
        (kept,) = (tmp_path / "dat-dictionary").glob("english-words-*.txt")
        default_english_dictionary.cache_clear()
        assert default_english_dictionary() == built
        kept.write_text("zebra\nquokka", encoding="utf-8")  # what a later run reads is the file
        default_english_dictionary.cache_clear()
        assert default_english_dictionary() == {"zebra", "quokka"}
    finally:
        default_english_dictionary.cache_clear()
