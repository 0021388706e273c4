"""JapaneseNounChecker with the real Sudachi core dictionary."""

from __future__ import annotations

import sys

import pytest

from creval.benchmarks.dat.ja import JapaneseNounChecker
from creval.errors import MissingDependency

pytest.importorskip("sudachipy", reason="the 'ja' extra (sudachipy) is not installed")
pytest.importorskip("sudachidict_core", reason="the 'ja' extra (sudachidict-core) is not installed")


@pytest.fixture(scope="module")
def checker() -> JapaneseNounChecker:
    return JapaneseNounChecker()


@pytest.mark.parametrize(
    "word",
    ["冷蔵庫", "傘", "音楽", "花火", "リンゴ", "コーヒー", "人々", "ねこ", "宇宙飛行士", "ｺｰﾋｰ"],
)
def test_common_nouns_are_valid(checker: JapaneseNounChecker, word: str) -> None:
    # 宇宙飛行士 is two nouns in split mode C (宇宙 + 飛行士); ｺｰﾋｰ is NFKC-normalised.
    assert checker.check(word) is None


@pytest.mark.parametrize(
    ("word", "reason"),
    [
        ("走る", "not a noun: 走る is 動詞"),
        ("美しい", "not a noun: 美しい is 形容詞"),
        ("静か", "not a noun: 静か is 形状詞"),
        ("お茶", "not a noun: お is 接頭辞"),
        ("東京", "proper noun: 東京"),
        ("富士山", "proper noun: 富士山"),
        ("cat", "not Japanese script: cat"),
        ("猫cat", "not Japanese script: 猫cat"),
        ("、", "not Japanese script: 、"),
        ("傘。", "not Japanese script: 傘。"),
        ("ー", "not a noun: ー is 補助記号"),
        ("・", "not Japanese script: ・"),
        ("１", "not Japanese script: 1"),
        ("", "empty"),
        ("  ", "empty"),
    ],
)
def test_invalid_words_with_reasons(checker: JapaneseNounChecker, word: str, reason: str) -> None:
    assert checker.check(word) == reason


def test_proper_nouns_can_be_allowed() -> None:
    lenient = JapaneseNounChecker(allow_proper_nouns=True)
    assert lenient.check("東京") is None
    assert lenient.check("走る") == "not a noun: 走る is 動詞"


def test_callable_as_a_dat_validator(checker: JapaneseNounChecker) -> None:
    from creval.metrics import dat_all_valid

    result = dat_all_valid(
        ["傘", "走る", "東京"], is_valid=checker, embed=lambda ws: [[1.0]] * len(ws), expected=3
    )
    assert result.reason == "invalid words"
    assert [tuple(i) for i in result.invalid] == [
        ("走る", "not a noun: 走る is 動詞"),
        ("東京", "proper noun: 東京"),
    ]


def test_dictionary_is_loaded_lazily() -> None:
    fresh = JapaneseNounChecker()
    assert fresh._tokenizer is None
    assert fresh.check("cat") is not None  # decided by the script check alone
    assert fresh._tokenizer is None
    assert fresh.check("傘") is None
    assert fresh._tokenizer is not None


def test_missing_sudachi_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sudachipy", None)
    with pytest.raises(MissingDependency, match=r"pip install 'creval\[ja\]'"):
        JapaneseNounChecker().check("傘")


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="'small', 'core' or 'full'"):
        JapaneseNounChecker(dictionary="huge")
    with pytest.raises(ValueError, match="word must be a string"):
        JapaneseNounChecker().check(3)  # type: ignore[arg-type]


def test_no_deprecation_warning_from_sudachi() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert JapaneseNounChecker().check("音楽") is None
