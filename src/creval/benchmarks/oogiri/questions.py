"""Choice (mTn) and ranking questions built from an Oogiri prompt (seed 003, section 4),
and strict parsers of the answers.

The options of each type, before shuffling (``seed``, the prompt id and the type seed
``random.Random``, so a question is the same on every machine):

* 2T1: the most-liked human response and a literal, humourless answer;
* 3T1: plus an unrelated answer (another prompt's literal answer, or its best response);
* 4T1: plus a rewrite of the best response without its joke;
* 5T2: plus the second most-liked human response; both human responses must be chosen.

A ranking question shows five rated responses (drawn with the seed when there are more)
in shuffled order; the human order is by likes.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from creval.benchmarks.oogiri.data import Prompt

LETTERS = "ABCDE"
#: type -> (options m, answers n)
CHOICE_TYPES: dict[str, tuple[int, int]] = {"2T1": (2, 1), "3T1": (3, 1), "4T1": (4, 1), "5T2": (5, 2)}
_ORDER = ("human", "literal", "unrelated", "rewrite", "human2")
RANK_SIZE = 5


@dataclass(frozen=True)
class Option:
    text: str
    role: str  # human, human2, literal, unrelated, rewrite


@dataclass(frozen=True)
class ChoiceQuestion:
    qtype: str
    options: tuple[Option, ...]  # as presented: options[i] has letter LETTERS[i]

    @property
    def n(self) -> int:
        return CHOICE_TYPES[self.qtype][1]

    @property
    def correct(self) -> list[str]:
        return [LETTERS[i] for i, o in enumerate(self.options) if o.role.startswith("human")]

    def to_dict(self) -> dict[str, Any]:
        return {"qtype": self.qtype, "options": [o.text for o in self.options],
                "roles": [o.role for o in self.options], "correct": self.correct, "n": self.n}


def pick_unrelated(prompt: Prompt, others: list[Prompt], seed: int) -> str | None:
    """A fixed answer taken from another prompt: its literal answer, else its best response."""
    pool = sorted((p for p in others if p.id != prompt.id), key=lambda p: p.id)
    if not pool:
        return None
    other = random.Random(f"{seed}:{prompt.id}:unrelated").choice(pool)
    return other.literal or other.responses[0].text


def build_choice(
    prompt: Prompt, qtype: str, *, literal: str | None, rewrite: str | None,
    unrelated: str | None, seed: int,
) -> ChoiceQuestion | str:
    """The ``qtype`` question for ``prompt``, or the reason it cannot be built.

    >>> from creval.benchmarks.oogiri.data import Response
    >>> p = Prompt("p1", "T2T", "Name a bad superpower.", None,
    ...            (Response("Super speed, only while queueing", 9), Response("x", 3)))
    >>> q = build_choice(p, "2T1", literal="Flying.", rewrite=None, unrelated=None, seed=0)
    >>> sorted(o.role for o in q.options), len(q.correct)
    (['human', 'literal'], 1)
    >>> build_choice(p, "4T1", literal="Flying.", rewrite=None, unrelated="A spoon.", seed=0)
    'no rewrite of the best response'
    """
    m, _ = CHOICE_TYPES[qtype]
    texts = {"human": prompt.responses[0].text, "literal": literal, "unrelated": unrelated,
             "rewrite": rewrite,
             "human2": prompt.responses[1].text if len(prompt.responses) > 1 else None}
    missing = {"literal": "no literal answer", "unrelated": "no other prompt to take an "
               "unrelated answer from", "rewrite": "no rewrite of the best response",
               "human2": "only one human response"}
    options = []
    for role in _ORDER[:m]:
        text = texts[role]
        if not text or not text.strip():
            return missing[role]
        options.append(Option(text.strip(), role))
    if len({o.text.casefold() for o in options}) < m:
        return "two options have the same text"
    random.Random(f"{seed}:{prompt.id}:{qtype}").shuffle(options)
    return ChoiceQuestion(qtype, tuple(options))


@dataclass(frozen=True)
class RankingQuestion:
    texts: tuple[str, ...]  # as presented
    likes: tuple[float, ...]  # human likes of each presented text

    def to_dict(self) -> dict[str, Any]:
        return {"options": list(self.texts), "likes": list(self.likes)}


def build_ranking(prompt: Prompt, *, seed: int) -> RankingQuestion | str:
    """Five rated responses in shuffled order, or the reason there is no ranking question."""
    rated = prompt.rated()
    if len(rated) < RANK_SIZE:
        return f"fewer than {RANK_SIZE} responses with likes"
    rng = random.Random(f"{seed}:{prompt.id}:rank")
    chosen = rng.sample(rated, RANK_SIZE) if len(rated) > RANK_SIZE else list(rated)
    rng.shuffle(chosen)
    if len({r.text.casefold() for r in chosen}) < RANK_SIZE:
        return "two responses have the same text"
    return RankingQuestion(tuple(r.text for r in chosen), tuple(float(r.star or 0) for r in chosen))


def relevance_grades(likes: list[float]) -> list[float]:
    """Graded relevance: how many of the other candidates have strictly fewer likes.

    >>> relevance_grades([50, 30, 30, 10, 0])
    [4.0, 2.0, 2.0, 1.0, 0.0]
    """
    return [float(sum(other < mine for other in likes)) for mine in likes]


def format_options(texts: list[str] | tuple[str, ...]) -> str:
    return "\n".join(f"{LETTERS[i]}. {t}" for i, t in enumerate(texts))


# The last "Answer:" / "Ranking:" label on a line (greedy prefix), then what follows it.
_LABEL = re.compile(r"^.*\b(?:answer|ranking)\W{0,3}[:：]\s*(?P<rest>.*)$", re.IGNORECASE)
_SEPARATORS = re.compile(r"^(?:[\s>,;:/&()\[\].*→-]|\band\b|\bthen\b)*$", re.IGNORECASE)


def _answer_line(raw: str) -> str | None:
    lines = [ln.strip() for ln in unicodedata.normalize("NFKC", raw).splitlines() if ln.strip()]
    labelled = [m.group("rest") for ln in lines if (m := _LABEL.search(ln))]
    if labelled:
        return labelled[-1]
    return lines[0] if lines else None


def _letters_only(line: str, m: int) -> list[str] | None:
    letters = re.findall(r"\b([A-Z])\b", line)
    rest = re.sub(r"\b[A-Z]\b", " ", line)
    if not letters or not _SEPARATORS.match(rest) or any(x not in LETTERS[:m] for x in letters):
        return None
    return letters


def parse_choice(raw: str, *, m: int, n: int) -> frozenset[str] | None:
    """The ``n`` distinct letters chosen among the first ``m``, or None if unparsable.

    Accepted: ``Answer: B`` (the last line with such a label), or a first line holding only
    letters and separators (``B``, ``(B)``, ``B and D``); for one answer also a first line
    ``B. the option text``. Anything else, or the wrong number of letters, is unparsable.

    >>> parse_choice("Answer: B", m=2, n=1), parse_choice("b, d", m=5, n=2)
    (frozenset({'B'}), None)
    >>> parse_choice("The funniest is answer: B.", m=2, n=1), parse_choice("Answer: <letter>", m=2, n=1)
    (frozenset({'B'}), None)
    >>> parse_choice("It is answer: Answer: C. A spoon.", m=3, n=1)
    frozenset({'C'})
    >>> sorted(parse_choice("D and B", m=5, n=2))
    ['B', 'D']
    >>> parse_choice("A is funnier", m=2, n=1) is None
    True
    >>> parse_choice("C. A spoon.", m=3, n=1)
    frozenset({'C'})
    """
    line = _answer_line(raw)
    if line is None:
        return None
    letters = _letters_only(line, m)
    if letters is None and n == 1:
        match = re.match(r"^\(?([A-Z])[.):]\s+\S", line)
        letters = [match.group(1)] if match and match.group(1) in LETTERS[:m] else None
    if letters is None or len(letters) != n or len(set(letters)) != n:
        return None
    return frozenset(letters)


def parse_ranking(raw: str, *, m: int = RANK_SIZE) -> list[int] | None:
    """The ranking as option indices (best first), or None unless it orders all ``m`` once.

    >>> parse_ranking("Ranking: C > A > E > B > D")
    [2, 0, 4, 1, 3]
    >>> parse_ranking("C, A, E, B") is None
    True
    """
    line = _answer_line(raw)
    letters = None if line is None else _letters_only(line, m)
    if letters is None or sorted(letters) != list(LETTERS[:m]):
        return None
    return [LETTERS.index(x) for x in letters]


def answer_schema(kind: str, m: int, n: int) -> dict[str, Any]:
    """The JSON shape of a constrained answer (``--constrain-answers``): ``n`` letters among
    the first ``m`` for a choice question, all ``m`` for a ranking (``kind == "rank"``)."""
    key = "ranking" if kind == "rank" else "answer"
    letters = {"type": "array", "items": {"type": "string", "enum": list(LETTERS[:m])},
               "minItems": n, "maxItems": n}
    return {"type": "object", "properties": {key: letters}, "required": [key],
            "additionalProperties": False}


def render_constrained(raw: str) -> str:
    """A constrained answer as the line the strict parsers read; anything else unchanged.

    >>> render_constrained('{"answer": ["C", "A"]}'), render_constrained('{"ranking": ["B", "A"]}')
    ('Answer: C, A', 'Ranking: B > A')
    >>> render_constrained('{"answer": ["C"')  # cut short: left for the parser to refuse
    '{"answer": ["C"'
    """
    import json

    try:
        value = json.loads(raw)
        if "ranking" in value:
            return "Ranking: " + " > ".join(str(x) for x in value["ranking"])
        return "Answer: " + ", ".join(str(x) for x in value["answer"])
    except (ValueError, TypeError, KeyError):
        return raw
