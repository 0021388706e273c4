"""DAT scoring: Olson's cleaning rules on the shared cases, hand-calculated scores, summaries."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from creval.benchmarks.dat.dictionary import load_word_list
from creval.metrics import (
    DATResult,
    InvalidWord,
    dat_all_valid,
    dat_olson,
    olson_candidates,
    olson_clean,
    olson_validate,
    summarize_dat,
)

SHARED_DAT = Path(__file__).resolve().parents[3] / "shared" / "data" / "dat"
needs_shared = pytest.mark.skipif(
    not (SHARED_DAT / "cleaning_cases.json").is_file()
    and not os.environ.get("CREVAL_REQUIRE_SHARED"),
    reason=f"shared DAT data not found at {SHARED_DAT} (the folder beside the repository)",
)


def _cases() -> dict[str, Any]:
    return json.loads((SHARED_DAT / "cleaning_cases.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def olson_words() -> frozenset[str]:
    return load_word_list(SHARED_DAT / "words.txt")


def _orthogonal(words: Sequence[str]) -> dict[str, np.ndarray]:
    """Word i -> unit vector e_i: every pair at cosine distance exactly 1."""
    eye = np.eye(len(words))
    return {w: eye[i] for i, w in enumerate(words)}


# --- Olson's cleaning and candidates, against the shared derived cases ---------------------


@needs_shared
def test_cleaning_cases_from_shared_data(olson_words: frozenset[str]) -> None:
    cases = _cases()["cases"]
    assert len(cases) >= 20
    for case in cases:
        text = case["input"]
        assert olson_clean(text) == case["cleaned"], text
        assert olson_candidates(text) == case["candidates"], text
        assert (olson_candidates(text) == []) == case["too_short"], text
        in_words = [c in olson_words for c in case["candidates"]]
        assert in_words == case["candidates_in_words_txt"], text
        assert olson_validate(text, olson_words) == case["first_candidate_in_words_txt"], text


@needs_shared
def test_dedup_cases_from_shared_data(olson_words: frozenset[str]) -> None:
    for case in _cases()["dedup_cases"]:
        words = case["words"]
        vectors = _orthogonal(sorted(olson_words & {olson_clean(w) for w in words}))
        result = dat_olson(words, vocabulary=olson_words, vectors=vectors, minimum=2)
        assert list(result.valid) == case["validated_unique"]


@needs_shared
def test_examples_validate_case(olson_words: frozenset[str]) -> None:
    examples = json.loads((SHARED_DAT / "examples.json").read_text(encoding="utf-8"))
    for case in examples["validate_cases"]:
        assert olson_validate(case["input"], olson_words) == case["expected"]
    # Every word of the published example lists is valid under words.txt.
    for case in examples["dat_cases"]:
        assert all(olson_validate(w, olson_words) == w for w in case["words"]), case["words"]


def test_candidates_collapse_runs_of_spaces_and_hyphens() -> None:
    # Olson uses re.sub(" +", "-") and re.sub("-+", ""): runs collapse to one.
    assert olson_candidates("cul   de sac") == ["cul-de-sac", "culdesac"]
    assert olson_candidates("well--being") == ["well--being", "wellbeing"]
    # A hyphen next to a space: the space rule applies and the hyphen is kept.
    assert olson_candidates("x- ray") == ["x--ray", "x-ray"]
    assert olson_candidates("!!") == []
    assert olson_candidates("ox") == ["ox"]


def test_validate_prefers_the_first_candidate() -> None:
    assert olson_validate("e-mail", {"e-mail", "email"}) == "e-mail"
    assert olson_validate("e-mail", {"email"}) == "email"
    assert olson_validate("ice cream", {"icecream"}) == "icecream"
    assert olson_validate("ice cream", {"ice", "cream"}) is None


# --- dat_olson -------------------------------------------------------------------------------


def test_olson_seven_orthogonal_words_score_100() -> None:
    # 7 orthogonal unit vectors: 21 pairs, each at distance 1 -> mean 1 -> x100 = 100.
    words = ["arm", "eyes", "feet", "hand", "head", "leg", "body"]
    vecs = _orthogonal(words)
    result = dat_olson(words, vocabulary=set(words), vectors=vecs)
    assert result.score == pytest.approx(100.0)
    assert result.used == tuple(words)
    assert result.variant == "olson"
    assert result.scored


def test_olson_hand_calculation_with_mixed_distances() -> None:
    # a=(1,0), b=(0,1), c=(1,1): d(a,b) = 1, d(a,c) = d(b,c) = 1 - 1/sqrt(2) = 0.292893.
    # Mean = (3 - sqrt(2)) / 3 = 0.528595; x100 = 52.8595.
    vecs = {"sun": [1, 0], "ink": [0, 1], "fog": [1, 1]}
    result = dat_olson(["sun", "ink", "fog"], vocabulary=vecs, vectors=vecs, minimum=3)
    assert result.score == pytest.approx(100 * (3 - math.sqrt(2)) / 3)
    # scale=1 gives the unscaled mean; the cleaned answers are what is scored.
    unscaled = dat_olson(
        [" SUN ", "ink.", "Fog!"], vocabulary=vecs, vectors=vecs, minimum=3, scale=1
    )
    assert unscaled.score == pytest.approx((3 - math.sqrt(2)) / 3)
    assert unscaled.used == ("sun", "ink", "fog")


def test_olson_uses_only_the_first_minimum_valid_words() -> None:
    # 8 valid words; the 8th is the opposite of the first. Only the first 7 are scored, so
    # the score stays 100; with minimum=8 the 7 pairs with it change: d(ash, anti) = 2 and
    # d(w, anti) = 1 for the other 6, so mean = (21*1 + 2 + 6*1) / 28 = 29/28.
    words = ["ash", "bay", "cod", "dew", "elm", "fig", "gem"]
    vecs = _orthogonal(words)
    vecs["anti"] = -vecs["ash"]
    vocab = set(vecs)
    assert dat_olson([*words, "anti"], vocabulary=vocab, vectors=vecs).score == pytest.approx(100)
    eight = dat_olson([*words, "anti"], vocabulary=vocab, vectors=vecs, minimum=8)
    assert eight.score == pytest.approx(100 * 29 / 28)


def test_olson_invalid_and_duplicate_words_are_skipped_in_order() -> None:
    words = ["cat", "Cat!", "a", "zyzzyva", "dog", "hot dog", "tree", "cats", "sun", "sky", "sea"]
    vocab = {"cat", "dog", "tree", "cats", "sun", "sky", "sea", "zyzzyva"}
    vecs = _orthogonal(sorted(vocab - {"zyzzyva"}))
    result = dat_olson(words, vocabulary=vocab, vectors=vecs)
    assert result.valid == ("cat", "dog", "tree", "cats", "sun", "sky", "sea")
    assert result.used == result.valid
    assert result.duplicates == ("cat",)
    assert result.invalid == (
        InvalidWord("a", "too short"),
        InvalidWord("zyzzyva", "no vector"),
        InvalidWord("hot dog", "not in vocabulary"),
    )
    assert result.score == pytest.approx(100.0)


def test_olson_too_few_valid_words_gives_no_score() -> None:
    vecs = _orthogonal(["cat", "dog"])
    calls: list[list[str]] = []

    def embed(ws: Sequence[str]) -> np.ndarray:
        calls.append(list(ws))
        return np.stack([vecs[w] for w in ws])

    result = dat_olson(["cat", "dog", "cat", "xq"], vocabulary=set(vecs), vectors=embed)
    assert result.score is None
    assert result.reason == "too few valid words"
    assert result.detail == "2 distinct valid word(s); 7 needed"
    assert result.used == ()
    assert calls == []  # nothing is embedded for an unscored response


def test_olson_with_a_vector_function() -> None:
    vecs = {"sun": np.array([1.0, 0.0]), "ink": np.array([0.0, 1.0])}
    result = dat_olson(
        ["sun", "ink"],
        vocabulary=set(vecs),
        vectors=lambda ws: np.stack([vecs[w] for w in ws]),
        minimum=2,
    )
    assert result.score == pytest.approx(100.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"words": "cat dog"}, "not one string"),
        ({"words": ["cat", 3]}, "item 1 is a int"),
        ({"minimum": 1}, "at least 2"),
        ({"minimum": 2.5}, "at least 2"),
        ({"scale": 0}, "positive finite"),
        ({"scale": float("nan")}, "positive finite"),
        ({"vectors": 3}, "mapping word -> vector or a function"),
        ({"vectors": lambda ws: np.eye(3)}, "one row per word"),
        ({"vectors": {"sun": [1, 0], "ink": [0, 1, 0]}}, "different lengths"),
        ({"vectors": {"sun": [1, 0], "ink": [0, 0]}}, "zero vector"),
    ],
)
def test_olson_invalid_input(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {
        "words": ["sun", "ink"],
        "vocabulary": {"sun", "ink"},
        "vectors": {"sun": [1, 0], "ink": [0, 1]},
        "minimum": 2,
    }
    args.update(kwargs)
    words = args.pop("words")
    with pytest.raises(ValueError, match=message):
        dat_olson(words, **args)


# --- dat_all_valid ---------------------------------------------------------------------------


def _is_kanji_word(word: str) -> str | None:
    return None if word and all("\u4e00" <= c <= "\u9fff" for c in word) else "not kanji"


def _eye(ws: Sequence[str]) -> np.ndarray:
    return np.eye(len(ws))


def test_all_valid_hand_calculation() -> None:
    # 10 orthogonal vectors: 45 pairs at distance 1 -> score 1.0 (no x100).
    words = list("傘糖図楽池鏡空計火新")
    result = dat_all_valid(words, is_valid=_is_kanji_word, embed=_eye)
    assert result.score == pytest.approx(1.0)
    assert result.used == tuple(words) and result.variant == "all-valid"
    # Three words with vectors (1,0), (0,1), (1,1): mean = (3 - sqrt(2)) / 3; scale 10 as in
    # the paper's GRPO reward.
    vecs = {"傘": [1, 0], "糖": [0, 1], "図": [1, 1]}
    result = dat_all_valid(
        ["傘", "糖", "図"],
        is_valid=_is_kanji_word,
        embed=lambda ws: np.array([vecs[w] for w in ws]),
        expected=3,
        scale=10,
    )
    assert result.score == pytest.approx(10 * (3 - math.sqrt(2)) / 3)


@pytest.mark.parametrize(
    ("words", "reason", "detail"),
    [
        (list("傘糖図"), "wrong number of words", "expected 4 words, got 3"),
        (list("傘糖図楽池"), "wrong number of words", "expected 4 words, got 5"),
        (["傘", "糖", "x", "、"], "invalid words", "'x': not kanji; '、': not kanji"),
        (["傘", "糖", "図", "傘"], "duplicate words", "repeated: 傘"),
    ],
)
def test_all_valid_rejections(words: list[str], reason: str, detail: str) -> None:
    def embed(ws: Sequence[str]) -> np.ndarray:
        raise AssertionError("an invalid response must not be embedded")

    result = dat_all_valid(words, is_valid=_is_kanji_word, embed=embed, expected=4)
    assert (result.score, result.reason, result.detail) == (None, reason, detail)
    assert result.used == ()


def test_all_valid_duplicates_ignore_case_and_width() -> None:
    result = dat_all_valid(
        ["Cat", "cat", "ＣＡＴ"], is_valid=lambda w: None, embed=_eye, expected=3
    )
    assert result.duplicates == ("cat", "ＣＡＴ")


def test_all_valid_rejects_a_boolean_validator() -> None:
    with pytest.raises(ValueError, match="must return None for a valid word"):
        dat_all_valid(["a", "b"], is_valid=lambda w: True, embed=_eye, expected=2)  # type: ignore[arg-type,return-value]


# --- summarize_dat ---------------------------------------------------------------------------


def _trial(score: float | None, used: tuple[str, ...] = ("a", "b"), reason: str = "x") -> DATResult:
    return DATResult(
        variant="all-valid",
        words=used,
        valid=used,
        used=used if score is not None else (),
        invalid=(InvalidWord("q", "not a noun: q is 動詞"),) if score is None else (),
        duplicates=(),
        score=score,
        reason=None if score is not None else reason,
    )


def test_summary_hand_calculation() -> None:
    # Scores 0.50, 0.52, 0.57: mean = 1.59 / 3 = 0.53; deviations -0.03, -0.01, 0.04;
    # squares sum 0.0009 + 0.0001 + 0.0016 = 0.0026; sample variance 0.0026 / 2 = 0.0013;
    # std = sqrt(0.0013) = 0.036056.
    results = [
        _trial(0.50, ("a", "b")),
        _trial(0.52, ("a", "c")),
        _trial(None, reason="invalid words"),
        _trial(0.57, ("d", "b")),
        _trial(None, reason="wrong number of words"),
        _trial(None, reason="invalid words"),
    ]
    s = summarize_dat(results)
    assert s["mean"] == pytest.approx(0.53)
    assert s["std"] == pytest.approx(math.sqrt(0.0013))
    assert (s["n"], s["n_valid"], s["n_invalid"]) == (6, 3, 3)
    assert s["invalid_reasons"] == {"invalid words": 2, "wrong number of words": 1}
    assert s["invalid_word_reasons"] == {"not a noun: q is 動詞": 3}
    assert s["n_unique_words"] == 4
    assert s["variant"] == "all-valid"


def test_summary_small_cases() -> None:
    one = summarize_dat([_trial(0.4)])
    assert one["mean"] == pytest.approx(0.4) and one["std"] is None
    empty = summarize_dat([])
    assert (empty["n"], empty["mean"], empty["std"], empty["variant"]) == (0, None, None, None)
    none_scored = summarize_dat([_trial(None)])
    assert none_scored["mean"] is None and none_scored["n_invalid"] == 1


def test_summary_rejects_mixed_variants_and_junk() -> None:
    olson = dat_olson(
        ["ab", "cd"], vocabulary={"ab", "cd"}, vectors=_orthogonal(["ab", "cd"]), minimum=2
    )
    with pytest.raises(ValueError, match="mix of DAT variants"):
        summarize_dat([olson, _trial(0.5)])
    with pytest.raises(ValueError, match="item 0 is a float"):
        summarize_dat([0.5])  # type: ignore[list-item]


def test_result_to_dict_is_json_ready() -> None:
    vecs = _orthogonal(["ab", "cd"])
    result = dat_olson(["ab", "cd", "q"], vocabulary=set(vecs), vectors=vecs, minimum=2)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["invalid"] == [{"word": "q", "reason": "too short"}]
    assert data["used"] == ["ab", "cd"] and data["score"] == pytest.approx(100.0)
