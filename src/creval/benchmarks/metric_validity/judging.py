"""LLM-as-a-judge for the metric-validity analysis (seed 002, sections 4 and G).

A rubric with chain of thought per domain, in our own wording (replace it with
``--judge-prompt-file``; the placeholder is ``{text}``): the judge first analyses
strengths and weaknesses, then ends with one ``Criterion: <integer>`` line per criterion.
Parsing is strict (:func:`creval.judges.rubric.parse_rubric`): an answer without every
score in range is a parse failure with its raw text, never a guessed score. A judge whose
backend can constrain decoding is asked for the same answer as JSON
(:func:`judgement_schema`), rendered back into those lines for the same parser.

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
from creval.judges.structured import scales_schema, text_budget
from creval.records import JudgeCheck, Record


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


def discrimination_checks(records: list[Record], domain: str) -> list[JudgeCheck]:
    """Whether the rubric judge discriminates, over the first judgement of each text: a
    criterion with one score on every text, or scores that follow the order the rubric asks
    its criteria in (checked within each scale: ideation's 1-10 overall is not compared with
    its 1-4 criteria)."""
    from creval.judges.discrimination import follows_criterion_order, no_variance

    rubric = rubric_for(domain)
    judged = [r.output["scores"] for r in records
              if r.status == "ok" and r.unit.get("part") == "judge" and not r.unit.get("repeat")
              and r.output.get("scores")]
    judge = f"rubric judge (metric-validity, {domain})"
    columns = {name: [scores.get(name) for scores in judged] for name in rubric.criteria()}
    checks = no_variance(columns, judge=judge)
    for names, _ in rubric.scales:
        rows = [[scores.get(name) for name in names] for scores in judged]
        checks += follows_criterion_order(rows, names, judge=judge)
    return checks


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


def judgement_schema(domain: str, max_tokens: int) -> dict[str, Any]:
    """The rubric's JSON shape for a constrained judge: the analysis first, sized so that
    the whole answer fits ``max_tokens``, then one score per criterion on its scale; the
    answer is rendered back to ``Criterion: n`` lines (:func:`~creval.judges.structured.render_scales`) and parsed by
    :func:`parse_judgement` as a free one.

    >>> list(judgement_schema("problem-solving", 512)["properties"])
    ['analysis', 'difficulty', 'unconventionality', 'efficiency']
    """
    rubric = rubric_for(domain)
    scales = [([_criterion(n).labels[0] for n in names], high) for names, high in rubric.scales]
    overhead = 16 + 24 * len(rubric.criteria())
    return scales_schema(scales, analysis_chars=text_budget(max_tokens, overhead=overhead))


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


#: Seed 002 Table 4: a text is predicted creative when every listed score reaches its
#: threshold. Writing and ideation as in the paper; problem solving is ours (the paper
#: gives none): unconventional and reasonably efficient.
DEFAULT_FILTERS: dict[str, dict[str, int]] = {
    "writing": {"logic": 4, "originality": 4},
    "problem-solving": {"unconventionality": 4, "efficiency": 3},
    "ideation": {"presentation": 3, "soundness": 3, "contribution": 3},
}


def parse_filter(spec: str | None, domain: str) -> dict[str, int]:
    """``"logic>=4,originality>=4"`` (criteria of the domain's rubric) or the default.

    >>> parse_filter("Efficiency>=2", "problem-solving")
    {'efficiency': 2}
    >>> parse_filter(None, "custom")
    {'logic': 4, 'originality': 4}
    """
    rubric = rubric_for(domain)
    if not spec:
        return dict(DEFAULT_FILTERS.get(domain, DEFAULT_FILTERS["writing"]))
    out: dict[str, int] = {}
    for part in spec.split(","):
        name, sep, value = part.strip().partition(">=")
        name = name.strip().lower().replace(" ", "_")
        if not sep or name not in rubric.criteria() or not value.strip().isdigit():
            raise CrevalError(
                f"--judge-filter takes CRITERION>=N pairs joined by commas, with criteria from "
                f"{', '.join(rubric.criteria())}; got {part.strip()!r}."
            )
        out[name] = int(value)
    return out


def joint_filter(judged: list[tuple[int, dict[str, int]]], thresholds: dict[str, int]) -> dict[str, Any]:
    """Table 4: predicted creative = every thresholded score reached; against the labels.

    ``judged`` holds ``(label, scores)`` pairs (label 1 = creative, the positive class).

    >>> r = joint_filter([(1, {"a": 5}), (1, {"a": 2}), (0, {"a": 4}), (0, {"a": 1})], {"a": 4})
    >>> r["tp"], r["fn"], r["fp"], r["tn"], r["accuracy"], r["precision"], r["recall"], r["f1"]
    (1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5)
    """
    counts = {"tp": 0, "fn": 0, "fp": 0, "tn": 0}
    for label, scores in judged:
        predicted = all(scores[name] >= value for name, value in thresholds.items())
        key = ("tp" if predicted else "fn") if label == 1 else ("fp" if predicted else "tn")
        counts[key] += 1
    tp, fn, fp, tn = counts["tp"], counts["fn"], counts["fp"], counts["tn"]
    total = tp + fn + fp + tn
    return {
        "filter": ", ".join(f"{k} >= {v}" for k, v in thresholds.items()), **counts,
        "accuracy": (tp + tn) / total if total else None,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "f1": 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None,
    }


#: The paraphrased yes/no question of the flip-rate check (seed 002 section 5.2.4).
QUESTIONS: dict[str, tuple[str, str]] = {
    "problem-solving": ("unconventional", "conventional"),
    "writing": ("original", "unoriginal"),
    "ideation": ("novel", "incremental"),
}
QUESTION_TEMPLATE = (
    "Read the text below.\n\n[Text]\n{text}\n\nIs this text {adjective}? Think briefly, then end "
    "your answer with [[YES]] or [[NO]]."
)


def question_pair(domain: str) -> tuple[str, str]:
    return QUESTIONS.get(domain, QUESTIONS["writing"])


def consistency(verdicts: list[list[Any]]) -> float | None:
    """Share of items whose repeated verdicts are all identical (items with >= 2 verdicts).

    >>> consistency([[3, 3, 3], [4, 3, 4], [5, 5]])
    0.6666666666666666
    """
    repeated = [v for v in verdicts if len(v) >= 2]
    return sum(len(set(v)) == 1 for v in repeated) / len(repeated) if repeated else None


def flip_rate(pairs: list[tuple[bool, bool]]) -> float | None:
    """Share of items where "is it X?" and "is it not-X?" get the same answer (a contradiction).

    >>> flip_rate([(True, False), (True, True), (False, False), (False, True)])
    0.5
    """
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None
