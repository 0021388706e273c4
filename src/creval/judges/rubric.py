"""Parse a judge's rubric verdict (``Fluency: 4`` lines) into integer scores, strictly.

:func:`parse_rubric` never guesses: each criterion must be stated as ``<label>: <integer>``
with a value in ``low..high``; a missing criterion, two different values, a value out of
range, a decimal or a range like ``3-4`` is an error that says what was wrong. Prose
before, after and between the score lines is ignored.

:func:`upstream_jcq_parse` is the JCQ-judge repository's own pattern (``src/show_results.py``
in nlp-waseda/JCQ-judge), kept for reproducing its numbers.

>>> parse_rubric("流暢性: 5\\n柔軟性: 4\\n独創性: 3\\n精緻性: 3", TTCT_CRITERIA_JA).scores
{'fluency': 5, 'flexibility': 4, 'originality': 3, 'elaboration': 3}
>>> parse_rubric("Fluency: 4\\nFlexibility: 6", TTCT_CRITERIA_EN).error
'flexibility = 6 is outside 1..5; missing originality; missing elaboration'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "TTCT_CRITERIA_EN", "TTCT_CRITERIA_JA", "Criterion", "RubricParse", "parse_rubric",
    "upstream_jcq_parse",
]  # fmt: skip


def _norm(text: str) -> str:
    # NFKC folds full-width forms: '４' -> '4', '：' -> ':', '［' -> '[', '／' -> '/'.
    return unicodedata.normalize("NFKC", text)


@dataclass(frozen=True)
class Criterion:
    """One rubric criterion: the score key ``name`` and the labels a judge may write for it.

    Labels are matched case-insensitively (only matters for scripts with case).

    >>> Criterion("fluency", ("Fluency", "流暢性")).labels
    ('Fluency', '流暢性')
    """

    name: str
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"A criterion name must be a non-empty string, got {self.name!r}.")
        if isinstance(self.labels, str) or not self.labels:
            raise ValueError(
                f"Criterion {self.name!r}: labels must be a non-empty tuple of strings, "
                f"got {self.labels!r}."
            )
        for label in self.labels:
            if not isinstance(label, str) or not label.strip() or ":" in _norm(label):
                raise ValueError(
                    f"Criterion {self.name!r}: each label must be a non-empty string without "
                    f"a colon, got {label!r}."
                )


TTCT_CRITERIA_EN: tuple[Criterion, ...] = (
    Criterion("fluency", ("fluency",)),
    Criterion("flexibility", ("flexibility",)),
    Criterion("originality", ("originality",)),
    Criterion("elaboration", ("elaboration",)),
)
"""Zhao et al.'s four TTCT criteria with their English labels."""

TTCT_CRITERIA_JA: tuple[Criterion, ...] = (
    Criterion("fluency", ("流暢性",)),
    Criterion("flexibility", ("柔軟性",)),
    Criterion("originality", ("独創性",)),
    Criterion("elaboration", ("精緻性",)),
)
"""The JCQ judge prompt's Japanese labels (流暢性/柔軟性/独創性/精緻性), same names."""


@dataclass(frozen=True)
class RubricParse:
    """The outcome of parsing one verdict: ``scores`` (name -> int) or an ``error``."""

    scores: dict[str, int] | None
    error: str | None
    raw: str

    @property
    def ok(self) -> bool:
        """True when every criterion was found once, as an integer in range."""
        return self.scores is not None


