"""LLM-as-a-judge for the metric-validity analysis (seed 002, sections 4 and G).

A rubric with chain of thought per domain, in our own wording (replace it with
``--judge-prompt-file``; the placeholder is ``{text}``): the judge first analyses
strengths and weaknesses, then ends with one ``Criterion: <integer>`` line per criterion.
Parsing is strict (:func:`creval.judges.rubric.parse_rubric`): an answer without every
score in range is a parse failure with its raw text, never a guessed score.

- writing: background setup, logic, development, originality (1-5);
- problem-solving: difficulty, unconventionality, efficiency (1-5);
- ideation: soundness, presentation, contribution (1-4) and overall (1-10).

The judge metric of a text (the one the separation table uses) is the domain's creativity
criterion: originality, unconventionality or contribution.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.judges.rubric import Criterion, parse_rubric


@dataclass(frozen=True)
class Rubric:
    prompt: str  # file name in creval/data/metric_validity/prompts
    scales: tuple[tuple[tuple[str, ...], int], ...]  # (criteria, highest score); lowest is 1
    creativity: str  # the criterion that is the judge metric

    def criteria(self) -> list[str]:
        return [name for names, _ in self.scales for name in names]


RUBRICS: dict[str, Rubric] = {
    "writing": Rubric("judge_writing.txt",
                      ((("background_setup", "logic", "development", "originality"), 5),),
                      "originality"),
    "problem-solving": Rubric("judge_problem_solving.txt",
                              ((("difficulty", "unconventionality", "efficiency"), 5),),
                              "unconventionality"),
    "ideation": Rubric("judge_ideation.txt",
                       ((("soundness", "presentation", "contribution"), 4), (("overall",), 10)),
                       "contribution"),
}


def rubric_for(domain: str) -> Rubric:
    """The rubric of a domain; ``custom`` texts are judged as writing."""
    return RUBRICS.get(domain, RUBRICS["writing"])


def judge_template(domain: str, prompt_file: str | None) -> str:
    if prompt_file:
        path = Path(prompt_file)
        if not path.is_file():
            raise CrevalError(f"Judge prompt file {path} does not exist. Pass an existing --judge-prompt-file.")
        template = path.read_text(encoding="utf-8")
    else:
        template = (resources.files("creval") / "data" / "metric_validity" / "prompts"
                    / rubric_for(domain).prompt).read_text(encoding="utf-8")
    if "{text}" not in template:
        raise CrevalError("The judge prompt needs a {text} placeholder for the judged text.")
    return template


def _criterion(name: str) -> Criterion:
    return Criterion(name, (name.replace("_", " "),))


def parse_judgement(text: str, domain: str) -> dict[str, Any]:
    """``{"scores": {...}}`` or ``{"parse_error": ...}`` for one judge answer.

    >>> parse_judgement("Good.\\nDifficulty: 2\\nUnconventionality: 5\\nEfficiency: 4", "problem-solving")
    {'scores': {'difficulty': 2, 'unconventionality': 5, 'efficiency': 4}}
    >>> parse_judgement("Soundness: 3\\nPresentation: 4\\nContribution: 5\\nOverall: 7", "ideation")
    {'parse_error': 'contribution = 5 is outside 1..4'}
    """
    scores: dict[str, int] = {}
    errors = []
    for names, high in rubric_for(domain).scales:
        parsed = parse_rubric(text, [_criterion(n) for n in names], low=1, high=high)
        if parsed.scores is None:
            errors.append(parsed.error or "no scores")
        else:
            scores.update(parsed.scores)
    return {"parse_error": "; ".join(errors)} if errors else {"scores": scores}
