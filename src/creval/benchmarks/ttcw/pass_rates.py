"""Scores of ``ttcw``: pass rates per test and Torrance dimension with intervals over stories,
the paper's per-source pass rates (experts) beside them as not comparable, and the judge's
validated agreement from a ``ttcw-judges`` run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from creval.benchmarks.ttcw.agreement import majority
from creval.benchmarks.ttcw.data import DIMENSIONS, TTCWData
from creval.errors import CrevalError
from creval.metrics.intervals import MIN_ITEMS, mean_interval
from creval.records import Scores

#: (story key, test idx) -> verdict (None: unparsed)
Verdicts = Mapping[tuple[str, int], bool | None]


def _rate(values: list[float]) -> dict[str, Any]:
    """The pass rate over stories with the interval of a mean (Clopper-Pearson's where every
    value is 0 or 1), none below ``MIN_ITEMS`` stories: ``interval`` then says why (the
    percentile bootstrap used before covered 50-84% at 2-5 stories)."""
    if not values:
        return {"pass_rate": None, "low": None, "high": None, "n": 0, "interval": "no story"}
    ci = mean_interval(values, proportions=True)
    return {"pass_rate": ci.mean, "low": ci.low, "high": ci.high, "n": ci.n, "interval": ci.reason}


def _story_means(verdicts: Verdicts, tests: set[int]) -> list[float]:
    """Per story, the share of Yes over its parsed verdicts of ``tests`` (a story with none
    left out): each story counts once, so the interval is over stories."""
    by_story: dict[str, list[float]] = {}
    for (story, test), v in verdicts.items():
        if test in tests and v is not None:
            by_story.setdefault(story, []).append(float(v))
    return [sum(v) / len(v) for v in by_story.values()]


def experts_pass_rates(data: TTCWData) -> list[dict[str, Any]]:
    """The paper's pass rate per story source (New Yorker, GPT3.5, GPT4, Claude): the share of
    (story, test) items the experts' majority passed, overall and per dimension."""
    rows = []
    for source in sorted({s.source for s in data.stories}):
        ids = {s.story_id for s in data.stories if s.source == source}
        row: dict[str, Any] = {"source": source, "judge": "experts (majority of 3)",
                               "comparable": False}
        for dim in (None, *DIMENSIONS):
            tests = {t.idx for t in data.tests if dim is None or t.dimension == dim}
            passed = [majority(data, i) for i in data.experts if i[0] in ids and i[1] in tests]
            row["pass_rate" if dim is None else f"pass_rate_{dim.lower()}"] = (
                sum(passed) / len(passed) if passed else None)
        rows.append(row)
    return rows


def validated(path: str, judge: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The agreement of a ``ttcw-judges`` run at ``path`` and a warning when its judge is not
    this run's."""
    from creval.reader import read_run

    if not (Path(path) / "scores.json").is_file():
        raise CrevalError(f"--judge-agreement {path}: no scores.json there; point it at a "
                          "finished ttcw-judges run of the same judge.")
    run = read_run(path)
    if run.manifest.benchmark != "ttcw-judges" or run.scores is None:
        raise CrevalError(f"--judge-agreement {path} is a {run.manifest.benchmark} run; it must "
                          "be a ttcw-judges run of the same judge.")
    head = run.scores.headline
    row = {"run": str(path), "judge": run.manifest.model_spec,
           **{k: head.get(k) for k in ("kappa", "kappa_low", "kappa_high", "accuracy",
                                       "experts_fleiss_kappa", "items")}}
    warn = [] if run.manifest.model_spec in judge else [
        f"The agreement shown (--judge-agreement) is of {run.manifest.model_spec}, but this "
        f"run's judge was {', '.join(judge) or 'none'}: it does not validate this judge."]
    return row, warn


def score_pass_rates(verdicts: Verdicts, data: TTCWData, options: Any,
                     judge: list[str]) -> Scores:
    tests = [t for t in data.tests if options.tests is None
             or str(t.idx) in options.tests.split(",")]
    per_test = []
    for t in tests:
        values = [float(v) for (_, i), v in verdicts.items() if i == t.idx and v is not None]
        per_test.append({"test": t.idx, "dimension": t.dimension, "category": t.category,
                         **_rate(values)})
    per_dim = [{"dimension": d, **_rate(_story_means(verdicts, {t.idx for t in tests
                                                                 if t.dimension == d}))}
               for d in DIMENSIONS if any(t.dimension == d for t in tests)]
    overall = _rate(_story_means(verdicts, {t.idx for t in tests}))
    unparsed = sum(v is None for v in verdicts.values())
    headline: dict[str, Any] = {
        "pass_rate": overall["pass_rate"], "pass_rate_low": overall["low"],
        "pass_rate_high": overall["high"], "stories": overall["n"], "unparsed": unparsed,
        **({"pass_rate_interval": overall["interval"]} if overall["interval"] else {}),
        **{f"pass_rate_{d['dimension'].lower()}": d["pass_rate"] for d in per_dim}}
    sections = [{"title": "Pass rate per test (share of Yes)", "rows": per_test},
                {"title": "Pass rate per Torrance dimension", "rows": per_dim}]
    notes = ["A pass is the judge's Yes; intervals are 95% over stories (per dimension and "
             "overall, each story's share of passed tests counts once): Student's t with Hall's "
             "skewness correction, Clopper-Pearson's where every value is 0 or 1; none from fewer "
             f"than {MIN_ITEMS} stories."]
    warnings: list[str] = []
    if data.experts:
        sections.append({"title": "The paper's pass rates (experts), for orientation",
                         "rows": experts_pass_rates(data), "text": NOT_COMPARABLE_TEXT})
        notes.append(NOT_COMPARABLE_TEXT)
    if options.judge_agreement:
        row, warnings = validated(options.judge_agreement, judge)
        headline["judge_kappa_with_experts"] = row["kappa"]
        sections.insert(0, {"title": "How far the judge agrees with the experts (ttcw-judges)",
                            "rows": [row]})
    else:
        notes.append("The judge is not validated here: run ttcw-judges with the same judge and "
                     "pass it with --judge-agreement RUN to show its agreement with the experts.")
    table = [{"key": f"{s}-t{i:02d}", "story": s, "test": i, "verdict": v}
             for (s, i), v in sorted(verdicts.items())]
    return Scores(headline=headline, table=table, sections=sections, notes=notes,
                  warnings=warnings,
                  per_item={"pass_rate": list(_story_means(verdicts, {t.idx for t in tests}))})


NOT_COMPARABLE_TEXT = (
    "The paper's pass rates are the three experts' majority verdicts on the New Yorker stories "
    "and on each LLM's stories (computed from the released annotations). They are not "
    "comparable with this run's: an LLM judge is not the experts, and the released LLM judges "
    "agree with the experts barely above chance (kappa near 0, see ttcw-judges).")
