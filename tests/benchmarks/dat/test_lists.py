"""parse_word_list on clean, messy and real small-model answers."""

from __future__ import annotations

import pytest

from creval.benchmarks.dat.lists import parse_word_list

TEN = ["Volcano", "Sonnet", "Algorithm", "Marshmallow", "Justice",
       "Submarine", "Fungus", "Velvet", "Thunder", "Spreadsheet"]  # fmt: skip
JA_TEN = ["傘", "砂糖", "地図", "音楽", "電池", "鏡", "空気", "時計", "花火", "新聞"]


def test_chat_model_answer_with_bold_dashes_and_closing_paragraph() -> None:
    text = """Here are 10 words that are as different from each other as possible:

1. **Volcano** – a natural geological formation
2. **Sonnet** – a poetic form
3. **Algorithm** – a computational procedure
4. **Marshmallow** – a confection
5. **Justice** – an abstract concept
6. **Submarine** – a vehicle
7. **Fungus** – a living organism
8. **Velvet** – a fabric
9. **Thunder** – a weather phenomenon
10. **Spreadsheet** – a software tool

These words span nature, art, technology, food, ethics, transportation, biology,
textiles, weather, and office work: 10 different domains."""
    assert parse_word_list(text) == TEN
    assert parse_word_list(text, expected=10) == TEN


def test_numbered_styles() -> None:
    text = "1. cat\n2) dog\n3: tree\n4 - ocean\n(5) spoon\n6、lamp\n７．傘\n８）砂糖\n⑨地図\n❿音楽"
    assert parse_word_list(text) == [
        "cat", "dog", "tree", "ocean", "spoon", "lamp", "傘", "砂糖", "地図", "音楽"
    ]  # fmt: skip


def test_keycap_emoji_numbers() -> None:
    assert parse_word_list("1️⃣ Cactus\n2️⃣ Opera\n🔟 Glacier") == ["Cactus", "Opera", "Glacier"]


def test_bullets() -> None:
    text = "Sure! Here's my list:\n\n- Apple\n* Galaxy\n• Anchor\n・傘\n+ Justice\n*universe - 10"
    assert parse_word_list(text) == ["Apple", "Galaxy", "Anchor", "傘", "Justice", "universe"]


def test_japanese_paper_format_with_preamble_and_readings() -> None:
    text = "以下が10個の単語です。\n\n" + "\n".join(
        f"{i}. {w}" for i, w in enumerate(JA_TEN, 1)
    ).replace("傘", "傘（かさ）").replace("砂糖", "「砂糖」")
    assert parse_word_list(text, expected=10) == JA_TEN


def test_full_width_numbers_and_ideographic_space() -> None:
    text = "\n".join(f"{chr(0xFF10 + i)}．\u3000{w}" for i, w in enumerate(JA_TEN[:9], 1))
    assert parse_word_list(text) == JA_TEN[:9]


def test_one_line_lists() -> None:
    # Table 16 of the Japanese paper prints the numbered answer on one line.
    table16 = (
        "1. Umbrella 2. Sugar 3. Map 4. Music 5. Battery 6. Mirror 7. Air 8. Clock "
        "9. Fireworks 10. Newspaper"
    )
    assert parse_word_list(table16) == [
        "Umbrella", "Sugar", "Map", "Music", "Battery", "Mirror", "Air", "Clock", "Fireworks",
        "Newspaper",
    ]  # fmt: skip
    assert parse_word_list("、".join(JA_TEN)) == JA_TEN
    assert parse_word_list("１．傘２．砂糖３．地図") == ["傘", "砂糖", "地図"]
    assert parse_word_list("①傘 ②砂糖 ③地図") == ["傘", "砂糖", "地図"]
    text = (
        "Sure, here are ten words: cat, democracy, volcano, spoon, jealousy, galaxy, "
        "bicycle, fungus, lullaby, and tax."
    )
    assert parse_word_list(text) == [
        "cat", "democracy", "volcano", "spoon", "jealousy", "galaxy", "bicycle", "fungus",
        "lullaby", "tax",
    ]  # fmt: skip


def test_explanations_quotes_and_punctuation_are_removed() -> None:
    text = (
        "1. \"Umbrella\"\n2. 'Sugar'.\n3. Ocean: a vast body of water\n4. Piano (instrument)\n"
        "5. cul-de-sac - a dead-end street\n6. `Tax`\n7. *Kite*\n8. Volcano—hot\n"
        "9. 傘、雨の日に使う\n10. Moss because it is soft"
    )
    assert parse_word_list(text) == [
        "Umbrella", "Sugar", "Ocean", "Piano", "cul-de-sac", "Tax", "Kite", "Volcano", "傘",
        "Moss",
    ]  # fmt: skip


def test_multi_word_answers_and_duplicates_are_kept() -> None:
    text = "1. ice cream\n2. cul de sac\n3. Ice cream\n4. The sun\n5. ice cream"
    assert parse_word_list(text) == ["ice cream", "cul de sac", "Ice cream", "The sun", "ice cream"]


