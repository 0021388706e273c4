"""Sentence splitting by spaCy's sentencizer: today's fixtures unchanged, each difference named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.openended.sentences import _pipeline, split_sentences

pytest.importorskip("spacy")


def test_todays_fixtures_split_as_the_hand_written_rules_did() -> None:
    # sentences_c47d376.json: what the hand-written splitter (commit c47d376) gave for the
    # existing tests' inputs and every text field of the open-ended starter data (plus
    # each BookMIA story joined into one snippet): 51 texts, 120 sentences.
    path = Path(__file__).with_name("sentences_c47d376.json")
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
    assert len(cases) == 51 and sum(len(c["sentences"]) for c in cases) == 120
    for case in cases:
        assert split_sentences(case["text"]) == case["sentences"], case["text"]


def test_the_three_rules_on_top_of_the_sentencizer() -> None:
    text = 'He left. "Where to?" she asked. It ended.Next began. Wait...what? Go.'
    # spaCy's sentencizer alone: opening quotes stay behind, a dialogue tag is cut off
    # and "ended.Next" is cut although no space follows the full stop.
    assert [s.text for s in _pipeline()(text).sents] == [
        'He left. "', 'Where to?"', "she asked.", "It ended.", "Next began.", "Wait...",
        "what?", "Go.",
    ]  # fmt: skip
    assert split_sentences(text) == [
        "He left.", '"Where to?" she asked.', "It ended.Next began.", "Wait...what?", "Go.",
    ]  # fmt: skip
    assert split_sentences('"Stop!" (She froze.) "Why?"') == ['"Stop!"', "(She froze.)", '"Why?"']


def test_abbreviations_initials_and_dot_runs() -> None:
    # spaCy's tokenizer exceptions (Mr., Dr., St., Gen., U.S., p.m., initials) and the
    # special cases we add (Capt., Col., Lt., Sgt., Hon., Sr., Ft., etc.) do not end one.
    text = (
        "Capt. Ahab met Col. Lee and Lt. Dan at 5 p.m. Then Gen. Grant came, etc. "
        "He left the U.S. Army. J. R. Smith wept... Then Sgt. Pepper, Hon. Sr. Diaz of Ft. Worth sang."
    )
    assert split_sentences(text) == [
        "Capt. Ahab met Col. Lee and Lt. Dan at 5 p.m. Then Gen. Grant came, etc. He left the U.S. Army.",
        "J. R. Smith wept...",
        "Then Sgt. Pepper, Hon. Sr. Diaz of Ft. Worth sang.",
    ]
    assert split_sentences("") == [] and split_sentences(" \n ") == []
    assert split_sentences("no end mark") == ["no end mark"]
    assert split_sentences("雨だ。帰った！本当？") == ["雨だ。帰った！本当？"]  # as before


# Each input where spaCy's splitting differs from the hand-written rules, with the old
# result, the new one and why.
DIFFERENCES = [
    # Old: "no" was an abbreviation (No. 5), which glued the commonest one-word reply in
    # dialogue to the next sentence. spaCy has no "No." exception; "No. 5" now splits.
    ('"No." She turned.', ['"No." She turned.'], ['"No."', "She turned."]),
    ("He was No. 5 in line.", ["He was No. 5 in line."], ["He was No.", "5 in line."]),
    # Old: any word containing "." counted as a dotted abbreviation, numbers included.
    ("Pi is 3.14. Yes.", ["Pi is 3.14. Yes."], ["Pi is 3.14.", "Yes."]),
    # Dotted forms spaCy does not list end a sentence (it lists e.g., i.e., a.m., U.S. ...).
    ("Known a.k.a. Then.", ["Known a.k.a. Then."], ["Known a.k.a.", "Then."]),
    # Old matched abbreviations case-insensitively; spaCy's exceptions are case-sensitive.
    ("Ask dr. Who.", ["Ask dr. Who."], ["Ask dr.", "Who."]),
    # spaCy's sentencizer knows the full-width marks 。！？; old knew only . ! ?. Japanese
    # written without spaces stays one piece as before (an end needs a space after it).
    ("雨だ。 帰った！ 本当？", ["雨だ。 帰った！ 本当？"], ["雨だ。", "帰った！", "本当？"]),
    # A run of end marks with spaces between them (a spaced ellipsis) ends one sentence
    # in spaCy's sentencizer; old needed the marks side by side and cut at every dot.
    (
        "She stopped . . . Then left.",
        ["She stopped .", ".", ".", "Then left."],
        ["She stopped . . .", "Then left."],
    ),
    # A sentence never starts with punctuation in spaCy; old split bare marks apart.
    ("!!! ???", ["!!!", "???"], ["!!! ???"]),
]


@pytest.mark.parametrize(("text", "before", "after"), DIFFERENCES)
def test_named_differences_from_the_hand_written_rules(
    text: str, before: list[str], after: list[str]
) -> None:
    assert before != after
    assert split_sentences(text) == after


def test_missing_spacy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from creval.errors import MissingDependency

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "spacy" else real(name, *a)
    )
    _pipeline.cache_clear()
    try:
        with pytest.raises(MissingDependency, match=r"creval\[pos\]"):
            split_sentences("One. Two.")
    finally:
        _pipeline.cache_clear()


#: Sentences per text of Human_book.json (Creativity Index, human-written book passages)
#: by the hand-written splitter at commit c47d376.
HUMAN_BOOK_BEFORE = [
    16, 15, 10, 11, 6, 16, 20, 14, 15, 14, 6, 5, 16, 15, 17, 12, 8, 15, 7, 19, 12, 14, 11, 16,
    14, 12, 8, 15, 9, 12, 18, 16, 11, 15, 19, 10, 17, 15, 12, 17, 13, 16, 18, 17, 19, 16, 8, 6,
    22, 7, 14, 6, 13, 17, 9, 11, 16, 7, 20, 13, 4, 20, 15, 4, 10, 15, 8, 10, 17, 26, 15, 8, 15,
    21, 11, 14, 9, 23, 17, 10, 9, 20, 17, 14, 14, 19, 13, 18, 23, 12, 13, 10, 7, 14, 5, 13, 7,
    7, 8, 12,
]  # fmt: skip


def test_human_book_passages_differ_only_where_named() -> None:
    # Real book prose: 100 passages, 1325 sentences before. Four passages change, each for
    # a difference named above: a "no." reply (13), a number before a full stop (58) and
    # spaced ellipses (87, 95), which old cut into single-dot sentences.
    path = shared_data_path(
        "creative_eval", "creative_writing", "creativity_index", "book", "Human_book.json"
    )
    texts = [row["text"] for row in json.loads(path.read_text(encoding="utf-8"))]
    after = [len(split_sentences(text)) for text in texts]
    changed = {
        i: after[i] - before for i, before in enumerate(HUMAN_BOOK_BEFORE) if after[i] != before
    }
    assert changed == {13: +1, 58: +1, 87: -2, 95: -3}
    assert split_sentences(texts[13])[9:11] == ["“Not when you call me that, no.”", "Lucy groaned."]
