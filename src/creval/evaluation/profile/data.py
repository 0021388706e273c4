"""What a profile says, read from its run directories: measurements with intervals, their
place among published models (only where the comparison is valid), and what is weak.

:func:`assemble_profile` builds the ``profile.json`` document that the reports
(:mod:`creval.report.profile`) render and :func:`creval.reader.read_profile` reads.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from creval.evaluation.compare.comparability import (
    RunConditions,
    check_measure,
    conditions_of,
)
from creval.evaluation.compare.items import items_doc, items_of
from creval.evaluation.profile.battery import (
    BATTERY_VERSION,
    Measure,
    PlannedRun,
    items_to_separate,
    judged,
    separation,
)
from creval.reader import Run, read_run
from creval.records import Scores

PROFILE_FORMAT = 1
def _judged(benchmark: str, key: str) -> bool:
    """Whether the measure depends on a judge, detector or evaluator model (so self-judging
    weakens it): ``Measure.judged`` of the benchmark's battery declaration."""
    return judged(benchmark, key)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def resolve_key(measure: Measure, scores: Scores) -> str:
    """The headline key of ``measure`` in this run (``divergent@{last_state}`` -> the last
    state the run scored).

    >>> from creval.evaluation.profile.battery import Measure
    >>> s = Scores(headline={"divergent@0": 0.1, "divergent@2": 0.3})
    >>> resolve_key(Measure("divergent@{last_state}", "divergent", ""), s)
    'divergent@2'
    """
    if "{last_state}" not in measure.key:
        return measure.key
    prefix = measure.key.split("{", 1)[0]
    states = [int(k[len(prefix):]) for k in scores.headline
              if k.startswith(prefix) and k[len(prefix):].isdigit()]
    return f"{prefix}{max(states)}" if states else prefix + "0"


def interval(scores: Scores, key: str) -> tuple[float | None, float | None, int | None, str]:
    """(low, high, items, how) of a headline value: the scorer's own interval when it wrote
    ``KEY_low``/``KEY_high``, else the interval of the mean over ``per_item[KEY]``
    (:func:`creval.metrics.intervals.mean_interval`: none below its minimum number of items,
    and ``how`` then says why).

    >>> s = Scores(headline={"x": 0.5}, per_item={"x": [0.0, 1.0, 0.5, 0.5, None] * 3})
    >>> low, high, n, how = interval(s, "x")
    >>> n, low < 0.5 < high, how
    (12, True, "union of the t interval and the t interval with Hall's skewness correction over 12 items (95%)")
    >>> interval(Scores(headline={"x": 0.6667}, per_item={"x": [0.6667]}), "x")
    (None, None, 1, 'n=1: too few items for an interval (needs 10)')
    """
    from creval.metrics.intervals import describe_interval, mean_interval

    items = [v for v in scores.per_item.get(key, []) if v is not None]
    low, high = _number(scores.headline.get(f"{key}_low")), _number(scores.headline.get(f"{key}_high"))
    if low is not None and high is not None:
        from creval.report.headline import scorer_interval

        own = scorer_interval(scores, key) or {}
        level = own.get("level")
        over = f" over {own['n']} {own.get('unit', 'items')}" if own.get("n") is not None else ""
        pct = f"{level:.0%} " if isinstance(level, float) else ""
        method = f" ({own['method']})" if own.get("method") else ""
        how = f"the scorer's {pct}interval{method}{over}"
        return low, high, own.get("n", len(items) or None), how
    if not items:
        return None, None, None, "no item-level values: no interval"
    ci = mean_interval([float(v) for v in items], proportions=True)
    return ci.low, ci.high, len(items), describe_interval(ci)


