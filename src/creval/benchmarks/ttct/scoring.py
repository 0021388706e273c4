"""Scores of rubric-judged runs: strict parsing, then the upstream two-step aggregation."""

from __future__ import annotations

from typing import Any

from creval.records import JudgeCheck, Scores
from creval.runner.store import Record

CRITERIA = ("fluency", "flexibility", "originality", "elaboration")


def judgement_rows(
    records: list[Record], *, lang: str, parser: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of parsed scores, and the judgements that did not parse (with their raw text)."""
    rows: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    for record in records:
        if record.status != "ok":
            continue
        qid, task = record.unit.get("question_id"), record.unit.get("task")
        base = answer_base(record)
        for index, text in enumerate(record.output.get("judgements", []), start=base):
            scores, error = parse_judgement(text, lang=lang, parser=parser)
            if scores is None:
                failures.append({"question_id": qid, "answer_index": index, "error": error,
                                 "raw": text[:300]})
            else:
                rows.append({"question_id": qid, "answer_index": index, "task": task, **scores})
    return rows, failures


def parse_judgement(text: str, *, lang: str, parser: str) -> tuple[dict[str, Any] | None, str | None]:
    """One judgement's scores per criterion, or None and why it did not parse."""
    from creval.judges.rubric import (
        TTCT_CRITERIA_EN,
        TTCT_CRITERIA_JA,
        parse_rubric,
        upstream_jcq_parse,
    )

    if parser == "upstream":
        scores = upstream_jcq_parse(text)
        return scores, None if scores else "no match for the upstream pattern"
    parsed = parse_rubric(text, TTCT_CRITERIA_JA if lang == "ja" else TTCT_CRITERIA_EN)
    return parsed.scores, parsed.error


def answer_base(record: Record) -> int:
    """The answer index of a record's first answer: repeat ``r`` of a question (``--repeats``)
    numbers its answers after those of the repeats before it."""
    return int(record.unit.get("repeat", 0)) * len(record.output.get("judgements", []))


def constrained_note(records: list[Record], key: str, what: str) -> str:
    """A notes line saying how many units' instrument answers were constrained to a schema."""
    ok = [r for r in records if r.status == "ok"]
    n = sum(bool(r.output.get(key)) for r in ok)
    if n == 0:
        return f"{what}: free text (not constrained to a JSON schema)."
    return (f"{what}: constrained to a JSON schema in {n} of {len(ok)} units (the judge's "
            "backend enforced it; parsing stays strict).")


def score_rubric_records(records: list[Record], *, lang: str, parser: str) -> Scores:
    """Headline criterion means, per task x criterion table, and parse failures."""
    from creval.metrics.rubric_agg import aggregate_rubric

    rows, failures = judgement_rows(records, lang=lang, parser=parser)
    total = len(rows) + len(failures)
    notes = [
        "Per criterion: mean over questions for each answer index, then mean and standard "
        "deviation across answer indices (as the upstream JCQ scorer).",
        f"Judgements parsed: {len(rows)} of {total}; unparsed ones are recorded with their raw "
        f"text, never guessed ({parser} parser).",
        constrained_note(records, "judge_constrained", "Judge answers"),
    ]
    if not rows:
        return Scores(
            headline={c: None for c in CRITERIA} | {"mean": None, "parsed": 0,
                                                     "parse_failures": len(failures)},
            table=[], notes=notes,
        ).with_extra(rubric={"tasks": {}, "criteria": {}}, parse_failures=failures[:50], lang=lang)
    agg = aggregate_rubric(rows, criteria=CRITERIA)
    shaped = rubric_scores(agg, parsed=len(rows), failures=failures, notes=notes, lang=lang)
    return Scores(
        headline=shaped["headline"], table=shaped["table"], notes=shaped["notes"],
        per_item=per_answer_values(records, rows),
        judge_checks=rubric_judge_checks(rows, lang=lang),
    ).with_extra(rubric=shaped["rubric"], parse_failures=shaped["parse_failures"], lang=shaped["lang"])


def per_answer_values(records: list[Record], rows: list[dict[str, Any]]) -> dict[str, list[float | None]]:
    """``mean`` and each criterion per judged answer (question order, then answer index),
    None where the judgement did not parse.

    The headline is upstream's two-step mean (over questions per answer index, then over
    answer indices), so no item-level list has it as its plain mean in every run; these are
    the per-answer values, whose plain mean equals the headline whenever every answer index
    has as many parsed judgements as the others (always, when nothing failed to parse).
    A per-index list (``--answers`` values) would match exactly but is too short to
    resample; per-question means would not match either.
    """
    parsed = {(row["question_id"], row["answer_index"]): row for row in rows}
    out: dict[str, list[float | None]] = {key: [] for key in ("mean", *CRITERIA)}
    for record in records:
        if record.status != "ok":
            continue
        qid, base = record.unit.get("question_id"), answer_base(record)
        for index in range(base, base + len(record.output.get("judgements", []))):
            row = parsed.get((qid, index))
            values = None if row is None else [float(row[c]) for c in CRITERIA]
            out["mean"].append(None if values is None else sum(values) / len(values))
            for j, c in enumerate(CRITERIA):
                out[c].append(None if values is None else values[j])
    return out


def rubric_judge_checks(rows: list[dict[str, Any]], *, lang: str) -> list[JudgeCheck]:
    """Whether the rubric judge discriminates: no variance per criterion, or scores that
    follow the order the prompt asks the criteria in (fluency, flexibility, originality,
    elaboration), over the parsed judgements."""
    from creval.judges.discrimination import check_rubric

    judge = f"rubric judge ({'jcq' if lang == 'ja' else 'ttct'})"
    return check_rubric([[row[c] for c in CRITERIA] for row in rows], CRITERIA, judge=judge)


def rubric_scores(
    agg: dict[str, Any], *, parsed: int, failures: list[dict[str, Any]], notes: list[str],
    lang: str,
) -> dict[str, Any]:
    """Shape an :func:`aggregate_rubric` result into the fields of :class:`Scores` (also the
    Inspect integration's rubric metric)."""
    headline: dict[str, Any] = {c: agg["criteria"][c]["mean"] for c in CRITERIA}
    headline["mean"] = agg["mean"]
    headline |= {f"{c}_std": agg["criteria"][c]["std"] for c in CRITERIA}
    headline["parsed"] = parsed
    headline["parse_failures"] = len(failures)
    tasks = agg["tasks"]
    table = [{"task": task, **{c: tasks[task].get(c) for c in CRITERIA},
              "mean": tasks[task].get("mean")} for task in tasks]
    return {
        "headline": headline,
        "rubric": {"tasks": tasks, "criteria": agg["criteria"]},
        "table": table,
        "parse_failures": failures[:50],
        "notes": notes,
        "lang": lang,
    }