def test_bare_lines_after_a_preamble() -> None:
    text = "Here are 10 words:\ncat\nocean\ntax\n\nI hope this helps you with your task today!"
    assert parse_word_list(text) == ["cat", "ocean", "tax"]
    assert parse_word_list("以下の単語を考えました。\n傘\n砂糖\n地図") == ["傘", "砂糖", "地図"]
    # Words that often start a preamble are answers when they stand alone.
    assert parse_word_list("Sure thing\nAnswer\nNote\nList\nI hope that helps") == [
        "Answer", "Note", "List"
    ]  # fmt: skip


def test_list_followed_by_numbered_explanations() -> None:
    text = (
        "1. Cat\n2. Democracy\n3. Spoon\n\nExplanation:\n1. Cat is an animal.\n"
        "2. Democracy is a system.\n3. Spoon is a tool."
    )
    assert parse_word_list(text) == ["Cat", "Democracy", "Spoon"]
    assert parse_word_list(text, expected=3) == ["Cat", "Democracy", "Spoon"]
    # With expected=6 the reading with all numbered lines matches and is chosen.
    assert parse_word_list(text, expected=6)[3:] == ["Cat is an animal", "Democracy is a system",
                                                    "Spoon is a tool"]  # fmt: skip


def test_categories_with_restarting_numbers_need_expected() -> None:
    text = "Nature:\n1. Moss\n2. Glacier\nObjects:\n1. Spoon\n2. Anchor\n3. Kite"
    assert parse_word_list(text) == ["Moss", "Glacier"]
    assert parse_word_list(text, expected=5) == ["Moss", "Glacier", "Spoon", "Anchor", "Kite"]


def test_numbered_list_beats_nested_bullets_and_markdown() -> None:
    text = "### My words\n```\n1. Volcano\n   - natural\n2. **Sonnet**\n   - art\n```\n> 3. Tax"
    assert parse_word_list(text) == ["Volcano", "Sonnet", "Tax"]


def test_whitespace_separated_line_only_when_it_matches_expected() -> None:
    assert parse_word_list("猫 犬 空", expected=3) == ["猫", "犬", "空"]
    assert parse_word_list("ice cream", expected=3) == ["ice cream"]
    assert parse_word_list("ice cream") == ["ice cream"]


def test_expected_never_truncates() -> None:
    text = "\n".join(f"{i}. w{i}" for i in range(1, 13))
    assert len(parse_word_list(text, expected=10)) == 12


def test_nothing_to_parse() -> None:
    assert parse_word_list("") == []
    assert parse_word_list("\n  \n") == []
    text = "This list includes various words with different meanings, such as these ones."
    assert parse_word_list(text) == []


# Verbatim answers of SmolLM2-135M-Instruct (Q4_1 GGUF, llama.cpp, temperature 1) to DAT
# prompts: what a small model really produces.
SMOL_REPEATS = """I've come to your rescue. Here are 10 words that are as different as possible from each other:

1. Tzara
2. Tzara
3. Etz
4. Shalom
5. Tzara
6. Etz
7. Etz
8. Yak
9. Elok
10. Etz

This list has been crafted using the human language, and I will keep going to create more words that are as different as possible from each other. I will also suggest new words that are as different from each other as possible."""
SMOL_BAD_NUMBERS = "10. **abracadabra**\n2. **acacia**\n3. **anti-adhesion**"
SMOL_PLACEHOLDERS = "\n".join(f"{i}. Word{i}: 10" for i in range(1, 11))
SMOL_HEADINGS = "\n".join(f"# Word {i}\n{i}. word{i}" for i in range(1, 8))
SMOL_JA = """六まできうが10が含く－でしょう。

文中は翌月のアネマがたちろゐです．

1. 単語1
2. 単語2
3. 単語3

文中はその映膼が翌月の映膼に使用しませゃ"""
SMOL_STARS = "Here is the sentence.\n\n*universe - 10\n*undefined - 10\n*universe - 10\n\nI hope it is clearer."


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            SMOL_REPEATS,
            ["Tzara", "Tzara", "Etz", "Shalom", "Tzara", "Etz", "Etz", "Yak", "Elok", "Etz"],
        ),
        (SMOL_BAD_NUMBERS, ["abracadabra", "acacia", "anti-adhesion"]),
        (SMOL_PLACEHOLDERS, [f"Word{i}" for i in range(1, 11)]),
        (SMOL_HEADINGS, [f"word{i}" for i in range(1, 8)]),
        (SMOL_JA, ["単語1", "単語2", "単語3"]),
        (SMOL_STARS, ["universe", "undefined", "universe"]),
    ],
)
def test_real_small_model_answers(text: str, words: list[str]) -> None:
    assert parse_word_list(text, expected=10) == words


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"text": ["cat"]}, "text must be a string"),
        ({"text": "cat", "expected": 0}, "positive integer"),
        ({"text": "cat", "expected": True}, "positive integer"),
        ({"text": "cat", "expected": "10"}, "positive integer"),
    ],
)
def test_invalid_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_word_list(**kwargs)  # type: ignore[arg-type]
