"""A real word-level infini-gram index built from a small corpus: the one-query Creativity
Index equals a brute-force search for every L, and equals the reference two-pointer method."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tests_paths import write_jsonl_texts

pytest.importorskip("infini_gram", reason="needs the 'index' extra (infini-gram)")
pytest.importorskip("nltk", reason="needs the 'index' extra (nltk)")

from creval.errors import CrevalError  # noqa: E402
from creval.index import LocalIndex, build_index, score_texts, words  # noqa: E402
from creval.metrics.creativity_index import l_uniqueness  # noqa: E402
from tests.index._corpus import CORPUS  # noqa: E402

TEXTS = [
    "Last year the old lighthouse keeper climbed the stairs every night, counting each step aloud.",
    "A storm came from the west and the ships in the bay could not see the rocks at midnight.",
    "Nothing in this sentence appears in the little corpus at all, not one phrase of it.",
    "She tied the rope to the railing and lowered the bucket into the well.",
]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ix")
    source = write_jsonl_texts(root / "corpus.jsonl", CORPUS)
    build_index([str(source)], root / "index")
    return root / "index"


def _occurs(span: list[str], docs: list[list[str]]) -> bool:
    n = len(span)
    return any(doc[i : i + n] == span for doc in docs for i in range(len(doc) - n + 1))


def _brute_force_uniqueness(tokens: list[str], docs: list[list[str]], length: int) -> float:
    """Every span of at least `length` words checked against every document."""
    covered = [False] * len(tokens)
    for start in range(len(tokens)):
        for end in range(start + length, len(tokens) + 1):
            if _occurs(tokens[start:end], docs):
                covered[start:end] = [True] * (end - start)
    return covered.count(False) / len(tokens)


def test_manifest_and_vocabulary(index_dir: Path) -> None:
    index = LocalIndex(index_dir)
    docs = [words(t) for t in CORPUS]
    assert index.manifest["documents"] == len(CORPUS)
    assert index.manifest["words"] == sum(map(len, docs))
    assert len(index.vocab) == len({w for d in docs for w in d})
    assert index.manifest["id_width"] == "u16"


def test_one_query_index_equals_brute_force_for_every_l(index_dir: Path) -> None:
    index = LocalIndex(index_dir)
    docs = [words(t) for t in CORPUS]
    rng = random.Random(7)
    # Texts stitched from corpus pieces make long and partial matches at random places.
    stitched = []
    for _ in range(6):
        parts = []
        for _ in range(3):
            doc = rng.choice(docs)
            start = rng.randrange(len(doc) - 3)
            parts.extend(doc[start : start + rng.randint(3, 9)])
        stitched.append(" ".join(parts))
    texts = TEXTS + stitched
    outcomes = score_texts(index, texts, min_l=2, max_l=9)
    assert index.queries == len(texts)  # one engine query per text
    for text, outcome in zip(texts, outcomes, strict=True):
        tokens = words(text)
        assert outcome.result is not None, text
        for length in range(2, 10):
            expected = _brute_force_uniqueness(tokens, docs, length)
            assert outcome.result.uniqueness[length] == pytest.approx(expected), (text, length)
    # The texts do differ: a copied sentence is fully covered, a new one is not.
    assert outcomes[3].result is not None and outcomes[3].result.uniqueness[5] == 0.0
    assert outcomes[2].result is not None and outcomes[2].result.uniqueness[5] == 1.0


def test_reference_two_pointer_method_agrees(index_dir: Path) -> None:
    index = LocalIndex(index_dir)
    for text in TEXTS:
        tokens = words(text)
        spans = index.reference_spans(tokens, min_length=5)
        one_query = score_texts(index, [text], min_l=5, max_l=5)[0].result
        assert one_query is not None
        assert l_uniqueness(len(tokens), spans, min_length=5) == pytest.approx(one_query.uniqueness[5])


def test_short_and_empty_texts_are_excluded_with_a_reason(index_dir: Path) -> None:
    index = LocalIndex(index_dir)
    short, empty = score_texts(index, ["The old lighthouse keeper.", "  "], min_l=5, max_l=7)
    assert short.result is None and short.excluded is not None and "too short" in short.excluded
    assert empty.result is None and empty.excluded == "empty text"
    assert index.queries == 0


def test_missing_and_corrupt_index_are_clear_errors(index_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="does not exist"):
        LocalIndex(tmp_path / "nope")
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in index_dir.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    table = broken / "table.0"
    table.write_bytes(table.read_bytes()[:-3])
    with pytest.raises(CrevalError, match="table.0 has .* bytes"):
        LocalIndex(broken)
    (broken / "vocab.json").unlink()
    with pytest.raises(CrevalError, match="missing vocab.json"):
        LocalIndex(broken)


def test_vocabulary_too_big_for_the_id_width(tmp_path: Path) -> None:
    source = tmp_path / "many.txt"
    source.write_text(" ".join(f"w{i}" for i in range(65_535)), encoding="utf-8")
    with pytest.raises(CrevalError, match="65535 words; ids of width u16 hold at most 65534"):
        build_index([str(source)], tmp_path / "out", id_width="u16")


def test_bad_sources(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="does not exist"):
        build_index([str(tmp_path / "missing.jsonl")], tmp_path / "out")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"body": "x"}\n', encoding="utf-8")
    with pytest.raises(CrevalError, match="--text-field"):
        build_index([str(bad)], tmp_path / "out2")


def test_empty_sources_and_a_used_out_folder(tmp_path: Path, index_dir: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"text": "   "}\n', encoding="utf-8")
    with pytest.raises(CrevalError, match="no document with a word"):
        build_index([str(empty)], tmp_path / "out")
    with pytest.raises(CrevalError, match="is not empty"):
        build_index([str(empty)], index_dir)
    broken = tmp_path / "manifest"
    broken.mkdir()
    for f in index_dir.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / "creval-index.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CrevalError, match="creval-index.json is corrupt"):
        LocalIndex(broken)
