"""Parse a model's answer to "list 10 words" into the words, however it was formatted.

Models answer with numbered lists ("1. word", "1) word", "１．単語", "①単語"), bullets,
markdown bold, one comma- or 、-separated line, or one word per line, often with a preamble
("Here are 10 words:") and explanations ("Umbrella - keeps you dry"). :func:`parse_word_list`
finds the list, strips the decoration and the explanations, and returns the words in order,
duplicates included. It does not judge the words: multi-word answers stay as they are and
a scorer's validator decides (for example :func:`creval.metrics.dat.olson_validate`).

>>> parse_word_list("Here are 10 words:\\n1. **Umbrella** - keeps you dry\\n2. Sugar\\n3) map")
['Umbrella', 'Sugar', 'map']
>>> parse_word_list("傘、砂糖、地図、音楽")
['傘', '砂糖', '地図', '音楽']
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["parse_word_list"]

_DIGIT = "[0-9０-９]"
_NUMBERED = re.compile(
    rf"""^(?:
        [(（]\s*{_DIGIT}{{1,3}}\s*[)）]          # (1)
      | {_DIGIT}{{1,3}}\s*[.)．）:：、]          # 1.  1)  1:  １．  1、
      | {_DIGIT}{{1,3}}\s+[-–—]\s               # 1 - word
      | [0-9]\ufe0f?\u20e3 | \U0001f51f         # keycap 1️⃣ .. 🔟
      | [\u2460-\u2473\u2776-\u277f\u2780-\u2793]  # ① ❶ ➀
    )\s*""",
    re.X,
)
_BULLET = re.compile(r"^(?:[-+]\s+|[*•・●◦▪‣○■□◆◇►▶→✓✔]\s*)")
# An inline list marker: "1. " or "1) " after a space or at the start; "１．" or "①" anywhere.
_INLINE = re.compile(
    r"(?:(?<!\S)[0-9]{1,2}[.)]\s*|[０-９]{1,2}[．.）)]\s*|[\u2460-\u2473\u2776-\u277f]\s*)"
)
_EXPLANATION = re.compile(r"\s+[-–—−－~〜=]+\s+|[–—―]|[:：(（\[［,，、;；]|\s+because\s")
_SEPARATOR = re.compile(r"[,，、;；]")
_EDGE = "\"'“”‘’「」『』《》【】〈〉`*_.,;!?。、，．！？…-–—~ \t\u3000"
_PREAMBLE_START = re.compile(
    r"^(?:sure|okay|ok|certainly|absolutely|of course|here|these|the following|below|"
    r"i\b|i'|my\b|answer|words|list|note|はい|以下|こちら|承知|了解|回答|答え)",
    re.I,
)
_FENCE = re.compile(r"^(?:```|~~~)")


def _marker_number(marker: str) -> int | None:
    """The number of a list marker: "12." -> 12, "（３）" -> 3, "⑤" -> 5, "🔟" -> 10."""
    digits = "".join(c for c in marker if unicodedata.decimal(c, None) is not None)
    if digits:
        return int("".join(str(unicodedata.decimal(c)) for c in digits))
    if "\U0001f51f" in marker:
        return 10
    values = [unicodedata.numeric(c, None) for c in marker]
    return next((int(v) for v in values if v is not None), None)


def _prepare(line: str) -> str:
    """Trim a line and drop markdown that never belongs to a word."""
    line = line.strip().replace("**", "").replace("__", "")
    line = re.sub(r"^(?:#{1,6}\s+|>\s*)", "", line)
    return line.strip()


def _clean_item(item: str, *, cut: bool = True) -> str:
    """Strip quotes, punctuation and (if ``cut``) a trailing explanation from one item."""
    item = item.strip().strip(_EDGE)
    if cut:
        match = _EXPLANATION.search(item)
        if match and match.start() > 0:
            item = item[: match.start()]
    return item.strip().strip(_EDGE).strip()


def _split_inline(line: str) -> list[str] | None:
    """Split "1. cat 2. dog 3. tree" into items; None unless markers count up from one."""
    matches = list(_INLINE.finditer(line))
    if len(matches) < 2:
        return None
    numbers = [_marker_number(m.group(0)) for m in matches]
    if numbers[0] is None or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    ends = [m.start() for m in matches[1:]] + [len(line)]
    return [line[m.end() : end] for m, end in zip(matches, ends, strict=True)]


def _numbered_runs(lines: list[str]) -> list[list[str]]:
    """Numbered items grouped into runs; a new run starts where the numbering restarts at 1."""
    runs: list[list[str]] = []
    for line in lines:
        pieces = _split_inline(line)
        if pieces is not None:
            runs.append([_clean_item(p) for p in pieces])
            continue
        match = _NUMBERED.match(line)
        if not match:
            continue
        number = _marker_number(match.group(0))
        if not runs or (number is not None and number <= 1):
            runs.append([])
        runs[-1].append(_clean_item(line[match.end() :]))
    return [[w for w in run if w] for run in runs if any(run)]


def _bullets(lines: list[str]) -> list[str]:
    items = [_clean_item(line[m.end() :]) for line in lines if (m := _BULLET.match(line))]
    return [w for w in items if w]


def _separated(line: str) -> list[str]:
    """Split one separator-delimited line, dropping a preamble that ends in a colon."""
    colon = re.search(r"[:：]", line)
    if colon and _SEPARATOR.search(line, colon.end()):
        line = line[colon.end() :]
    items = []
    for piece in _SEPARATOR.split(line):
        piece = re.sub(r"^\s*(?:and|or)\s+", "", piece, flags=re.I)
        items.append(_clean_item(piece, cut=False))
        items[-1] = re.split(r"[(（]", items[-1])[0].strip() or items[-1]
    return [w for w in items if w]


def _is_plain_item(line: str) -> bool:
    """A line that could be a bare word rather than a sentence, a preamble or a list item."""
    if _NUMBERED.match(line) or _BULLET.match(line):
        return False
    if line.endswith((":", "：")) or "。" in line.rstrip("。"):
        return False
    if _PREAMBLE_START.match(line) and (" " in line or not line.isascii()):
        return False  # "Here you go", "以下の通り"; a bare "Note" may be an answer
    word = _clean_item(line)
    if not word or line.rstrip().endswith("。"):
        return False
    if re.search(r"[A-Za-z]", word):
        return len(word.split()) <= 3 and len(word) <= 40
    return len(word) <= 15 and len(word.split()) <= 2


def _readings(lines: list[str], expected: int | None) -> tuple[list[list[str]], list[list[str]]]:
    """Possible readings of the answer, most likely first, and readings only taken if exact."""
    runs = _numbered_runs(lines)
    readings: list[list[str]] = []
    exact_only: list[list[str]] = []
    if runs:
        everything = [w for run in runs for w in run]
        readings += [everything, *runs] if expected is not None else [runs[0], everything]
    readings.append(_bullets(lines))
    separated = [items for line in lines if len(items := _separated(line)) >= 2]
    if separated:
        best = max(separated, key=len)
        (readings if len(best) >= 3 else exact_only).append(best)
        exact_only.append([w for items in separated for w in items])
    readings.append([_clean_item(line) for line in lines if _is_plain_item(line)])
    if len(lines) == 1:
        exact_only.append([w for w in (_clean_item(t) for t in lines[0].split()) if w])
    return [r for r in readings if r], exact_only


def parse_word_list(text: str, *, expected: int | None = None) -> list[str]:
    """The words a model listed, in order, with decoration and explanations removed.

    Parameters
    ----------
    text : str
        The model's answer.
    expected : int, optional
        How many words were asked for. It only helps choose between readings of an
        ambiguous answer (for example a list of 10 followed by a numbered list of
        explanations): a reading with exactly ``expected`` words is preferred. The result is
        never cut or padded to ``expected``; check its length yourself.

    Returns
    -------
    list of str
        Possibly empty. Duplicates are kept.

    Notes
    -----
    Readings are tried in this order: numbered lines (the first run of numbers, or with
    ``expected`` all numbered lines first), bullet lines, one separator-delimited line
    (``,`` ``、`` ``;``) with at least 3 items, bare short lines. A single line split at
    whitespace is used only when it gives exactly ``expected`` words.

    Examples
    --------
    >>> parse_word_list("1) cat\\n2: dog\\n3 - tree\\n４．傘\\n⑤花火")
    ['cat', 'dog', 'tree', '傘', '花火']
    >>> parse_word_list("- apple (a fruit)\\n* \\"Justice\\"\\n• cul de sac")
    ['apple', 'Justice', 'cul de sac']
    >>> parse_word_list("1. Umbrella 2. Sugar 3. Map 4. Music")
    ['Umbrella', 'Sugar', 'Map', 'Music']
    >>> parse_word_list("Sure! Here are some words: cat, dog, and ocean.")
    ['cat', 'dog', 'ocean']
    >>> parse_word_list("1. cat\\n2. dog\\n1. cat is a pet\\n2. dog barks")
    ['cat', 'dog']
    >>> parse_word_list("猫 犬 空", expected=3)
    ['猫', '犬', '空']
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}.")
    if expected is not None and (
        isinstance(expected, bool) or not isinstance(expected, int) or expected < 1
    ):
        raise ValueError(f"expected must be a positive integer or None, got {expected!r}.")
    lines = [p for raw in text.splitlines() if (p := _prepare(raw)) and not _FENCE.match(p)]
    readings, exact_only = _readings(lines, expected)
    if expected is not None:
        for reading in readings + exact_only:
            if len(reading) == expected:
                return reading
    return readings[0] if readings else []
