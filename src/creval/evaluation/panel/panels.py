"""Judge panels: ``creval run BENCH --judge a,b,c`` (``evaluate(..., judge="a,b,c")``).

A panel runs the benchmark once per judge, each a whole run of its own in ``OUT/judges/SLUG``
(manifest, records with every verdict, scores, report: ``creval verify`` re-derives each),
with the tested model's answers shared through the response cache: the tested model is asked
once, by the first judge's run, and every later run takes the same answers from the cache
(a panel run with ``--no-cache`` uses a cache of its own in ``OUT``). Then
:func:`creval.evaluation.panel.scores.combine` combines the judges' per-item values into the
panel's, written to ``OUT`` as a run directory of its own (``manifest.json`` with a ``panel``
entry, ``scores.json``, the reports).

**Judges of the tested model's family are left out** by default (``allow_same_family``:
kept): by the specs before any call where both name a known maker's model
(:func:`creval.evaluation.run.families.same_by_spec`: that judge is never run), and, since a
model's snapshot is known only from its answers, by the snapshots reported after each
judge's run (:func:`creval.evaluation.run.families.same_by_snapshots`: that judge's run is kept,
its verdicts are not in the panel). Either way the manifest records the judge, the reason and
when it was decided, and the report and console say so.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.panel.conditions import is_panel
from creval.evaluation.panel.scores import AGGREGATES, Member, combine
from creval.evaluation.run.families import judged_family, same_by_spec
from creval.evaluation.run.runs import RunResult, RunSettings, run_benchmark

#: Where the judges' runs go below the panel's run directory.
JUDGES = "judges"
#: The panel's own response cache when the run has none (``--no-cache``).
PANEL_CACHE = "panel-cache.sqlite"


@dataclass(frozen=True)
class PanelSpec:
    """The judges of a panel, each with its endpoint (None: the run's ``--base-url``), how
    their values are combined and whether a judge of the tested model's family may stay."""

    judges: tuple[str, ...]
    base_urls: tuple[str | None, ...]
    aggregate: str = "mean"
    allow_same_family: bool = False


def parse_panel(judge: str, base_url: str | None = None, *, aggregate: str = "mean",
                allow_same_family: bool = False) -> PanelSpec:
    """``--judge a,b,c`` with ``--judge-base-url`` (one URL for all, or one per judge).

    >>> parse_panel("openai:a, openai:b", "http://h:1/v1,http://h:2/v1").base_urls
    ('http://h:1/v1', 'http://h:2/v1')
    """
    from creval.evaluation.run.plans import slug
    from creval.models import check_spec

    judges = tuple(j.strip() for j in judge.split(","))
    if any(not j for j in judges):
        raise CrevalError(f"--judge {judge!r}: an empty judge in the list; write --judge "
                          "SPEC,SPEC,... (e.g. openai:gpt-4o,openai:claude-3-5-sonnet).")
    for spec in judges:
        check_spec(spec)
    if len(set(judges)) < len(judges) or len({slug(j) for j in judges}) < len(judges):
        raise CrevalError(f"--judge {judge!r} names a judge twice; name each judge once.")
    urls: tuple[str | None, ...] = (None,) * len(judges)
    if base_url is not None:
        given = tuple(u.strip() for u in base_url.split(","))
        if len(given) not in (1, len(judges)) or any(not u for u in given):
            raise CrevalError(f"--judge-base-url gives {len(given)} URL(s) for {len(judges)} "
                              "judges: give one URL for every judge, or one per judge in the "
                              "order of --judge, separated by commas.")
        urls = given * len(judges) if len(given) == 1 else given
    if aggregate not in AGGREGATES:
        raise CrevalError(f"--panel-aggregate takes {', '.join(AGGREGATES)}, not {aggregate!r}.")
    return PanelSpec(judges, urls, aggregate, allow_same_family)


def run_panel(plan: Any, settings: RunSettings, panel: PanelSpec) -> RunResult:
    """Run ``plan`` (a :class:`creval.evaluation.run.plans.Plan`) once per judge of ``panel``
    and write the panel's scores into ``plan.out`` (see the module docstring)."""
    from creval.evaluation.run.plans import slug

    bench, out = plan.benchmark, Path(plan.out)
    if "judge" not in bench.roles:
        raise CrevalError(f"{bench.name} has no judge, so --judge with several judges (a panel) "
                          "does not apply to it. Panels are for judged benchmarks: see "
                          "`creval list --verbose`.")
    members = [Member(spec, base_url=url) for spec, url in zip(panel.judges, panel.base_urls, strict=True)]
    for m in members:
        if (why := same_by_spec(settings.model, m.spec)) is not None and not panel.allow_same_family:
            m.included, m.reason, m.decided = False, why, "before any call, by the specs"
    _check_enough(members, panel, before=True)
    _check_resume(out, bench.name, settings.model, panel)
    settings = _shared_cache(settings, out)
    results: list[RunResult] = []
    for m in members:
        if not m.included:
            continue
        m.dir = f"{JUDGES}/{slug(m.spec)}"
        options = None if m.base_url is None else settings.model_options.model_copy(
            update={"base_url": m.base_url, "reasoning_effort": None, "batch": False})
        one = dataclasses.replace(settings, judge=m.spec, judge_options=options)
        results.append(result := run_benchmark(bench, plan.options, out / m.dir, one))
        m.scores = result.scores
        _decide_by_snapshots(m, out / m.dir, settings.model, panel.allow_same_family)
    return _write(out, members, panel, results)


def _check_enough(members: list[Member], panel: PanelSpec, *, before: bool) -> None:
    kept = [m for m in members if m.included]
    need = 3 if panel.aggregate == "trimmed" else 2
    if len(kept) >= need:
        return
    left = "; ".join(f"{m.spec}: {m.reason}" for m in members if not m.included)
    if not left:
        raise CrevalError(f"A panel needs at least {need} judges"
                          f"{' for a trimmed mean' if need == 3 else ''}; --judge names "
                          f"{len(members)}. Name more, separated by commas.")
    when = "" if before else (" The judges' runs are kept below judges/ (the same command "
                              "resumes them).")
    raise CrevalError(
        f"A panel needs at least {need} judges{' for a trimmed mean' if need == 3 else ''}; "
        f"{len(kept)} of {len(members)} are left after leaving out the tested model's family "
        f"({left}). Add judges of other families, or pass --allow-same-family-judge to keep "
        f"them.{when}")


def _check_resume(out: Path, benchmark: str, model: str, panel: PanelSpec) -> None:
    """Refuse to write over a panel of other members, benchmark or tested model."""
    try:
        old = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    was = (old.get("panel") or {}).get("judges")
    if was is None:
        raise CrevalError(f"{out} holds a run with a single judge, not a panel: a panel and a "
                          "single judge are different conditions. Use another --out.")
    if (old.get("benchmark"), old.get("model_spec")) != (benchmark, model) or list(was) != list(panel.judges):
        raise CrevalError(f"{out} holds a panel of {', '.join(was)} on {old.get('benchmark')} "
                          f"({old.get('model_spec')}); this one is {', '.join(panel.judges)} on "
                          f"{benchmark} ({model}). Two panels of different members are "
                          "different conditions: use another --out.")


def _shared_cache(settings: RunSettings, out: Path) -> RunSettings:
    """The tested model's answers come from one cache for every judge's run."""
    if settings.cache is not None:
        return settings
    out.mkdir(parents=True, exist_ok=True)
    return dataclasses.replace(settings, cache=out / PANEL_CACHE)


def _decide_by_snapshots(m: Member, run_dir: Path, model: str, allow: bool) -> None:
    """The member's reported snapshots, and whether they are of the tested model's family."""
    m.reported, why = judged_family(run_dir, model, m.spec)
    if why is not None and not allow:
        m.included, m.reason = False, why
        m.decided = "after its answers, by the snapshots they reported (its run is kept)"


def _write(out: Path, members: list[Member], panel: PanelSpec, results: list[RunResult]) -> RunResult:
    """The panel's manifest, scores and reports in ``out``."""
    from creval.report.html import write_html_report
    from creval.report.markdown import write_report
    from creval.runner.counters import Counters, sum_usage

    _check_enough(members, panel, before=False)
    unfinished = [r for r in results if r.scores.units.errors or r.scores.units.missing or r.endpoints_down]
    first = next(m for m in members if m.included and m.dir is not None)
    manifest = panel_manifest(out, json.loads((out / str(first.dir) / "manifest.json").read_text(
        encoding="utf-8")), members, panel)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
    scores = combine(members, panel.aggregate)
    invocations = [r.scores.usage.get("this_invocation", {}) for r in results]
    every = [r.scores.usage.get("all_invocations", {}) for r in results]
    usage = {"this_invocation": {**sum_usage(invocations),
                                 "seconds": sum(float(i.get("seconds") or 0) for i in invocations)},
             "all_invocations": {**sum_usage(every),
                                 "seconds": sum(float(i.get("seconds") or 0) for i in every)},
             "invocations": max(int(r.scores.usage.get("invocations") or 0) for r in results)}
    warnings = [f"{r.out}: {r.scores.units.errors} unit(s) failed, {r.scores.units.missing} not "
                "run: the panel stands on the finished items only; run the same command again"
                for r in unfinished]
    scores = scores.model_copy(update={"benchmark": first.scores.benchmark if first.scores else "",
                                       "usage": usage, "run_warnings": warnings,
                                       "units": results[0].scores.units})
    written = scores.model_dump(mode="json")
    (out / "scores.json").write_text(json.dumps(written, indent=1, ensure_ascii=False), encoding="utf-8")
    write_report(out, manifest, scores)
    write_html_report(out)
    down = {k: v for r in results for k, v in r.endpoints_down.items()}
    return RunResult(manifest["benchmark"], out, scores, Counters(), sum(r.ran_units for r in results),
                     down, manifest["model_spec"])


def panel_manifest(out: Path, first: dict[str, Any], members: list[Member],
                   panel: PanelSpec) -> dict[str, Any]:
    """The panel's ``manifest.json``: the first judge's run's (benchmark, tested model,
    options, digests), its ``judge`` the panel's members, and ``panel`` every judge (those
    left out too, with why and when that was decided)."""
    from creval._util.redact import redact_argv

    kept = [m for m in members if m.included]
    identities = []
    for m in kept:
        try:
            judged = json.loads((out / str(m.dir) / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            judged = {}
        identities.append((judged.get("judge") or {}).get("identity") or {"spec": m.spec})
    manifest = {k: v for k, v in first.items() if k != "executor"}
    manifest["judge"] = {"spec": "panel:" + ",".join(m.spec for m in kept),
                         "identity": {"panel": identities}}
    manifest["panel"] = {
        "judges": list(panel.judges), "aggregate": panel.aggregate,
        "how": AGGREGATES[panel.aggregate], "allow_same_family": panel.allow_same_family,
        "family_rule": "creval.evaluation.run.families",
        "members": [m.as_dict() for m in members],
    }
    manifest["command"] = redact_argv(sys.argv)
    return manifest


def run_plan(plan: Any, settings: RunSettings) -> RunResult:
    """One planned run: a panel (``settings.panel``) for a judged benchmark, else the run."""
    if settings.panel is not None and "judge" in plan.benchmark.roles:
        return run_panel(plan, settings, settings.panel)
    return run_benchmark(plan.benchmark, plan.options, plan.out, settings)


__all__ = ["PanelSpec", "is_panel", "parse_panel", "run_panel", "run_plan"]
