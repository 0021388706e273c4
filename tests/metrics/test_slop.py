"""Slop-score metrics against brute force and hand calculation (upstream's own JavaScript is
the reference in tests/benchmarks/slop/test_slop_upstream_js.py)."""

from __future__ import annotations

import random
import re

import pytest

from creval.metrics.slop import (
    average_paragraph_length,
    average_sentence_length,
    content_tokens,
    count_syllables,
    dialogue_frequency,
    flesch_kincaid_grade,
    js_regex,
    js_trim,
    leaderboard_text,
    lexical_diversity,
    ngram_repetition_score,
    not_x_but_y_count,
    not_x_but_y_matches,
    overused_ngrams,
    sentence_spans,
    slop_phrases,
    slop_rates,
    utf16_length,
    words_only_lower,
)


def _random_tokens(rng: random.Random, n: int, vocab: int) -> list[str]:
    return [f"w{rng.randrange(vocab)}" for _ in range(n)]


@pytest.mark.parametrize(("n", "window", "vocab"), [(1200, 500, 300), (40, 7, 5), (7, 7, 3), (5, 7, 3)])
def test_mattr_is_the_mean_ttr_of_every_window(n: int, window: int, vocab: int) -> None:
    toks = _random_tokens(random.Random(n), n, vocab)
    mattr, ttr = lexical_diversity(toks, window=window)
    assert ttr == len(set(toks)) / n
    if n < window:
        assert mattr == ttr
    else:
        brute = [len(set(toks[i:i + window])) / window for i in range(n - window + 1)]
        assert mattr == pytest.approx(sum(brute) / len(brute), rel=1e-12)


def test_lexical_diversity_of_nothing() -> None:
    assert lexical_diversity([]) == (0.0, 0.0)


def test_slop_rates_count_words_and_consecutive_trigrams() -> None:
    rng = random.Random(3)
    toks = _random_tokens(rng, 2000, 6)
    words = {"w1", "w2"}
    trigrams = {"w3 w4 w5", "w1 w1 w1"}
    word_rate, tri_rate = slop_rates(toks, words=words, trigrams=trigrams)
    hits = sum(1 for t in toks if t in words)
    tri = sum(1 for a, b, c in zip(toks, toks[1:], toks[2:], strict=False) if f"{a} {b} {c}" in trigrams)
    assert tri > 0
    assert word_rate == hits / len(toks) * 1000
    assert tri_rate == tri / len(toks) * 1000
    assert slop_rates([], words=words, trigrams=trigrams) == (0.0, 0.0)


def test_overused_ngrams_rank_by_ratio_then_first_occurrence() -> None:
    rng = random.Random(5)
    grams = [f"g{rng.randrange(30)}" for _ in range(500)]
    human = {f"g{i}": (i + 1) / 1000 for i in range(0, 30, 3)}
    got = overused_ngrams(grams, human, top_k=12)
    floor = min(human.values())
    first = {g: grams.index(g) for g in set(grams)}
    brute = sorted(((g, grams.count(g) / len(grams) / (human.get(g, floor) + 1e-12), grams.count(g))
                    for g in set(grams)), key=lambda r: (-r[1], first[r[0]]))
    assert got == brute[:12]


def test_repetition_score_counts_the_top_content_ngrams() -> None:
    toks = ["the", "old", "man", "and", "the", "sea", "and", "the", "old", "man", "of", "the", "sea"]
    content = ["old", "man", "sea", "old", "man", "sea"]
    assert content_tokens(toks) == content
    # bigrams: old man x2, man sea x2, sea old x1; trigrams: old man sea x2, man sea old, sea old man
    assert ngram_repetition_score(toks, human_bigrams={}, human_trigrams={}, top_k=1) == (2 + 2) / 6 * 1000
    assert ngram_repetition_score(toks, human_bigrams={}, human_trigrams={}, top_k=40) == (5 + 4) / 6 * 1000


def test_stopwords_are_upstreams_127() -> None:
    from creval.metrics.slop import STOPWORDS

    assert len(STOPWORDS) == 127 and {"i", "don", "now", "s", "t"} <= STOPWORDS


def test_tokens_as_upstream() -> None:
    assert words_only_lower("\u2018Twas O\u2019Neil\u2019s `best` -- 42 ''") == ["twas", "o'neil's", "best"]
    assert slop_phrases([["Tapestry!"], ["said  voice"], [7], [None]]) == {"tapestry", "said  voice", "none"}