# Before a label: the start of a line (optionally a list marker or a Markdown heading), or a
# separator, so that "Fluency: 5, Flexibility: 4" on one line works but "回答の流暢性: 5" and
# "disfluency: 5" do not count.
_LEAD = r"(?:^[ \t]*(?:(?:[-*+•>]|#{1,6}|\d{1,2}[.)])[ \t]+)?|(?<=[ \t|,;、。]))"
_OPEN = r"(?:\*\*|__|\*|_|\[|【|「)?"
_CLOSE = r"(?:\*\*|__|\*|_|\]|】|」)?"
# The value after the colon: optional wrappers, a number, an optional "/5", wrappers.
_VALUE = re.compile(
    r"[ \t]*(?:\*\*|__|\*|_|\[|\(|【)*[ \t]*"
    r"(?P<num>[+-]?\d+(?:[.,]\d+)?)"
    r"(?:[ \t]*/[ \t]*(?P<den>\d+))?"
    r"[ \t]*(?:\*\*|__|\*|_|\]|\)|】)*"
)
# A second number joined to the first ("3-4", "3 or 4", "3〜4"): ambiguous, never guessed.
_RANGE = re.compile(r"^[ \t]*(?:[-–—~〜]|or\b|to\b|から|または|か)[ \t]*[+-]?\d", re.IGNORECASE)


def _label_pattern(criteria: Sequence[Criterion]) -> tuple[re.Pattern[str], dict[str, str]]:
    owner: dict[str, str] = {}
    for c in criteria:
        for label in c.labels:
            key = _norm(label).casefold()
            if owner.setdefault(key, c.name) != c.name:
                raise ValueError(
                    f"The label {label!r} belongs to two criteria: {owner[key]!r} and {c.name!r}."
                )
    alternatives = "|".join(re.escape(k) for k in sorted(owner, key=len, reverse=True))
    pattern = re.compile(
        rf"{_LEAD}{_OPEN}[ \t]*(?P<label>{alternatives})[ \t]*{_CLOSE}[ \t]*:",
        re.IGNORECASE | re.MULTILINE,
    )
    return pattern, owner


def _check_criteria(criteria: Sequence[Criterion]) -> None:
    if isinstance(criteria, Criterion) or not criteria:
        raise ValueError("criteria must be a non-empty sequence of Criterion objects.")
    names = [c.name for c in criteria if isinstance(c, Criterion)]
    if len(names) != len(criteria):
        raise ValueError("criteria must contain only Criterion objects.")
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"Criterion names must be unique; repeated: {', '.join(duplicated)}.")


def _read_value(segment: str, name: str, low: int, high: int) -> tuple[int | None, str | None]:
    """(value, None), (None, error) or (None, None) when the segment holds no number (prose)."""
    m = _VALUE.match(segment)
    if m is None:
        return None, None
    number, den, rest = m.group("num"), m.group("den"), segment[m.end() :]
    if _RANGE.match(rest) or re.match(r"^[A-Za-z0-9]", rest):
        return None, f"{name} has an ambiguous value {segment.strip()[:20]!r}"
    if not re.fullmatch(r"[+-]?\d+", number):
        return None, f"{name} = {number} is not an integer"
    if den is not None and int(den) != high:
        return None, f"{name} = {number}/{den} is not on the {low}..{high} scale"
    value = int(number)
    if not low <= value <= high:
        return None, f"{name} = {value} is outside {low}..{high}"
    return value, None


