"""EQ-Bench's slop score metrics (Paech, ``sam-paech/slop-score``), as its JavaScript defines
them (``js/metrics.js``, ``js/utils.js``, ``js/contrast-detector.js``,
``js/regexes-stage1.js`` and ``generate-leaderboard.mjs`` at commit 289264a).

Every function reproduces the JavaScript's semantics, not an idea of them: lengths are
counted in UTF-16 code units (JavaScript's ``String.length``), ``\\s`` is JavaScript's
whitespace set, ``.`` stops at JavaScript's line terminators, ``\\w`` and ``\\b`` are ASCII,
and ``trim`` strips JavaScript's whitespace. Pure functions over strings and sets; the word
lists are passed in by the caller.

What upstream calls ``vocab_level`` is the Flesch-Kincaid grade (``calculateFleschKincaid``),
not a word-frequency measure; it is :func:`flesch_kincaid_grade` here.

>>> toks = alpha_tokens(words_only_lower("It wasn't fear, but a quiet resolve. 'Twas late."))
>>> toks
['it', "wasn't", 'fear', 'but', 'a', 'quiet', 'resolve', 'twas', 'late']
>>> slop_rates(toks, words={"resolve"}, trigrams=set())
(111.1111111111111, 0.0)
>>> not_x_but_y_count("It wasn't fear, but a quiet resolve.")
1
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from creval.errors import CrevalError

#: JavaScript's ``\s``: WhiteSpace and LineTerminator of ECMA-262.
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
                 "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_WS_CLASS = "".join(f"\\u{ord(c):04x}" for c in JS_WHITESPACE)
#: JavaScript's ``.`` without the ``s`` flag: anything but a line terminator.
_JS_DOT = "[^\\n\\r\\u2028\\u2029]"


def js_regex(source: str, *, ignore_case: bool = True) -> re.Pattern[str]:
    """A JavaScript regular expression's source (no ``u``, ``m`` or ``s`` flag) compiled with
    JavaScript's meaning in Python: ``\\s`` becomes JavaScript's whitespace set (in and out of
    character classes), ``.`` stops at line terminators, and ``\\w``, ``\\d``, ``\\b`` and
    case folding are ASCII as in JavaScript.

    >>> bool(js_regex(r"a\\sb").search("a\\u00a0b")), bool(js_regex(r"a.b").search("a\\u2028b"))
    (True, False)
    >>> bool(js_regex(r"\\w").search("é"))
    False
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            nxt = source[i + 1]
            if nxt == "s":
                out.append(_WS_CLASS if in_class else f"[{_WS_CLASS}]")
            elif nxt == "S" and not in_class:
                out.append(f"[^{_WS_CLASS}]")
            else:
                out.append(source[i:i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            elif ch == "[":
                ch = "\\["  # a literal '[' inside a class (Python warns on nested sets)
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if source[i + 1:i + 2] == "^":
                out.append("^")
                i += 1
            if source[i + 1:i + 2] == "]":  # JS: '[]' is an empty class; not used upstream
                raise CrevalError(f"Unsupported JavaScript regex (empty class): {source!r}")
        elif ch == ".":
            out.append(_JS_DOT)
        else:
            out.append(ch)
        i += 1
    flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)
    return re.compile("".join(out), flags)


def utf16_length(text: str) -> int:
    """JavaScript's ``text.length``: UTF-16 code units (a character beyond the BMP counts 2).

    >>> utf16_length("ab"), utf16_length("a\\U0001F600")
    (2, 3)
    """
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def js_trim(text: str) -> str:
    """JavaScript's ``String.prototype.trim``.

    >>> js_trim("\\ufeff x \\u2028")
    'x'
    """
    return text.strip(JS_WHITESPACE)


_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b\u2032\u02bc\uff07`]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\uff02]")
_WORD_CHARS = re.compile(r"[a-z']+")
_ALPHA_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?\Z")


def normalize_quotes(text: str) -> str:
    """``normalizeQuotes``: curly, prime and fullwidth quotes to ``'`` and ``"``.

    >>> normalize_quotes("\\u2018it\\u2019s\\u201d")
    '\\'it\\'s"'
    """
    return _DOUBLE_QUOTES.sub('"', _SINGLE_QUOTES.sub("'", text))


def normalize_text(text: str) -> str:
    """``normalizeText`` (the contrast detector's): curly quotes and en/em dashes to ASCII;
    the length is unchanged, so offsets carry over.

    >>> normalize_text("not this\\u2014that")
    'not this-that'
    """
    return text.translate({0x201C: '"', 0x201D: '"', 0x2018: "'", 0x2019: "'",
                           0x2014: "-", 0x2013: "-"})


def words_only_lower(text: str) -> list[str]:
    """``wordsOnlyLower``: lower-cased runs of ``[a-z']`` with outer apostrophes stripped.

    >>> words_only_lower("Don\\u2019t 'go' -- O'Neil's 42")
    ["don't", 'go', "o'neil's"]
    """
    tokens = (t.strip("'") for t in _WORD_CHARS.findall(normalize_quotes(text.lower())))
    return [t for t in tokens if t]


def alpha_tokens(tokens: Iterable[str]) -> list[str]:
    """``alphaTokens``: the tokens that are letters with at most one inner apostrophe.

    >>> alpha_tokens(["don't", "o'neil's", "go"])
    ["don't", 'go']
    """
    return [t for t in tokens if _ALPHA_TOKEN.match(t)]


_LIST_PHRASE = re.compile(r"[a-z]+(?:'[a-z]+)?(?:\s+[a-z]+(?:'[a-z]+)?)*")


def slop_phrases(entries: Iterable[Any]) -> set[str]:
    """``loadSlopSets``: each list entry's first item, lower-cased, reduced to its first run
    of words (entries without one are dropped).

    >>> sorted(slop_phrases([["Tapestry"], ["voice barely whisper"], [""], ["42"], []]))
    ['tapestry', 'voice barely whisper']
    """
    out: set[str] = set()
    for item in entries:
        if not item:
            continue
        found = _LIST_PHRASE.search(str(item[0]).lower())
        if found:
            out.add(found.group(0))
    return out


def slop_rates(tokens: Sequence[str], *, words: set[str], trigrams: set[str]) -> tuple[float, float]:
    """``computeSlopIndex``: slop-word hits and slop-trigram hits per 1,000 tokens (the
    trigrams of consecutive tokens, matched as ``"a b c"``); ``(0.0, 0.0)`` without tokens.

    >>> slop_rates(["a", "tapestry", "of", "light"], words={"tapestry"}, trigrams={"tapestry of light"})
    (250.0, 250.0)
    """
    n = len(tokens)
    if not n:
        return 0.0, 0.0
    word_hits = sum(1 for t in tokens if t in words)
    tri_hits = sum(1 for i in range(n - 2)
                   if f"{tokens[i]} {tokens[i + 1]} {tokens[i + 2]}" in trigrams) if trigrams else 0
    return word_hits / n * 1000, tri_hits / n * 1000


def slop_hits(tokens: Sequence[str], *, words: set[str], trigrams: set[str]) -> tuple[Counter[str], Counter[str]]:
    """The hits behind :func:`slop_rates`: each slop word and trigram found, with its count.

    >>> slop_hits(["a", "tapestry", "a", "tapestry"], words={"tapestry"}, trigrams=set())[0]
    Counter({'tapestry': 2})
    """
    word = Counter(t for t in tokens if t in words)
    tri = Counter(g for g in (" ".join(tokens[i:i + 3]) for i in range(len(tokens) - 2))
                  if g in trigrams)
    return word, tri


def lexical_diversity(tokens: Sequence[str], *, window: int = 500) -> tuple[float, float]:
    """``calculateLexicalDiversity``: ``(MATTR, type-token ratio)``. MATTR is the mean, over
    every window of ``window`` consecutive tokens, of the window's distinct tokens over
    ``window``; with fewer tokens than a window it is the type-token ratio. ``(0, 0)`` for no
    tokens.

    >>> lexical_diversity(["a", "b", "a", "c"], window=2)
    (1.0, 0.75)
    >>> lexical_diversity(["a", "a", "b"], window=2)
    (0.75, 0.6666666666666666)
    """
    n = len(tokens)
    if n == 0:
        return 0.0, 0.0
    ttr = len(set(tokens)) / n
    if n < window:
        return ttr, ttr
    counts: Counter[str] = Counter(tokens[:window])
    distinct = len(counts)
    total = distinct / window
    windows = 1
    for i in range(window, n):  # slide: tokens[i - window] leaves, tokens[i] enters
        old, new = tokens[i - window], tokens[i]
        counts[old] -= 1
        if counts[old] == 0:
            distinct -= 1
        if counts[new] == 0:
            distinct += 1
        counts[new] += 1
        total += distinct / window
        windows += 1
    return total / windows, ttr


_SENTENCE_BREAKS = re.compile(r"[.!?]+")
_ASCII_WORDS = re.compile(r"\w+", re.ASCII)
_SYLLABLE_TAIL = re.compile(r"(?:[^laeiouy]es|ed|[^laeiouy]e)\Z", re.DOTALL)
_VOWEL_GROUPS = re.compile(r"[aeiouy]{1,2}")
_PARAGRAPH_BREAK = js_regex(r"\n\s*\n")
_DIALOGUE_QUOTES = re.compile('["\u201c\u201d]')


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_BREAKS.split(text) if js_trim(s)]


def count_syllables(word: str) -> int:
    """``countSyllables`` of the Flesch-Kincaid grade: words of three letters or fewer count
    one; otherwise a final ``-es``/``-ed``/``-e`` is dropped, a leading ``y`` too, and each run of
    one or two vowels (``aeiouy``) counts one (at least one).

    >>> [count_syllables(w) for w in ("the", "tapestry", "whispered", "beautiful", "rhythm")]
    [1, 3, 2, 4, 1]
    """
    word = word.lower()
    if len(word) <= 3:
        return 1
    word = _SYLLABLE_TAIL.sub("", word, count=1)
    if word.startswith("y"):
        word = word[1:]
    groups = _VOWEL_GROUPS.findall(word)
    return len(groups) if groups else 1


def flesch_kincaid_grade(text: str) -> float:
    """``calculateFleschKincaid`` (upstream's ``vocab_level``): ``0.39 * words/sentences +
    11.8 * syllables/words - 15.59``, at least 0; words are ASCII ``\\w+`` runs, sentences the
    non-blank pieces between runs of ``.!?``.

    >>> round(flesch_kincaid_grade("The cat sat on the mat. It was a beautiful day."), 4)
    1.5732
    """
    sentences = _sentences(text)
    words = _ASCII_WORDS.findall(text)
    if not sentences or not words:
        return 0.0
    syllables = sum(count_syllables(w) for w in words)
    grade = 0.39 * (len(words) / len(sentences)) + 11.8 * (syllables / len(words)) - 15.59
    return max(0.0, grade)


def average_sentence_length(text: str) -> float:
    """``calculateAverageSentenceLength``: ASCII words per sentence (0 without sentences).

    >>> average_sentence_length("One two. Three four five! Six?")
    2.0
    """
    sentences = _sentences(text)
    return len(_ASCII_WORDS.findall(text)) / len(sentences) if sentences else 0.0


def average_paragraph_length(text: str) -> float:
    """``calculateAverageParagraphLength``: ASCII words per paragraph, paragraphs being the
    non-blank pieces between blank lines (0 without paragraphs).

    >>> average_paragraph_length("One two.\\n\\nThree four five six.\\n \\n")
    3.0
    """
    paragraphs = [p for p in _PARAGRAPH_BREAK.split(text) if js_trim(p)]
    return len(_ASCII_WORDS.findall(text)) / len(paragraphs) if paragraphs else 0.0


def dialogue_frequency(text: str) -> float:
    """``calculateDialogueFrequency``: double quotes (straight or curly) over two, per 1,000
    characters (UTF-16 code units).

    >>> dialogue_frequency('"Hi," she said.')
    66.66666666666667
    """
    chars = utf16_length(text)
    if chars == 0:
        return 0.0
    return len(_DIALOGUE_QUOTES.findall(text)) / 2 / chars * 1000


_NLTK_STOPWORDS = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she
her hers herself it its itself they them their theirs themselves what which who whom this that
these those am is are was were be been being have has had having do does did doing a an the and
but if or because as until while of at by for with about against between into through during
before after above below to from up down in out on off over under again further then once here
there when where why how all any both each few more most other some such no nor not only own
same so than too very s t can will just don should now"""
#: The 127 English stop words upstream lists (NLTK's older list; its comment says 179).
STOPWORDS = frozenset(_NLTK_STOPWORDS.split())


def content_tokens(tokens: Iterable[str]) -> list[str]:
    """``contentTokens``: alpha tokens that are not stop words (:data:`STOPWORDS`).

    >>> content_tokens(["the", "old", "man", "and", "the", "sea"])
    ['old', 'man', 'sea']
    """
    return [t for t in tokens if _ALPHA_TOKEN.match(t) and t not in STOPWORDS]


def ngrams(tokens: Sequence[str], n: int) -> list[str]:
    """``makeNgrams``: the space-joined n-grams of consecutive tokens.

    >>> ngrams(["a", "b", "c"], 2)
    ['a b', 'b c']
    """
    return [" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def overused_ngrams(grams: Sequence[str], human: Mapping[str, float], *,
                    top_k: int = 40) -> list[tuple[str, float, int]]:
    """``rankOveruseWithCounts``: ``(n-gram, ratio, count)`` of the ``top_k`` n-grams with the
    highest ratio of their share among ``grams`` to their human frequency (an n-gram absent
    from ``human`` takes its smallest positive frequency, or 1e-12 for an empty map); ties keep
    the order of first occurrence (JavaScript's stable sort).

    >>> overused_ngrams(["a b", "b c", "a b"], {"a b": 0.9, "b c": 0.1}, top_k=1)
    [('b c', 3.3333333332999993, 1)]
    """
    if not grams:
        return []
    counts = Counter(grams)  # insertion order = first occurrence, as a JavaScript Map
    total = sum(counts.values()) or 1
    positive = [v for v in human.values() if v > 0]
    floor = min(positive) if positive else 1e-12
    rows = []
    for gram, count in counts.items():
        share = count / total
        rows.append((gram, share / (human.get(gram, floor) + 1e-12), count))
    rows.sort(key=lambda r: -r[1])
    return rows[:top_k]


def ngram_repetition_score(tokens: Sequence[str], *, human_bigrams: Mapping[str, float],
                           human_trigrams: Mapping[str, float], top_k: int = 40) -> float:
    """Upstream's ``ngram_repetition_score``: the occurrences of the ``top_k`` most
    over-used content bigrams and of the ``top_k`` most over-used content trigrams
    (:func:`overused_ngrams` against a human profile), per 1,000 content tokens.

    Upstream's human profile (``human_writing_profile.json``) is not released with the
    outputs; without it (empty maps) the ranking is by count alone.

    >>> ngram_repetition_score(["old", "man", "sea", "old", "man"], human_bigrams={},
    ...                        human_trigrams={}, top_k=1)
    600.0
    """
    content = content_tokens(tokens)
    if not content:
        return 0.0
    top_b = overused_ngrams(ngrams(content, 2), human_bigrams, top_k=top_k)
    top_t = overused_ngrams(ngrams(content, 3), human_trigrams, top_k=top_k)
    return (sum(r[2] for r in top_b) + sum(r[2] for r in top_t)) / len(content) * 1000


# --- not x, but y: stage 1 (surface patterns of js/regexes-stage1.js) ---------------------

_MAXG = 160
_PRON = r"(?:it|they|this|that)"
_BE = r"(?:is|are|was|were)"
_BE_NEG = r"(?:is\s+not|are\s+not|was\s+not|were\s+not|isn't|aren't|wasn't|weren't|ain't)"
_START = r"(?:(?<=^)|(?<=[.?!]\s))"
_REPORTER = r"(?![^.?!]{0,80}\b(?:knew|know|thought|think|said|says|told|heard|learned)\b[^.?!]{0,40}?\bthat\b)"

#: The ten surface patterns, by upstream's names, in upstream's order (JavaScript sources).
STAGE1_SOURCES: dict[str, str] = {
    "RE_NOT_BUT": (
        rf"\b(?:(?:{_BE_NEG})|not(?!\s+(?:that|only)\b))\s+"
        r"(?:(?!\bbut\b|[.?!]).){1,100}?"
        r"[,;:]\s*but\s+"
        r"(?!when\b|while\b|which\b|who\b|whom\b|whose\b|where\b|if\b|that\b|as\b|because\b|"
        r"although\b|though\b|till\b|until\b|unless\b|"
        r"here\b|there\b|then\b|my\b|we\b|I\b|you\b|it\s+seems\b|it\s+appears\b|it\s+felt\b|"
        r"it\s+looks?\b|anything\b)"),
    "RE_NOT_DASH": (
        r"\b(?:\w+n't|not)\s+(?:just|only|merely)?\s+"
        rf"(?:(?![.?!]).){{1,{_MAXG}}}?"
        r"(?:-|\s-\s|[\u2014\u2013])\s*"
        rf"{_PRON}\s+(?:(?:'re|are|'s|is|were|was)\b|(?!'re|are|'s|is|were|was)[*_~]*[a-z]\w*)"),
    "RE_PRON_BE_NOT_SEP_BE": (
        rf"{_START}\s*[\"\"']?"
        rf"(?:(?:{_PRON}\s+{_BE}\s+not)|(?:{_PRON}\s+{_BE}n't)|(?:it's|they're|that's)\s+not)\b"
        rf"[^.?!]{{0,{_MAXG}}}[.;:?!]\s*[\"\"']?"
        rf"{_PRON}\s+(?:{_BE}|(?:'s|'re))\b(?!\s+not\b)"),
    "RE_NP_BE_NOT_SEP_THEY_BE": (
        rf"{_START}\s*{_REPORTER}"
        r"(?!\s*not\s+without\b)"
        r"(?![^.?!]{0,50}\bnot\s+put\b)"
        rf"[^.?!]{{0,{_MAXG}}}?\b(?:{_BE_NEG})\b[^.?!]{{0,{_MAXG}}}[.;:?!]\s*"
        rf"[\"\"']?{_PRON}\b(?:'re|\s+(?:are|were|is|was))\b(?!\s+not\b)"),
    "RE_NO_LONGER": (
        rf"{_START}\s*[^.?!]{{0,{_MAXG}}}\bno\s+longer\b[^.;:?!]{{0,{_MAXG}}}"
        r"[.;:?!]\s*(?:it|they|this|that)\s+(?:is|are|was|were)\b(?!\s+not\b)"),
    "RE_NOT_JUST_SEP": (
        rf"{_START}\s*[\"\"']?"
        rf"{_PRON}\b(?:'s|'re|\s+(?:is|are|was|were))?\s+not\s+just\b[^.?!]{{0,{_MAXG}}}[.?!]\s*[\"\"']?"
        rf"{_PRON}\b(?:'s|'re|\s+(?:is|are|was|were))\b(?!\s+not\b)"),
    "RE_NOT_PERIOD_SAMEVERB": (
        rf"{_START}[^.?!]*?\b(?:do|does|did)n't\b\s+"
        r"(?:(?:\w+\s+){0,2})([a-z]{3,})\b[^.?!]*[.?!]\s*"
        rf"{_PRON}\s+\1(?:ed|es|s|ing)?\b"),
    "RE_SIMPLE_BE_NOT_IT_BE": (
        rf"{_START}\s*[\"\"']?"
        r"(?!he\b|she\b|i\b|you\b|we\b)"
        rf"{_REPORTER}"
        rf"[^.?!]{{0,{_MAXG}}}?\b{_BE_NEG}\b[^.?!]{{0,{_MAXG}}}[.;:?!]\s*"
        r"[\"\"']?it(?:'s|\s+(?:is|are|was|were))\b"),
    "RE_EMBEDDED_NOT_JUST_SEP": (
        rf"{_START}"
        r"[^.?!]{0,80}?\b(?:(?:it|they)\s+(?:is|are)|(?:it's|they're))\s+not\s+just\b"
        rf"[^.?!]{{0,{_MAXG}}}[.?!]\s*"
        r"(?:(?:it|they)\s+(?:is|are)|(?:it's|they're))\b"),
    "RE_DIALOGUE_NOT_JUST": (
        rf"[\"\"']?{_PRON}(?:'re|'s|\s+(?:are|is|was|were))\s+not\s+just\b[^\"\"']{{0,{_MAXG}}}[\"\"']?\s*"
        r"(?:[^.?!]{0,80}\b(?:said|asked|whispered|muttered|replied|added|shouted|cried)\b[^.?!]{0,80}[.?!]\s*)?"
        rf"[\"\"']?{_PRON}(?:'re|'s|\s+(?:are|is|was|were))\s+[*_~]?[a-z]\w*"),
}

STAGE1: dict[str, re.Pattern[str]] = {name: js_regex(src) for name, src in STAGE1_SOURCES.items()}
_SENTENCE = re.compile(r"[^.!?]*[.!?]")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``sentenceSpans``: ``(start, end)`` of each run ending in ``.``, ``!`` or ``?``, and of
    the tail after the last one.

    >>> sentence_spans("Hi. Yes! tail")
    [(0, 3), (3, 8), (8, 13)]
    """
    spans = [(m.start(), m.end()) for m in _SENTENCE.finditer(text)]
    last = spans[-1][1] if spans else 0
    if last < len(text):
        spans.append((last, len(text)))
    return spans


def not_x_but_y_matches(text: str) -> list[dict[str, Any]]:
    """``extractContrastMatches`` with stage 1 only (what upstream's leaderboard ran: its
    Node script never loads the POS tagger of stage 2): each surface pattern's matches on the
    normalised text, placed on the sentences they cover, overlapping sentence ranges merged.
    Each result: ``pattern`` (the first of a merged group, upstream's order), ``match``,
    ``sentences`` (first and last index).

    >>> [m["pattern"] for m in not_x_but_y_matches("It is not a bug. It is a feature.")]
    ['RE_PRON_BE_NOT_SEP_BE']
    """
    norm = normalize_text(text)
    spans = sentence_spans(norm)
    starts = [s for s, _ in spans]
    ends = [e for _, e in spans]
    candidates: list[tuple[int, int, int, int, str, str]] = []  # lo, hi, start, end, name, text
    for name, pattern in STAGE1.items():
        for m in pattern.finditer(norm):
            rs, re_ = m.start(), m.end()
            if not spans or rs >= re_:
                continue
            lo, hi = bisect_right(ends, rs), bisect_left(starts, re_) - 1
            if lo >= len(spans) or hi < 0 or lo > hi:
                continue
            candidates.append((lo, hi, rs, re_, name, m.group(0).strip(JS_WHITESPACE)))
    candidates.sort(key=lambda c: (c[0], c[1], c[2]))
    merged: list[list[Any]] = []
    for c in candidates:
        if merged and c[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], c[1])
        else:
            merged.append(list(c))
    return [{"pattern": m[4], "match": m[5], "sentences": (m[0], m[1])} for m in merged]


def not_x_but_y_count(text: str) -> int:
    """The number of not-x-but-y constructions (:func:`not_x_but_y_matches`).

    >>> not_x_but_y_count("This isn't a story about loss, but about finding your way home.")
    1
    """
    return len(not_x_but_y_matches(text))


def not_x_but_y_rate(text: str) -> float:
    """Not-x-but-y constructions per 1,000 characters (UTF-16 code units), as upstream's
    ``not_x_but_y_per_1k_chars``; 0 for an empty text.

    >>> round(not_x_but_y_rate("It is not a bug. It is a feature."), 3)
    30.303
    """
    chars = utf16_length(text)
    return not_x_but_y_count(text) / chars * 1000 if chars else 0.0


# --- everything upstream publishes, for one text --------------------------------------------

#: The per-text metrics upstream publishes, by their names in ``leaderboard_results.json``.
METRICS = ("slop_list_matches_per_1k_words", "slop_trigram_matches_per_1k_words",
           "ngram_repetition_score", "not_x_but_y_per_1k_chars", "mattr_500",
           "type_token_ratio", "vocab_level", "avg_sentence_length", "avg_paragraph_length",
           "dialogue_frequency")


def slop_metrics(text: str, *, words: set[str], trigrams: set[str],
                 text_for_ngrams: str | None = None,
                 human_bigrams: Mapping[str, float] | None = None,
                 human_trigrams: Mapping[str, float] | None = None) -> dict[str, float] | None:
    """``calculateMetrics`` of ``generate-leaderboard.mjs``: every published metric of one
    text (upstream: all of a model's outputs longer than 300 characters joined by a blank
    line), or None when it has no word. The repetition score reads ``text_for_ngrams``
    (upstream: the first 150 of those outputs) and the human n-gram profile, when given.

    >>> m = slop_metrics("It is not a bug. It is a feature.", words={"feature"}, trigrams=set())
    >>> m["slop_list_matches_per_1k_words"], m["avg_sentence_length"], m["mattr_500"]
    (111.1111111111111, 4.5, 0.6666666666666666)
    """
    toks = alpha_tokens(words_only_lower(text))
    if not toks:
        return None
    word_rate, tri_rate = slop_rates(toks, words=words, trigrams=trigrams)
    ngram_toks = toks if text_for_ngrams is None else alpha_tokens(words_only_lower(text_for_ngrams))
    mattr, ttr = lexical_diversity(toks)
    return {
        "slop_list_matches_per_1k_words": word_rate,
        "slop_trigram_matches_per_1k_words": tri_rate,
        "ngram_repetition_score": ngram_repetition_score(
            ngram_toks, human_bigrams=human_bigrams or {}, human_trigrams=human_trigrams or {}),
        "not_x_but_y_per_1k_chars": not_x_but_y_rate(text),
        "mattr_500": mattr,
        "type_token_ratio": ttr,
        "vocab_level": flesch_kincaid_grade(text),
        "avg_sentence_length": average_sentence_length(text),
        "avg_paragraph_length": average_paragraph_length(text),
        "dialogue_frequency": dialogue_frequency(text),
    }


def leaderboard_text(outputs: Iterable[str], *, min_chars: int = 300,
                     first: int | None = None) -> str:
    """How upstream joins a model's outputs before measuring: those longer than ``min_chars``
    UTF-16 code units, the ``first`` of them when given, joined by a blank line.

    >>> leaderboard_text(["short", "x" * 301, "y" * 400], first=1) == "x" * 301
    True
    """
    kept = [o for o in outputs if o and utf16_length(o) > min_chars]
    return "\n\n".join(kept[:first] if first is not None else kept)
