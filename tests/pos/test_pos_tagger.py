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