def test_javascript_semantics() -> None:
    assert utf16_length("a\U0001F600\u00e9") == len("a\U0001F600\u00e9".encode("utf-16-le")) // 2 == 4
    assert js_trim("\ufeff\u00a0x\u3000") == "x"
    assert js_trim("\x1cx") == "\x1cx"  # Python's strip() would remove \x1c; JavaScript's trim does not
    assert js_regex(r"a\sb").search("a\u202fb")
    assert not js_regex(r"a\sb").search("a\x1cb")
    assert not js_regex(r"a.b").search("a\rb") and js_regex(r"a.b").search("a\x85b")
    assert js_regex(r"[^\s]+").findall("ab\u00a0cd") == ["ab", "cd"]
    assert not js_regex(r"\bk").search("\u212a")  # no Unicode case folding of the Kelvin sign
    assert js_regex(r"NOT").search("not")


def test_syllables_and_grade_by_hand() -> None:
    # "whispered": tail "ed" dropped -> "whisper": i, e -> 2; "yearly": leading y dropped -> "early"
    # (tail: "y" does not match) -> "ea", "y" -> 2; "the" (3 letters) -> 1; "rhythm" -> "y" -> 1
    assert [count_syllables(w) for w in ("whispered", "yearly", "the", "rhythm", "x_1")] == [2, 2, 1, 1, 1]
    text = "The cat sat. Rhythm whispered yearly!"
    words, sentences, syllables = 6, 2, 1 + 1 + 1 + 1 + 2 + 2
    want = 0.39 * (words / sentences) + 11.8 * (syllables / words) - 15.59
    assert flesch_kincaid_grade(text) == max(0.0, want)
    assert flesch_kincaid_grade("...") == 0.0
    long_words = "Extraordinarily multidimensional characterisation notwithstanding."
    assert flesch_kincaid_grade(long_words) > 10


def test_lengths_and_dialogue_by_hand() -> None:
    text = 'One two three. Four five!\n\n"Six," she said.\n \nSeven'
    assert average_sentence_length(text) == 9 / 4
    assert average_paragraph_length(text) == 9 / 3
    assert dialogue_frequency(text) == 2 / 2 / len(text) * 1000
    assert dialogue_frequency("\u201cHi\u201d") == 1 / 2 * 1000 / 2 * 1 * 2 / 2  # two quotes, 4 chars
    assert average_sentence_length("") == average_paragraph_length(" \n\n ") == 0.0


def test_sentence_spans_cover_the_text() -> None:
    text = "A b. C d e? F!! g"
    spans = sentence_spans(text)
    assert spans == [(0, 4), (4, 11), (11, 14), (14, 15), (15, 17)]
    assert "".join(text[s:e] for s, e in spans) == text


@pytest.mark.parametrize(("text", "patterns"), [
    ("It wasn't anger, but grief.", ["RE_NOT_BUT"]),
    ("It was not that she cared, but he did.", ["RE_NOT_BUT"]),  # "not that" guards only bare "not"
    ("It is not that she cared, but he did.".replace("is not", "not"), []),
    ("She was not tired, but when she sat she slept.", []),  # "but when" is excluded
    ("This isn't just a house - it is a home.", ["RE_NOT_DASH"]),
    ("This isn't just a house - it's a home.", []),  # "it's" is no pronoun + space
    ("It is not a bug. It is a feature.", ["RE_PRON_BE_NOT_SEP_BE"]),
    ("The door was not locked. It was open.", ["RE_NP_BE_NOT_SEP_THEY_BE"]),
    ("He knew that the door was not locked. It was open.", []),  # reporter frame
    ("The storm no longer frightened me. It was a friend.", ["RE_NO_LONGER"]),
    ("They didn't walk. They walked on air.", ["RE_NOT_PERIOD_SAMEVERB"]),
    ("We are fine. The plan wasn't bad; it was brilliant.", ["RE_NP_BE_NOT_SEP_THEY_BE"]),
    ("The plan wasn't bad. It's brilliant.", ["RE_SIMPLE_BE_NOT_IT_BE"]),
    ("The cat sat on the mat.", []),
])
def test_not_x_but_y_patterns(text: str, patterns: list[str]) -> None:
    assert [m["pattern"] for m in not_x_but_y_matches(text)] == patterns


def test_overlapping_matches_merge_into_one() -> None:
    text = "It is not a bug, but a feature. It is a feature."
    found = not_x_but_y_matches(text)
    assert len(found) == 1 and found[0]["sentences"] == (0, 1)
    assert not_x_but_y_count("It is not a bug. It is a feature. Fine. It wasn't fear, but hope.") == 2


def test_leaderboard_text_keeps_long_outputs_in_order() -> None:
    outs = ["x" * 300, "a" * 301, "", "\U0001F600" * 151, "b" * 400]
    assert leaderboard_text(outs) == "\n\n".join([outs[1], outs[3], outs[4]])  # emoji: 302 units
    assert leaderboard_text(outs, first=2) == "\n\n".join([outs[1], outs[3]])
    assert re.fullmatch(r"a+", leaderboard_text(outs, min_chars=300, first=1))
