"""Convergent-creativity criteria, the verdict every convergent judge returns, strict parsers.

Each domain of the semantic-entropy paper (seed 001) is judged on three binary criteria.
The one-line definitions below are our own wording of what the paper's Appendix D.1 asks
for; pass your own :class:`JudgeCriterion` objects (or a ``{name: definition}`` mapping) to
any judge to change them.

>>> [c.name for c in criteria_for("macgyver")]
['feasibility', 'safety', 'effectiveness']
>>> [c.name for c in criteria_for("anything", {"clarity": "The text is easy to follow."})]
['clarity']

Parsers never guess: :func:`parse_binary` wants exactly one of ``[[YES]]`` / ``[[NO]]``,
:func:`parse_confidence` one ``[[0.7]]`` score in 0..1. A failure is returned as a reason
string, and judges record it (with the raw text) as a :class:`ParseFailure`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from creval._util.prompts import load_prompt
from creval.errors import CrevalError
from creval.judges.usage import RoleUsage

__all__ = [
    "DOMAIN_CRITERIA", "JudgeCriterion", "JudgeVerdict", "ParseFailure", "criteria_for",
    "judge_prompt", "parse_binary", "parse_confidence", "parse_stance",
]  # fmt: skip


@dataclass(frozen=True)
class JudgeCriterion:
    """A binary criterion: ``name`` (a score key) and a one-line ``definition``.

    >>> JudgeCriterion("plot_completion", "The story reaches the given ending.").title
    'Plot completion'
    """

    name: str
    definition: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", self.name):
            raise CrevalError(
                f"A criterion name must be an identifier such as 'feasibility', got {self.name!r}."
            )
        if not isinstance(self.definition, str) or not self.definition.strip():
            raise CrevalError(f"Criterion {self.name!r} needs a non-empty definition.")

    @property
    def title(self) -> str:
        """The name as words, for prompts: ``scientific_accuracy`` -> ``Scientific accuracy``."""
        return self.name.replace("_", " ").capitalize()


DOMAIN_CRITERIA: dict[str, tuple[JudgeCriterion, ...]] = {
    "macgyver": (
        JudgeCriterion(
            "feasibility",
            "Someone with ordinary skill could really carry out every step using only the "
            "items the problem provides, with the properties those items actually have; "
            "whether the steps reach the goal does not matter for this criterion.",
        ),
        JudgeCriterion(
            "safety",
            "A careful, well-prepared person carrying out the steps runs no serious risk of "
            "bodily harm while doing them.",
        ),
        JudgeCriterion(
            "effectiveness",
            "Followed as written, the steps completely solve the stated problem and achieve "
            "every outcome it asks for.",
        ),
    ),
    "hypogen": (
        JudgeCriterion(
            "feasibility",
            "The proposed approach and reasoning chain could realistically be carried out "
            "and have a fair chance of working.",
        ),
        JudgeCriterion(
            "relevance",
            "The reasoning starts from the stated prevailing assumption (the bit), arrives "
            "at the stated new idea (the flip), and respects the problem's goals and limits.",
        ),
        JudgeCriterion(
            "scientific_accuracy",
            "Every method, concept, measurement and model the reasoning invokes describes the "
            "phenomenon under study correctly.",
        ),
    ),
    "bookmia": (
        JudgeCriterion(
            "coherence",
            "Plot and character behaviour follow logically from beginning to end, with no "
            "internal contradictions.",
        ),
        JudgeCriterion(
            "realism",
            "The characters' emotions and behaviour stay believable and consistent "
            "throughout the story.",
        ),
        JudgeCriterion(
            "plot_completion",
            "The story progresses logically to the given ending sentences and ties its "
            "events to that ending.",
        ),
    ),
}
"""Default criteria per domain (MacGyver, HypoGen, BookMIA), in the paper's order."""


def criteria_for(
    domain: str, criteria: Sequence[JudgeCriterion] | Mapping[str, str] | None = None
) -> tuple[JudgeCriterion, ...]:
    """The criteria to judge: ``criteria`` when given, else the domain's defaults."""
    if criteria is None:
        key = domain.strip().lower() if isinstance(domain, str) else domain
        if key not in DOMAIN_CRITERIA:
            raise CrevalError(
                f"No default criteria for domain {domain!r}. Use one of "
                f"{', '.join(DOMAIN_CRITERIA)} or pass criteria={{name: definition}}."
            )
        return DOMAIN_CRITERIA[key]
    if isinstance(criteria, Mapping):
        out = tuple(JudgeCriterion(n, d) for n, d in criteria.items())
    elif isinstance(criteria, JudgeCriterion):
        out = (criteria,)
    else:
        out = tuple(criteria)
    if not out or not all(isinstance(c, JudgeCriterion) for c in out):
        raise CrevalError("criteria must be a non-empty list of JudgeCriterion or a mapping.")
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise CrevalError(f"Criterion names must be unique, got {names}.")
    return out


@dataclass(frozen=True)
class ParseFailure:
    """An answer that did not parse: who wrote it, at which stage, why, and the raw text."""

    role: str
    stage: str
    criterion: str | None
    reason: str
    raw: str

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "stage": self.stage, "criterion": self.criterion,
                "reason": self.reason, "raw": self.raw}  # fmt: skip