def conditions(run: Run, cond: RunConditions | None = None) -> dict[str, Any]:
    """How a run measured, as the profile shows it: benchmark, data (by content), judge and
    the model ids its endpoint reported, roles, self-judging."""
    cond = cond or conditions_of(run)
    return {"benchmark": cond.benchmark, "data": cond.data.shown, "data_kind": cond.data.kind,
            "items": (run.scores or Scores()).units.finished, "judge": cond.judge,
            "judge_reported": list(cond.judge_reported),
            "judge_unreported": cond.unreported.get("judge", 0), "self_judged": cond.self_judged,
            "roles": dict(cond.roles), "problems": list(cond.problems), "notes": list(cond.notes)}


def place(run: Run, key: str, cond: RunConditions | None = None) -> list[dict[str, Any]]:
    """Published values of the same measure, each with whether it may stand beside ours and
    every reason it may not (:mod:`creval.evaluation.compare.comparability`)."""
    return [{"subject": c.subject, "kind": c.kind, "value": c.value, "source": c.source,
             "paper": c.paper, "seed": c.seed, "protocol": c.protocol, "described": c.described,
             "comparable": c.comparable, "reasons": list(c.reasons), "inferred": list(c.inferred),
             "reason": None if c.comparable else "not comparable: " + "; ".join(c.reasons),
             "unit": c.unit, "placement": None if c.placement is None else dict(c.placement)}
            for c in check_measure(run, key, cond)]


def _weak(benchmark: str, key: str, scores: Scores, n: int | None,
          options: dict[str, Any], cond: RunConditions) -> list[str]:
    weak = []
    head = scores.headline
    if _judged(benchmark, key) and cond.self_judged:
        weak.append("self-judged: the tested model judged its own answers")
    if _judged(benchmark, key):
        checks = scores.judge_checks
        if checks:
            more = f" (and {len(checks) - 1} more check(s) in the run's report)" if len(checks) > 1 else ""
            weak.append(f"judge does not discriminate: {checks[0].detail}{more}")
    for failures in ("parse_failures", "unparsed"):
        if (count := _number(head.get(failures))):
            weak.append(f"{int(count)} answer(s) did not parse")
    valid, invalid = _number(head.get("valid_trials")), _number(head.get("invalid_trials"))
    if valid is not None and invalid and invalid / (valid + invalid) > 0.2:
        weak.append(f"low validity: {int(invalid)} of {int(valid + invalid)} trials invalid")
    asked, missing = _number(head.get("uses_asked")), _number(head.get("uses_missing"))
    if asked and missing and missing / asked > 0.5:  # the AUT: lists far shorter than asked
        weak.append(f"short lists: {int(missing)} of {int(asked)} uses asked were not given")
    if scores.units.errors or scores.units.missing:
        weak.append(f"{scores.units.errors} unit(s) failed, {scores.units.missing} not run")
    need = _standard_items(benchmark, key, options)
    if need is not None and n is not None and n < need:
        weak.append(f"small: {n} item{'' if n == 1 else 's'} (separating the paper's models "
                        f"needs about {need})")
    return weak


def _standard_items(benchmark: str, key: str, options: dict[str, Any]) -> int | None:
    s = separation(benchmark, key, options)
    return None if s is None else s.items


def _gap(benchmark: str, key: str, options: dict[str, Any]) -> float | None:
    s = separation(benchmark, key, options)
    return None if s is None else s.gap


def measurement(run: Run, planned: PlannedRun, measure: Measure,
                cond: RunConditions | None = None) -> dict[str, Any]:
    """One measure of one run: value, interval, place among published values, weaknesses
    (``cond``: the run's conditions, when the caller has them already)."""
    from creval.report.noise import profile_noise

    scores = run.scores or Scores()
    cond = cond or conditions_of(run)
    key = resolve_key(measure, scores)
    value = _number(scores.headline.get(key))
    low, high, n, how = interval(scores, key)
    refs = place(run, key, cond)
    chosen = standing_protocols(refs)
    for r in refs:
        r["standing"] = r["comparable"] and r["protocol"] in chosen
    needed = None
    gap = _gap(planned.member.benchmark, key, run.manifest.options)
    if low is not None and high is not None and n and gap:
        half = (high - low) / 2
        needed = max(1, math.ceil(n * (half / (gap / 2)) ** 2)) if half > 0 else n
    return {
        "family": planned.family.name, "benchmark": planned.member.benchmark, "key": key,
        "label": measure.label, "kind": measure.kind, "higher_is_better": measure.higher_is_better,
        "value": value, "low": low, "high": high, "n": n, "interval": how,
        "items_to_separate": needed,
        "items": items_doc(items_of(planned.member.benchmark, key, scores)),
        "weak": ([] if value is not None else ["not measured: the run has no value for it"])
        + _weak(planned.member.benchmark, key, scores, n, run.manifest.options, cond),
        "references": refs,
        "inferred": sorted({note for r in refs if r["standing"] for note in r["inferred"]}),
        "conditions": conditions(run, cond),
        "noise": profile_noise(scores, key, refs),  # --repeats: the noise floor
    }


