"""Rubric-judged runs with repeats: the variance split of each criterion and of their mean.

An item is a question, a sample one answer to it (``--answers`` per repeat), and a judgement
one verdict on that answer: repeat 0 judges each answer once (as without repeats), later
repeats twice (``judgements`` and ``judgements_again``), which is what separates the judge's
noise from the model's.
"""

from __future__ import annotations

from creval.benchmarks.repeats import Observation, repeat_of, with_noise
from creval.benchmarks.ttct.scoring import CRITERIA, answer_base, parse_judgement
from creval.records import Record, Scores


def rubric_observations(
    records: list[Record], *, lang: str, parser: str
) -> dict[str, list[Observation]]:
    """Per measure (``mean`` and each criterion): (question, (repeat, answer), value) for
    every verdict that parsed."""
    out: dict[str, list[Observation]] = {m: [] for m in ("mean", *CRITERIA)}
    for record in records:
        if record.status != "ok":
            continue
        qid, base, repeat = record.unit.get("question_id"), answer_base(record), repeat_of(record)
        for column in ("judgements", "judgements_again"):
            for index, text in enumerate(record.output.get(column, []), start=base):
                scores, _ = parse_judgement(text, lang=lang, parser=parser)
                if scores is None:
                    continue
                values = [float(scores[c]) for c in CRITERIA]
                sample = (repeat, index)
                out["mean"].append((qid, sample, sum(values) / len(values)))
                for criterion, value in zip(CRITERIA, values, strict=True):
                    out[criterion].append((qid, sample, value))
    return out


def rubric_noise(
    scores: Scores, records: list[Record], *, lang: str, parser: str, repeats: int
) -> Scores:
    """``scores`` with the variance split of each measure when the run has repeats."""
    if repeats < 2:
        return scores
    observations = rubric_observations(records, lang=lang, parser=parser)
    note = ("Rubric repeats: each question's answers (--answers per repeat) are its samples; "
            "repeats after the first ask the judge twice per answer, at its own temperature "
            "(0) with seeds of their own; only the first verdict enters the headline.")
    return with_noise(scores, observations, repeats=repeats, extra=[note])
