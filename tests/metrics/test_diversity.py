"""Self-BLEU, Distinct-n and mean pairwise cosine similarity, checked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from creval.metrics.diversity import (
    distinct_n,
    mean_pairwise_cosine_similarity,
    self_bleu,
    sentence_bleu,
    tokenize,
)


def test_tokenize_lowercases_and_splits_punctuation() -> None:
    assert tokenize("Don't STOP, now!") == ["don", "'", "t", "stop", ",", "now", "!"]
    assert tokenize("  ") == []


def test_sentence_bleu_full_precisions_by_hand() -> None:
    # hyp "the cat sat on a mat" vs ref "the cat sat on the mat":
    # unigrams: the cat sat on a mat -> 5 of 6 match ('a' does not); bigrams: the-cat,
    # cat-sat, sat-on match, on-a and a-mat do not -> 3/5; trigrams the-cat-sat, cat-sat-on
    # -> 2/4; 4-grams the-cat-sat-on -> 1/3. Same length, BP = 1.
    expected = (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    assert sentence_bleu("the cat sat on a mat", ["the cat sat on the mat"]) == pytest.approx(
        expected
    )


def test_sentence_bleu_clips_repeated_words() -> None:
    # "the the the" vs "the cat": unigram matches clipped to 1 of 3; no bigram matches, so
    # with smoothing p2 = 0.1/2, p3 = 0.1/1, p4 = 0.1/1 (no 4-grams: 0 of 1). c = 3 > r = 2.
    expected = (1 / 3 * 0.05 * 0.1 * 0.1) ** 0.25
    assert sentence_bleu("the the the", ["the cat"]) == pytest.approx(expected)
    assert sentence_bleu("the the the", ["the cat"], smoothing="none") == 0.0


def test_sentence_bleu_brevity_penalty_uses_closest_reference() -> None:
    # hyp "a b" (c = 2) vs refs of lengths 4 and 5: closest r = 4, BP = exp(1 - 4/2) = e^-1.
    # Precisions with max_n = 2: p1 = 2/2, p2 = 1/1.
    score = sentence_bleu("a b", ["a b c d", "a b c d e"], max_n=2)
    assert score == pytest.approx(math.exp(-1.0))
    # Ties in distance go to the shorter reference: c = 3, refs 2 and 4 -> r = 2 -> BP = 1.
    assert sentence_bleu("a b c", ["a b", "a b c x"], max_n=1) == pytest.approx(1.0)


def test_sentence_bleu_zero_without_unigram_match_and_for_empty_hypothesis() -> None:
    assert sentence_bleu("x y z w", ["a b c d"]) == 0.0
    assert sentence_bleu("", ["a b c d"]) == 0.0


def test_self_bleu_identical_and_disjoint_sets() -> None:
    assert self_bleu(["one two three four"] * 3) == pytest.approx(1.0)
    assert self_bleu(["one two three four", "five six seven eight"]) == 0.0


def test_self_bleu_uses_all_other_texts_as_references() -> None:
    # Text 1 "a b c d" against refs "a b c e" and "x b c d": the max count over references
    # makes every unigram and the bigrams a-b, b-c, c-d match (4/4, 3/3); trigram a-b-c and
    # b-c-d match (2/2); the 4-gram a-b-c-d matches neither (0.1/1). All lengths are 4: BP = 1.
    texts = ["a b c d", "a b c e", "x b c d"]
    t1 = (1.0 * 1.0 * 1.0 * 0.1) ** 0.25
    # text 2 "a b c e" vs "a b c d", "x b c d": unigrams a b c match, e not -> 3/4;
    # bigrams a-b, b-c -> 2/3; trigram a-b-c -> 1/2; 4-gram none -> 0.1/1.
    t2 = (3 / 4 * 2 / 3 * 1 / 2 * 0.1) ** 0.25
    # text 3 "x b c d" vs "a b c d", "a b c e": b c d -> 3/4; b-c, c-d -> 2/3; b-c-d -> 1/2.
    t3 = t2
    assert self_bleu(texts) == pytest.approx((t1 + t2 + t3) / 3)
    assert self_bleu(texts) == pytest.approx(
        sum(sentence_bleu(t, texts[:i] + texts[i + 1 :]) for i, t in enumerate(texts)) / 3
    )


def test_self_bleu_lower_for_more_diverse_set() -> None:
    similar = ["tie the rope to the tree", "tie the rope to the post", "tie the rope to a tree"]
    diverse = ["tie the rope to the tree", "boil water in the tin", "signal with the mirror"]
    assert self_bleu(diverse) < self_bleu(similar)


def test_self_bleu_validation() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        self_bleu(["only one"])
    with pytest.raises(ValueError, match="no tokens"):
        self_bleu(["a b", "  "])
    with pytest.raises(ValueError, match="sequence of strings"):
        self_bleu("a b")
    with pytest.raises(ValueError, match="smoothing"):
        self_bleu(["a", "b"], smoothing="add1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_n"):
        self_bleu(["a", "b"], max_n=0)


def test_custom_tokenizer_is_used() -> None:
    chars = list  # one token per character, as for Japanese without a segmenter
    assert distinct_n(["ああい"], n=1, tokenizer=chars) == pytest.approx(2 / 3)
    assert self_bleu(["abcd", "abcd"], tokenizer=chars) == pytest.approx(1.0)


def test_distinct_n_by_hand() -> None:
    texts = ["the cat saw the dog", "the dog ran"]
    # unigrams: the cat saw the dog the dog ran = 8 tokens; unique the cat saw dog ran = 5.
    assert distinct_n(texts, n=1) == pytest.approx(5 / 8)
    # bigrams: the-cat cat-saw saw-the the-dog | the-dog dog-ran = 6; unique 5.
    assert distinct_n(texts, n=2) == pytest.approx(5 / 6)
    # bigrams never span two texts: "a" + "b" has no bigram at all.
    with pytest.raises(ValueError, match="undefined"):
        distinct_n(["a", "b"], n=2)


def test_distinct_n_validation() -> None:
    with pytest.raises(ValueError, match="positive integer"):
        distinct_n(["a b"], n=0)
    with pytest.raises(ValueError, match="at least 1"):
        distinct_n([], n=1)


def test_mean_pairwise_cosine_similarity_by_hand() -> None:
    # (1, 0), (0, 2), (-3, 0): cosines 0, -1, 0 -> mean -1/3.
    assert mean_pairwise_cosine_similarity([[1, 0], [0, 2], [-3, 0]]) == pytest.approx(-1 / 3)
    X = np.array([[1.0, 2.0, 0.5], [1.0, 2.0, 0.5], [2.0, 4.0, 1.0]])  # same direction
    assert mean_pairwise_cosine_similarity(X) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="zero vector"):
        mean_pairwise_cosine_similarity([[0.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="at least 2"):
        mean_pairwise_cosine_similarity([[1.0, 0.0]])


def test_nltk_bleu_reproduces_the_hand_written_bleu_on_todays_fixtures() -> None:
    """Self-BLEU moved from our own BLEU to nltk's; on every fixture the numbers stay.

    ``self_bleu_c47d376.json`` holds what the hand-written BLEU (commit c47d376) gave for
    the existing tests' inputs and the open-ended starter data (each domain's fields as a
    set, and the sentences of each multi-sentence field), under five option settings, and
    for ``sentence_bleu`` of each set's first text against the rest. nltk computes the same
    formula (clipping, closest reference length with ties to the shorter, method 1
    smoothing), so only floating-point rounding may differ.
    """
    import json
    from pathlib import Path

    recorded = json.loads(Path(__file__).with_name("self_bleu_c47d376.json").read_text("utf-8"))
    sets = recorded["sets"]
    assert len(recorded["cases"]) == 186
    for name, options, function, before in recorded["cases"]:
        texts = sets[name]
        if function == "self_bleu":
            after = self_bleu(texts, **options)
        else:
            after = sentence_bleu(texts[0], texts[1:], **options)
        assert after == pytest.approx(before, rel=1e-12, abs=1e-15), (name, options, function)


def test_missing_nltk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from creval.errors import MissingDependency

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "nltk" else real(name, *a)
    )
    with pytest.raises(MissingDependency, match=r"creval\[index\]"):
        self_bleu(["a b", "a c"])