def parse_rubric(
    text: str, criteria: Sequence[Criterion], *, low: int = 1, high: int = 5
) -> RubricParse:
    """Read one integer score per criterion from ``<label>: <n>`` lines; never guess.

    A score is a label at the start of a line (after an optional list marker or heading) or
    after a separator (space, ``|``, ``,``, ``;``, ``、``), optionally in ``**bold**`` or
    brackets, then a colon, then an integer, optionally as ``[4]``, ``**4**`` or ``4/5``.
    Full-width digits and colons (``４``, ``：``) count as ASCII. Text after the number is
    ignored (``4 (7-8 ideas)``); a label followed by prose rather than a number is ignored.
    The same value stated twice is fine.

    Errors (all collected, joined with ``"; "``): ``missing <name>``; ``conflicting values
    for <name>``; ``<name> = 6 is outside 1..5`` (never clipped); ``<name> = 4.5 is not an
    integer``; an ambiguous value such as ``3-4`` or ``[1-5]``; ``4/10`` (not this scale).

    >>> crit = TTCT_CRITERIA_EN
    >>> text = "The answer lists many uses.\\n**Fluency**: 4\\nFlexibility: [3]\\n"
    >>> text += "- Originality: 2/5\\nElaboration: 4 (well developed)\\nOverall fine."
    >>> parse_rubric(text, crit).scores
    {'fluency': 4, 'flexibility': 3, 'originality': 2, 'elaboration': 4}
    >>> parse_rubric("流暢性：４\\n柔軟性: 4\\n独創性: 2\\n精緻性: 3", TTCT_CRITERIA_JA).scores
    {'fluency': 4, 'flexibility': 4, 'originality': 2, 'elaboration': 3}
    >>> r = parse_rubric("Fluency: 4\\nFluency: 3\\nFlexibility: 3\\nOriginality: 3", crit)
    >>> r.scores is None, r.error
    (True, 'conflicting values for fluency: 4, 3; missing elaboration')
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}.")
    _check_criteria(criteria)
    for bound, given in (("low", low), ("high", high)):
        if isinstance(given, bool) or not isinstance(given, int):
            raise ValueError(f"{bound} must be an integer, got {given!r}.")
    if low > high:
        raise ValueError(f"low must not exceed high, got {low}..{high}.")

    pattern, owner = _label_pattern(criteria)
    norm = _norm(text)
    matches = list(pattern.finditer(norm))
    found: dict[str, list[int]] = {c.name: [] for c in criteria}
    errors: dict[str, list[str]] = {c.name: [] for c in criteria}
    for i, m in enumerate(matches):
        name = owner[m.group("label").casefold()]
        end = norm.find("\n", m.end())
        end = len(norm) if end < 0 else end
        if i + 1 < len(matches):
            end = min(end, matches[i + 1].start())
        value, error = _read_value(norm[m.end() : end], name, low, high)
        if error is not None:
            errors[name].append(error)
        elif value is not None:
            found[name].append(value)

    messages: list[str] = []
    for c in criteria:
        distinct = list(dict.fromkeys(found[c.name]))
        if errors[c.name]:
            messages.extend(dict.fromkeys(errors[c.name]))
        elif len(distinct) > 1:
            messages.append(f"conflicting values for {c.name}: {', '.join(map(str, distinct))}")
        elif not distinct:
            messages.append(f"missing {c.name}")
    if messages:
        return RubricParse(scores=None, error="; ".join(messages), raw=text)
    return RubricParse(scores={c.name: found[c.name][0] for c in criteria}, error=None, raw=text)


_UPSTREAM_JCQ = re.compile(
    r"流暢性:\s*\[?([1-5])\]?\s*"
    r"柔軟性:\s*\[?([1-5])\]?\s*"
    r"独創性:\s*\[?([1-5])\]?\s*"
    r"精緻性:\s*\[?([1-5])\]?"
)
_UPSTREAM_NAMES = ("fluency", "flexibility", "originality", "elaboration")


def upstream_jcq_parse(text: str) -> dict[str, int] | None:
    """The JCQ-judge repository's parse: its regex, ``re.search``, no normalisation.

    The four Japanese labels must appear in order with only whitespace (and optional
    brackets) between them, each followed by an ASCII colon and a single digit 1-5.

    >>> upstream_jcq_parse("流暢性: 5\\n柔軟性: [4]\\n独創性: 3\\n精緻性: 2")
    {'fluency': 5, 'flexibility': 4, 'originality': 3, 'elaboration': 2}
    >>> upstream_jcq_parse("流暢性：5\\n柔軟性: 4\\n独創性: 3\\n精緻性: 2") is None  # full-width colon
    True
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}.")
    m = _UPSTREAM_JCQ.search(text)
    if m is None:
        return None
    return {name: int(v) for name, v in zip(_UPSTREAM_NAMES, m.groups(), strict=True)}
