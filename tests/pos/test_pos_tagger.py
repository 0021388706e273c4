"""The real spaCy tagger (packaged English pipeline): Penn tags, sentences, cache."""

from __future__ import annotations

import pytest

pytest.importorskip("spacy", reason="needs the 'pos' extra (spacy)")

from creval.errors import CrevalError  # noqa: E402
from creval.pos import get_tagger, tags_only  # noqa: E402


def test_spacy_tags_sentences_and_caches() -> None:
    tagger = get_tagger("spacy", batch_size=2)
    texts = ["The cat sat on the mat. It slept.", "She runs fast.", "The cat sat on the mat. It slept."]
    tagged = tagger.tag(texts)
    assert tags_only(tagged[1]) == [["PRP", "VBZ", "RB", "."]]
    first = tags_only(tagged[0])
    assert len(first) == 2 and first[0][:2] == ["DT", "NN"] and first[1][-1] == "."
    assert tagged[0] == tagged[2]
    assert tagger.tagged_texts == 2  # the repeated text was tagged once
    tagger.tag(["She runs fast."])
    assert tagger.tagged_texts == 2
    assert "Penn" in tagger.identity()["tags"]


def test_unknown_tagger() -> None:
    with pytest.raises(CrevalError, match="Unknown tagger"):
        get_tagger("nope")
    with pytest.raises(CrevalError, match="cannot be loaded"):
        get_tagger("spacy:no_such_pipeline_xyz").tag(["x"])


def test_sudachi_tags_japanese_sentences() -> None:
    pytest.importorskip("sudachipy", reason="needs the 'ja' extra")
    tagger = get_tagger("sudachi")
    (tagged,) = tagger.tag(["猫がマットの上に座った。犬は走る！"])
    tags = tags_only(tagged)
    assert len(tags) == 2  # two sentences, each ending with its full stop
    assert tags[0][:2] == ["名詞-普通名詞", "助詞-格助詞"] and tags[0][-1] == "補助記号-句点"
    assert [w for w, _ in tagged[1]] == ["犬", "は", "走る", "！"]
    with pytest.raises(CrevalError, match="Sudachi dictionary"):
        get_tagger("sudachi:huge")


def test_tags_do_not_depend_on_the_batch_size() -> None:
    texts = [f"The {w} sat on the mat. It slept." for w in ("cat", "dog", "old man", "bird")] + ["Run!"]
    whole = get_tagger("spacy", batch_size=64).tag(texts)
    assert get_tagger("spacy", batch_size=1).tag(texts) == whole
    assert get_tagger("spacy", batch_size=3).tag(texts) == whole


def test_disk_cache_serves_a_new_tagger() -> None:
    texts = ["The cat sat on the mat. It slept.", "She runs fast."]
    first = get_tagger("spacy")
    tagged = first.tag(texts)
    assert first.tagged_texts == 2
    second = get_tagger("spacy")  # a new process would start like this: empty memory
    assert second.tag(texts) == tagged
    assert second.tagged_texts == 0
    assert second.tag(["A new text."]) and second.tagged_texts == 1
