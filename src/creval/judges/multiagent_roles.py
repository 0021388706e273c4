"""The three analysts of the retrieval-based judge and the parser for their discussion turns.

Each analyst has a focus (written into its prompts) and three role-specific retrieval
queries ``Q_a`` (paper Appendix D.2): one for its discussion turn (extended with the
questions other analysts addressed to it), one for its confidence score and one for the
verdict, should it turn out to be the most confident analyst.

A discussion turn must have an ``[[OPINION]]`` part; ``[[ANSWERS]]`` and ``[[QUESTIONS]]``
are optional (``None`` is fine). Questions are read from lines ``To <problem|solution|
criterion> analyst: <question>``.

>>> turn = parse_discussion(
...     "[[ANSWERS]] None\\n[[OPINION]] The rope is long enough.\\n"
...     "[[QUESTIONS]] To solution analyst: Is the knot secure?\\nTo problem analyst: How high?",
...     speaker="criterion_analyst")
>>> turn.opinion, turn.questions
('The rope is long enough.', {'solution_analyst': ['Is the knot secure?'], 'problem_analyst': ['How high?']})
>>> parse_discussion("I think it works.", speaker="problem_analyst").error
'no [[OPINION]] part'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from creval.judges.criteria import JudgeCriterion

__all__ = ["ANALYSTS", "AllCriteria", "Analyst", "DiscussionTurn", "Topic", "analyst",
           "parse_discussion"]  # fmt: skip


@dataclass(frozen=True)
class Analyst:
    """One panel member: its key (the usage role), display name, focus and retrieval queries."""

    key: str
    name: str
    focus: str
    discussion_query: str
    confidence_query: str
    verdict_query: str


ANALYSTS: tuple[Analyst, ...] = (
    Analyst(
        key="problem_analyst",
        name="problem analyst",
        focus="the problem itself: its constraints, the properties of the available "
        "materials and the outcomes it requires",
        discussion_query="Problem constraints, material properties and required outcomes "
        "that decide the {criterion} of the solution",
        confidence_query="Whether the solution satisfies {criterion}, judged from the "
        "problem's constraints and requirements",
        verdict_query="Why the solution {stance} the {criterion} criterion, given the "
        "problem's constraints and requirements",
    ),
    Analyst(
        key="solution_analyst",
        name="solution analyst",
        focus="the solution: what each step does, how it uses the materials, and where it "
        "is vague or breaks down",
        discussion_query="How the solution's steps and details bear on its {criterion}",
        confidence_query="Whether the solution satisfies {criterion}, judged from the "
        "details of its steps",
        verdict_query="Why the solution {stance} the {criterion} criterion, given the "
        "details of its steps",
    ),
    Analyst(
        key="criterion_analyst",
        name="criterion analyst",
        focus="the criterion: what meeting it means for this particular problem, and which "
        "evidence in the solution bears on it",
        discussion_query="What {criterion} requires in this problem and whether the "
        "solution meets that requirement",
        confidence_query="Whether the solution satisfies {criterion}, judged from what the "
        "criterion requires in this context",
        verdict_query="Why the solution {stance} the {criterion} criterion, given what the "
        "criterion requires in this context",
    ),
)


def analyst(key: str) -> Analyst:
    """The analyst with ``key`` (``problem_analyst``, ``solution_analyst``, ``criterion_analyst``)."""
    for a in ANALYSTS:
        if a.key == key:
            return a
    raise ValueError(f"Unknown analyst {key!r}; use one of {[a.key for a in ANALYSTS]}.")


@dataclass(frozen=True)
class DiscussionTurn:
    """One parsed discussion answer. ``error`` is set when the ``[[OPINION]]`` part is missing."""

    answers: str
    opinion: str
    questions: dict[str, list[str]] = field(default_factory=dict)
    error: str | None = None


_PART = re.compile(r"\[\[\s*(ANSWERS|OPINION|QUESTIONS)\s*\]\]\s*:?", re.IGNORECASE)
_QUESTION = re.compile(
    r"\bto\s+(?:the\s+)?(problem|solution|criterion)\s+analyst\b\s*[:,\-–]?\s*"
    r"(.+?)(?=\bto\s+(?:the\s+)?(?:problem|solution|criterion)\s+analyst\b\s*[:,\-–]|\Z)",
    re.IGNORECASE | re.DOTALL,
)


def _is_none(text: str) -> bool:
    return re.fullmatch(r"\W*(none|n/?a|no questions?)?\W*", text, re.IGNORECASE) is not None


def parse_discussion(text: str, *, speaker: str) -> DiscussionTurn:
    """Split a discussion answer into answers, opinion and routed questions (see module doc)."""
    parts: dict[str, str] = {}
    matches = list(_PART.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        label = m.group(1).upper()
        parts[label] = (parts.get(label, "") + " " + text[m.end() : end]).strip()
    questions: dict[str, list[str]] = {}
    for m in _QUESTION.finditer(parts.get("QUESTIONS", "")):
        addressee = f"{m.group(1).lower()}_analyst"
        question = re.sub(r"\s+", " ", m.group(2)).strip()
        if addressee != speaker and not _is_none(question):
            questions.setdefault(addressee, []).append(question)
    answers = parts.get("ANSWERS", "")
    opinion = parts.get("OPINION", "")
    error = None if opinion and not _is_none(opinion) else "no [[OPINION]] part"
    return DiscussionTurn(
        answers="" if _is_none(answers) else answers,
        opinion="" if error else opinion,
        questions=questions,
        error=error,
    )


@dataclass(frozen=True)
class AllCriteria:
    """Every criterion at once: the topic of a joint discussion (``panel="joint"``)."""

    name: str
    title: str
    definition: str

    @classmethod
    def of(cls, criteria: Sequence[JudgeCriterion]) -> AllCriteria:
        titles = [c.title.lower() for c in criteria]
        label = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
        listing = "\n".join(f"- {c.title}: {c.definition}" for c in criteria)
        return cls("all_criteria", label[0].upper() + label[1:], listing)


#: What a discussion is about: one criterion, or all of them (``panel="joint"``).
Topic = JudgeCriterion | AllCriteria