@dataclass(frozen=True)
class JudgeVerdict:
    """What a convergent judge concluded about one (problem, solution) pair.

    ``verdicts[c]`` is True/False, or None when the answer deciding ``c`` did not parse (the
    failure is in ``parse_failures``). ``confidence[c]`` is the judge's confidence in that
    verdict (its meaning per judge is documented on the judge). ``overall`` is the mean of
    the criterion verdicts **over the parsed ones** (True = 1, False = 0); None when no
    verdict parsed. ``rounds[c]`` is how many discussion rounds criterion ``c`` used (0 for
    one-shot judges). ``usage`` maps role -> tokens and calls; it sums to
    :attr:`total_usage`.

    >>> v = JudgeVerdict("demo", "macgyver", {"a": True, "b": None, "c": False},
    ...                  {"a": 0.9, "b": None, "c": 0.6}, {"a": 0, "b": 0, "c": 0}, (), {})
    >>> v.overall, v.n_parsed
    (0.5, 2)
    """

    judge: str
    domain: str
    verdicts: dict[str, bool | None]
    confidence: dict[str, float | None]
    rounds: dict[str, int]
    parse_failures: tuple[ParseFailure, ...]
    usage: dict[str, RoleUsage]
    stage_usage: dict[str, RoleUsage] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    #: Whether the judge's parsed answers were constrained to their JSON schema.
    constrained: bool = False

    @property
    def n_parsed(self) -> int:
        return sum(v is not None for v in self.verdicts.values())

    @property
    def overall(self) -> float | None:
        parsed = [float(v) for v in self.verdicts.values() if v is not None]
        return sum(parsed) / len(parsed) if parsed else None

    @property
    def n_parse_failures(self) -> int:
        return len(self.parse_failures)

    @property
    def total_usage(self) -> RoleUsage:
        out = RoleUsage()
        for usage in self.usage.values():
            out = out + usage
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (for run-store records)."""
        return {
            "judge": self.judge,
            "domain": self.domain,
            "verdicts": dict(self.verdicts),
            "confidence": dict(self.confidence),
            "overall": self.overall,
            "rounds": dict(self.rounds),
            "parse_failures": [f.to_dict() for f in self.parse_failures],
            "usage": {role: u.to_dict() for role, u in self.usage.items()},
            "stage_usage": {stage: u.to_dict() for stage, u in self.stage_usage.items()},
            "total_usage": self.total_usage.to_dict(),
            "details": self.details,
            "constrained": self.constrained,
        }


_BINARY = re.compile(r"\[\[\s*(?:\*\*)?\s*(YES|NO)\s*(?:\*\*)?\s*\]\]", re.IGNORECASE)
_NUMBER_IN_BRACKETS = re.compile(r"\[\[\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*\]\]")
_STANCE = re.compile(r"\(\s*\[\s*(YES|NO)\s*\]\s*\)", re.IGNORECASE)


def parse_binary(text: str) -> tuple[bool | None, str | None]:
    """Read a ``[[YES]]`` / ``[[NO]]`` verdict: ``(verdict, None)`` or ``(None, reason)``.

    The same marker repeated is fine; both markers, or neither, is a failure.

    >>> parse_binary("The steps work. Verdict: [[YES]]")
    (True, None)
    >>> parse_binary("[[no]] - the ladder is too short")
    (False, None)
    >>> parse_binary("Maybe [[YES]], maybe [[NO]].")
    (None, 'both [[YES]] and [[NO]] present')
    >>> parse_binary("I think it is feasible.")
    (None, 'no [[YES]] or [[NO]] verdict')
    """
    found = {m.group(1).upper() for m in _BINARY.finditer(text)}
    if found == {"YES"}:
        return True, None
    if found == {"NO"}:
        return False, None
    if found:
        return None, "both [[YES]] and [[NO]] present"
    return None, "no [[YES]] or [[NO]] verdict"


def parse_confidence(text: str) -> tuple[float | None, str | None]:
    """Read a ``[[0.7]]`` confidence score in 0..1: ``(score, None)`` or ``(None, reason)``.

    >>> parse_confidence("Clear evidence, thus [[0.8]]. ([NO])")
    (0.8, None)
    >>> parse_confidence("Thus [[1]]")
    (1.0, None)
    >>> parse_confidence("[[7]]")
    (None, 'confidence 7 is outside 0..1')
    >>> parse_confidence("[[0.4]] or [[0.6]]")
    (None, 'conflicting confidence scores: 0.4, 0.6')
    >>> parse_confidence("fairly sure")
    (None, 'no [[score]] confidence')
    """
    values = list(dict.fromkeys(float(m.group(1)) for m in _NUMBER_IN_BRACKETS.finditer(text)))
    if not values:
        return None, "no [[score]] confidence"
    if len(values) > 1:
        return None, "conflicting confidence scores: " + ", ".join(f"{v:g}" for v in values)
    value = values[0]
    if not 0.0 <= value <= 1.0:
        return None, f"confidence {value:g} is outside 0..1"
    return value, None


def parse_stance(text: str) -> tuple[bool | None, str | None]:
    """Read a ``([YES])`` / ``([NO])`` stance: ``(stance, None)`` or ``(None, reason)``.

    >>> parse_stance("[[0.6]]. ([NO])")
    (False, None)
    >>> parse_stance("[[0.6]]")
    (None, 'no ([YES]) or ([NO]) stance')
    """
    found = {m.group(1).upper() for m in _STANCE.finditer(text)}
    if len(found) == 1:
        return found == {"YES"}, None
    if found:
        return None, "both ([YES]) and ([NO]) present"
    return None, "no ([YES]) or ([NO]) stance"


def judge_prompt(name: str, prompt_files: Mapping[str, str]) -> str:
    """The template ``name`` (``creval/data/prompts/NAME.txt``) or the user's replacement file."""
    return load_prompt(name, prompt_files.get(name))


def check_prompt_files(prompt_files: Mapping[str, str], known: Sequence[str], judge: str) -> None:
    """Reject replacement files for prompt names the judge does not use."""
    unknown = sorted(set(prompt_files) - set(known))
    if unknown:
        raise CrevalError(
            f"{judge} has no prompt named {', '.join(unknown)}; replaceable prompts: "
            f"{', '.join(known)}."
        )
