"""The suffix-array search (creval.index.suffix) against a brute-force scan of the corpus:
the longest match at every word, the spans and the L-uniqueness, on small built indexes of
one token per word (u16), two tokens per word (u16x2) and a 3-byte suffix array."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tests_paths import write_jsonl_texts

pytest.importorskip("infini_gram", reason="needs the 'index' extra (infini-gram)")
pytest.importorskip("nltk", reason="needs the 'index' extra (nltk)")

from creval.index import LocalIndex, build_index, score_texts, words  # noqa: E402
from creval.index.near import corpus_documents  # noqa: E402
from creval.metrics.creativity_index import l_uniqueness, spans_from_match_ends  # noqa: E402
from tests.index._corpus import CORPUS  # noqa: E402


def brute_force_ends(tokens: list[str], docs: list[list[str]]) -> list[int]:
    """For each word, the end of the longest run of words equal to some corpus run."""
    ends = []
    for i in range(len(tokens)):
        best = i
        for doc in docs:
            for start in range(len(doc)):
                k = 0
                while i + k < len(tokens) and start + k < len(doc) and tokens[i + k] == doc[start + k]:
                    k += 1
                best = max(best, i + k)
        ends.append(best)
    return ends


def stitched_texts(docs: list[list[str]], count: int, seed: int) -> list[list[str]]:
    """Texts of corpus pieces, with unknown words between some: long and partial matches."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        parts: list[str] = []
        for _ in range(rng.randint(1, 5)):
            doc = rng.choice(docs)
            start = rng.randrange(len(doc))
            parts += doc[start : start + rng.randint(1, 14)]
            if rng.random() < 0.3:
                parts.append("zebra-never-seen")
        texts.append(parts)
    return texts


@pytest.fixture(scope="module", params=["u16", "u16x2"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> LocalIndex:
    root = tmp_path_factory.mktemp(f"sa-{request.param}")
    source = write_jsonl_texts(root / "corpus.jsonl", CORPUS)
    build_index([str(source)], root / "index", id_width=request.param, cpus=1, mem_gib=1)
    return LocalIndex(root / "index")


def test_batch_search_equals_brute_force(built: LocalIndex) -> None:
    docs = [words(t) for t in CORPUS]
    texts = stitched_texts(docs, 120, seed=3) + [[], docs[0], ["zebra-never-seen"] * 3]
    got = built.match_ends_many(texts)
    assert got == [brute_force_ends(t, docs) for t in texts]
    assert built.queries == sum(1 for t in texts if t)  # one query per non-empty text
    assert [built.match_ends(t) for t in texts[:10]] == got[:10]


def test_l_uniqueness_equals_brute_force_and_the_two_pointer(built: LocalIndex) -> None:
    docs = [words(t) for t in CORPUS]
    texts = [" ".join(t) for t in stitched_texts(docs, 25, seed=11) if len(t) > 7]
    for text, outcome in zip(texts, score_texts(built, texts, min_l=2, max_l=7), strict=True):
        tokens = words(text)
        spans = spans_from_match_ends(brute_force_ends(tokens, docs))
        assert outcome.result is not None
        for length in range(2, 8):
            expected = l_uniqueness(len(tokens), spans, min_length=length)
            assert outcome.result.uniqueness[length] == expected, (text, length)
            reference = built.reference_spans(tokens, min_length=length)
            assert l_uniqueness(len(tokens), reference, min_length=length) == expected


def test_u16x2_index_reads_back_its_words(built: LocalIndex) -> None:
    assert corpus_documents(built) == [words(t) for t in CORPUS]
    expected_tokens = (1 if built.width == "u16" else 2) * built.manifest["words"] + len(CORPUS)
    assert built.suffixes.n == expected_tokens


def test_three_byte_suffix_array_and_a_vocabulary_over_u16(tmp_path: Path) -> None:
    """40k words of 70k distinct ones: the width is picked as u16x2, pointers take 3 bytes."""
    rng = random.Random(5)
    phrases = [" ".join(f"w{rng.randrange(70_000)}" for _ in range(20)) for _ in range(200)]
    docs_text = [" ".join(f"v{i}" for i in range(70_000 // 10 * j, 70_000 // 10 * (j + 1)))
                 for j in range(10)]
    docs_text += [" ".join(rng.choice(phrases) for _ in range(12)) for _ in range(20)]
    source = write_jsonl_texts(tmp_path / "corpus.jsonl", docs_text)
    build_index([str(source)], tmp_path / "index", cpus=1, mem_gib=1)
    index = LocalIndex(tmp_path / "index")
    assert index.width == "u16x2" and index.suffixes.ratio == 3
    docs = [words(t) for t in docs_text]
    texts = [words(rng.choice(phrases) + " " + rng.choice(phrases))[rng.randrange(10):] + ["v69999", "v3"]
             for _ in range(8)]
    got = index.match_ends_many(texts)
    long_docs = docs[10:]  # the v-documents only ever match one word at a time
    for tokens, ends in zip(texts, got, strict=True):
        expected = brute_force_ends(tokens, long_docs)
        expected[-2:] = [len(tokens) - 1, len(tokens)]  # v69999 then v3: separate documents
        assert ends == expected