def run_entry(run: Run, planned: PlannedRun, out: Path, cond: RunConditions) -> dict[str, Any]:
    scores = run.scores or Scores()
    m = run.manifest
    return {
        "benchmark": planned.member.benchmark, "dir": str(run.path.relative_to(out)),
        "options": dict(m.options), "model": m.model_spec,
        "judge": (m.judge or {}).get("spec") if m.judge else None,
        "roles": {r: d.get("spec") for r, d in m.roles.items()},
        "self_judged": cond.self_judged,
        "units": scores.units.model_dump(), "warnings": list(scores.warnings),
        "judge_checks": [c.model_dump() for c in scores.judge_checks],
    }


def assemble_profile(out: Path, planned: list[PlannedRun], header: dict[str, Any]) -> dict[str, Any]:
    """The profile document of the runs under ``out``."""
    families: dict[str, dict[str, Any]] = {}
    for p in planned:
        fam = families.setdefault(p.family.name, {
            "name": p.family.name, "seed": p.family.seed, "title": p.family.title,
            "runs": [], "measurements": []})
        run_dir = out / p.member.benchmark
        if not (run_dir / "scores.json").is_file():
            fam["runs"].append({"benchmark": p.member.benchmark, "dir": p.member.benchmark,
                                "missing": True})
            continue
        run = read_run(run_dir)
        cond = conditions_of(run)
        fam["runs"].append(run_entry(run, p, out, cond))
        fam["measurements"] += [measurement(run, p, x, cond) for x in p.member.measures]
    doc = {"profile_format": PROFILE_FORMAT, "battery_version": BATTERY_VERSION, **header,
           "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "families": list(families.values())}
    doc["summary"] = summarize(doc)
    return doc


def _short(value: float | None, low: float | None, high: float | None) -> str:
    """A value with its interval, short.

    >>> _short(0.51234, 0.4, 0.6), _short(2.0, None, None)
    ('0.5123 [0.4, 0.6]', '2')
    """
    if value is None:
        return "-"
    if low is None or high is None:
        return f"{value:.4g}"
    return f"{value:.4g} [{low:.4g}, {high:.4g}]"


def standing_protocols(refs: list[dict[str, Any]]) -> set[str]:
    """Of the comparable references, one protocol per paper: the one with most subjects."""
    by_paper: dict[str, dict[str, set[str]]] = {}
    for r in refs:
        if r["comparable"]:
            by_paper.setdefault(str(r.get("paper", "")), {}).setdefault(r["protocol"], set()).add(r["subject"])
    return {max(protocols, key=lambda p: (len(protocols[p]), p)) for protocols in by_paper.values()}


def standings(m: dict[str, Any]) -> tuple[int, int, list[str]]:
    """(above, of, protocols): how many distinct published subjects measured the same way
    the value is above, out of how many, and the protocols they come from. Where several
    protocols of one paper are comparable (JCQ's Table 3 and its released judgements name
    the same models), one of them stands for the paper: the one with the most subjects.

    >>> refs = [{"paper": "P", "protocol": "a", "subject": "X", "value": 1.0, "comparable": True},
    ...         {"paper": "P", "protocol": "b", "subject": "X", "value": 1.1, "comparable": True},
    ...         {"paper": "P", "protocol": "b", "subject": "Y", "value": 3.0, "comparable": True}]
    >>> standings({"value": 2.0, "higher_is_better": True, "references": refs})
    (1, 2, ['b'])
    """
    valid = [r for r in m["references"] if r["comparable"]]
    chosen = standing_protocols(valid)
    values: dict[str, list[float]] = {}
    for r in valid:
        if r["protocol"] in chosen:
            values.setdefault(r["subject"].strip().lower(), []).append(r["value"])
    above = sum(1 for vs in values.values()
                if all((v < m["value"]) == m["higher_is_better"] and v != m["value"] for v in vs))
    return above, len(values), sorted(chosen)


def _standing(m: dict[str, Any]) -> str:
    """One line of "Where it stands": the value, its interval and n, and its standing.

    >>> _standing({"label": "DAT score", "value": 80.59, "low": None, "high": None, "n": 4.0,
    ...            "references": []})
    'DAT score: 80.59 (n = 4); no published value of this measure'
    """
    n = f" (n = {int(m['n'])})" if m.get("n") is not None and m.get("value") is not None else ""
    name = f"{m['label']}: {_short(m['value'], m['low'], m['high'])}{n}"
    if any(r["comparable"] for r in m["references"]):
        above, of, protocols = standings(m)
        return (f"{name}, above {above} of {of} published models and groups measured the same "
                f"way ({', '.join(protocols)})")
    if m["references"]:
        reasons = sorted({why for r in m["references"] for why in r.get("reasons") or [r["reason"]]})
        more = f"; and {len(reasons) - 3} more (creval references check)" if len(reasons) > 3 else ""
        return f"{name}; not placed among published values ({'; '.join(reasons[:3])}{more})"
    return f"{name}; no published value of this measure"


def summarize(doc: dict[str, Any]) -> dict[str, list[str]]:
    """The one-screen summary: where the model stands (a line per measurement), what is weak
    (a line per benchmark) and what to run next."""
    standing: list[str] = []
    weak_by_run: dict[str, list[str]] = {}
    for fam in doc["families"]:
        for m in fam["measurements"]:
            if m["value"] is not None:
                standing.append(_standing(m))
            mine = weak_by_run.setdefault(m["benchmark"], [])
            for w in m["weak"]:
                text = f"{m['key']}: {w}" if w.startswith(("small:", "not measured")) else w
                if text not in mine:
                    mine.append(text)
        for run in fam["runs"]:
            if run.get("missing"):
                weak_by_run.setdefault(run["benchmark"], []).append("no scores yet (the run did not finish)")
    weak = [f"{bench}: {'; '.join(ws)}" for bench, ws in weak_by_run.items() if ws]
    flat = " ".join(weak)
    next_steps = []
    if "self-judged" in flat and doc.get("judge"):
        next_steps.append("The judge you passed is the tested model itself (the same snapshot "
                          "at the same endpoint): its numbers stand beside published ones only "
                          "where the paper let its judge judge itself; a different --judge "
                          "places them among the others (the finished answers are reused).")
    elif "self-judged" in flat:
        next_steps.append("Run again with --judge SPEC (a stronger model) or --preset paper "
                          "for the papers' own judges; the finished answers are reused.")
    if "does not discriminate" in flat:
        next_steps.append("A judge gave the same scores whatever the answer: its numbers say "
                          "nothing about the model; use a stronger judge.")
    if "small:" in flat:
        next_steps.append(f"Run --size standard (or paper) to separate models as the papers "
                          f"do; items needed per measure are in the details (battery "
                          f"{doc['battery_version']}).")
    if "trials invalid" in flat or "did not parse" in flat:
        next_steps.append("Many answers were invalid or unparsed: check the model follows the "
                          "format (or try --constrain-answers where the benchmark has it).")
    return {"standing": standing, "weak": weak, "next": next_steps}


__all__ = ["PROFILE_FORMAT", "assemble_profile", "interval", "items_to_separate", "summarize"]
