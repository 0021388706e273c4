"""Is the difference real? A run compared item by item with published models, or with another
run of the user's on the same items.

For each published model (:mod:`creval.evaluation.compare.published`) and measure, the run's and the
model's values are paired on the items both measured, and the comparison gives the mean
difference (**published minus this run**), its 95% interval (t with Hall's correction),
the paired sign-flip permutation p-value, that p-value after Holm's correction across every comparison
of the report, and the smallest difference the paired items could detect at 80% power
(:mod:`creval.metrics.paired`). A run is compared with a published source only when it
measured under the source's protocol (:func:`comparable`); otherwise the report says why.

Reading a row (every measure here is higher-is-better): ``p_holm < 0.05`` and a positive
difference mean the published model is ahead of this run (this run is *behind*); a negative
one, *ahead*; otherwise the two are *not distinguishable* on these items, and ``mdd`` says
how large a true difference could have gone unseen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.compare.comparability import RunConditions, conditions_of, reasons
from creval.evaluation.compare.items import items_of
from creval.evaluation.compare.published import (
    find_published,
    run_item_values,
    source_protocol,
)
from creval.reader import PAIRED_COLUMNS, PROFILE, Run, read_run
from creval.report.paired import PAIRED_JSON
from creval.report.references import Protocol, registered_benchmark

ALPHA = 0.05


@dataclass
class PairedReport:
    """One report's paired comparisons (``rows``, Holm-corrected together) and the runs or
    sources left out, each with the reason (``skipped``)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    #: ``not verified: RUN: why`` for each run compared although part of it could not be replayed.
    unverified: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"alpha": ALPHA, "rows": self.rows, "skipped": self.skipped,
                "unverified": self.unverified}


# --- comparability: the one adapter -----------------------------------------------------------

def run_conditions(run: Run) -> RunConditions:
    """How ``run`` measured (:func:`creval.evaluation.compare.comparability.conditions_of`)."""
    return conditions_of(run)


def comparable(protocol: Protocol, run: Run) -> str | None:
    """None when ``run`` measured under ``protocol``, else every reason, in one line.

    The one place this module asks the comparability rules
    (:mod:`creval.evaluation.compare.comparability`).
    """
    # the valid items behind the value (parsed judgements, scored pairs), as the published
    # check counts them; never the units that merely finished
    scores = run.scores
    items = items_of(run.benchmark, next(iter(scores.headline), ""), scores) if scores else 0
    why = reasons(protocol, conditions_of(run), items=items)
    return None if not why else "not comparable: " + "; ".join(why)


# --- statistics of the rows ------------------------------------------------------------------

def _verdict(difference: float, p_holm: float) -> str:
    """This run's standing against the other side (higher is better).

    >>> _verdict(0.2, 0.001), _verdict(-0.2, 0.001), _verdict(0.2, 0.2)
    ('behind', 'ahead', 'not distinguishable')
    """
    if p_holm >= ALPHA or difference == 0:
        return "not distinguishable"
    return "behind" if difference > 0 else "ahead"


def paired_row(benchmark: str, subject: str, measure: str, theirs: dict[str, float],
               ours: dict[str, float]) -> dict[str, Any] | None:
    """The statistics of one pairing (``theirs - ours`` on the shared items); None when no
    item is shared."""
    from creval.metrics.paired import min_detectable_difference, paired_difference, sign_flip_p

    items = sorted(set(theirs) & set(ours), key=_item_order)
    if not items:
        return None
    a, b = [theirs[i] for i in items], [ours[i] for i in items]
    d = paired_difference(a, b)
    p = sign_flip_p(a, b, seed=0)
    row = {"benchmark": benchmark, "subject": subject, "measure": measure, "n": d.n,
           "difference": d.difference, "low": d.low, "high": d.high,
           "interval_note": d.reason, "sd": d.sd, "p": p, "p_holm": p,
           "mdd": None, "published": sum(a) / len(a), "this": sum(b) / len(b), "test": "paired",
           "left_out_subject": len(theirs) - d.n, "left_out_this": len(ours) - d.n}
    if d.n < 2:
        row["mdd_reason"] = "one paired item: no spread of the differences to test against"
    elif d.sd == 0:
        row["mdd_reason"] = ("the differences have no spread (every item differs by the same "
                             "amount): no detectable difference can be computed")
        row["note"] = (f"the same value on every one of the {d.n} paired items: nothing was "
                       "measured to distinguish the two (the differences have no spread, so "
                       "the interval and p are no measure of precision)" if d.difference == 0
                       else f"every one of the {d.n} paired items differs by exactly "
                       f"{d.difference:.4g}: the differences have no spread, so the interval "
                       "is no measure of precision")
    else:
        row["mdd"] = min_detectable_difference(sd=d.sd, n=d.n)
    return row


def _item_order(item: str) -> tuple[int, str]:
    return (int(item), "") if item.isdigit() else (0, item)


def finish(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Holm's correction across all ``rows`` (one report), and each row's verdict."""
    from creval.metrics.paired import holm

    for row, adjusted in zip(rows, holm([r["p"] for r in rows]), strict=True):
        row["p_holm"] = adjusted
        row["verdict"] = _verdict(row["difference"], adjusted)
    return rows


# --- against published models ---------------------------------------------------------------

def _run_dirs(path: Path) -> list[Path]:
    """The run directories of a profile directory, or ``path`` itself."""
    if (path / PROFILE).is_file():
        doc = json.loads((path / PROFILE).read_text(encoding="utf-8"))
        return [path / r["dir"] for f in doc.get("families", []) for r in f.get("runs", [])
                if not r.get("missing")]
    return [path]


def published_rows(run: Run, *, published: Path | None = None,
                   measures: Sequence[str] | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Uncorrected rows of ``run`` against every published model, or why there are none."""
    bench = run.manifest.benchmark
    unpaired = _unpaired_measure(bench)
    if unpaired is not None:  # answers are exchangeable: unpaired, against the released lists
        return released_rows(run, unpaired)
    protocol = source_protocol(bench)
    if protocol is None:
        return [], f"no paper released per-item results of {bench}"
    if run.scores is None:
        return [], "the run has no scores yet"
    reason = comparable(protocol, run)
    if reason is not None:
        return [], f"{reason} ({protocol.description})"
    sources, why = find_published(run, published)
    if not sources:
        return [], why
    ours = run_item_values(run)
    rows = []
    for source in sources:
        for measure, theirs in source.values.items():
            if (measures is None or measure in measures) and measure in ours:
                row = paired_row(bench, source.subject, measure, theirs, ours[measure])
                if row is not None:
                    rows.append(row)
    return rows, None if rows else "no item measured by both"


def _unpaired_measure(benchmark: str) -> str | None:
    """The measure ``benchmark`` compares unpaired (its answers are exchangeable draws of one
    prompt: DAT's trials), or None."""
    bench = registered_benchmark(benchmark)
    return None if bench is None else bench.unpaired_measure()


def released_rows(run: Run, measure: str) -> tuple[list[dict[str, Any]], str | None]:
    """A run's unpaired rows of ``measure`` against the released lists its benchmark declares
    (:meth:`~creval.benchmarks.base.Benchmark.released_references`: English DAT's five
    released models and the people), or why there are none."""
    from creval.evaluation.compare.comparability import released_checks, released_missing

    if run.scores is None:
        return [], "the run has no scores yet"
    checks = released_checks(run, measure)
    if not checks:
        return [], released_missing(run)
    placed = [c for c in checks if c.placement is not None]
    if not placed:
        why = {c.protocol: "; ".join(c.reasons) or "no valid trial" for c in checks}
        return [], "not comparable with the released lists: " + " | ".join(
            f"{pid}: {text}" for pid, text in why.items())
    rows = []
    for c in placed:
        stats = dict(c.placement or {})
        rows.append({"benchmark": run.benchmark, "subject": c.subject, "measure": c.measure,
                     "n": stats["n_published"] + stats["n_this"], **stats, "mdd": None,
                     "mdd_reason": "unpaired: no detectable difference is computed",
                     "protocol": c.protocol, "unit": c.unit, "verdict_of": str(run.path)})
    return rows, None


def compare_published_report(path: str | Path, *, published: Path | None = None,
                             measures: Sequence[str] | None = None) -> PairedReport:
    """Every run under ``path`` (a run or a profile directory) against the published
    per-item results it is comparable with; Holm's correction across the whole report."""
    from creval.evaluation.verify.verifying import refusal, unverified_line, verify_run

    report = PairedReport()
    for run_dir in _run_dirs(Path(path)):
        verified = verify_run(run_dir)  # scores that do not follow from the records: refused
        if not verified.sound:
            report.skipped.append({"run": str(run_dir), "benchmark": verified.benchmark,
                                   "reason": refusal(verified)})
            continue
        if (line := unverified_line(verified)) is not None:
            report.unverified.append(line)
        run = read_run(run_dir)
        rows, why = published_rows(run, published=published, measures=measures)
        report.rows += [{**r, "verdict_of": str(run_dir)} for r in rows]
        if why:
            report.skipped.append({"run": str(run_dir), "benchmark": run.manifest.benchmark,
                                   "reason": why})
    finish(report.rows)
    return report


def compare_published(path: str | Path, *, published: str | Path | None = None) -> Any:
    """A pandas DataFrame: one row per published model and measure (``difference`` is
    published minus this run; ``p_holm`` corrected across the rows). Runs that could not be
    compared are in ``df.attrs["skipped"]``."""
    from creval.reader import _pandas

    report = compare_published_report(path, published=None if published is None else Path(published))
    df = _pandas().DataFrame(report.rows, columns=list(PAIRED_COLUMNS))
    df.attrs["skipped"] = report.skipped
    return df


# --- two of the user's runs ------------------------------------------------------------------

def compare_runs_paired(a: str | Path, b: str | Path) -> PairedReport:
    """Run (or profile) ``a`` against ``b`` on the items both measured, per benchmark and
    measure: ``difference`` is ``a`` minus ``b``. Runs must share benchmark, data, judge,
    evaluator roles and scoring options (sampling options may differ):
    :func:`creval.evaluation.compare.run_groups.differences`. DAT is compared unpaired."""
    from creval.evaluation.compare.run_groups import differences

    runs_a = {read_run(d).manifest.benchmark: d for d in _run_dirs(Path(a))}
    runs_b = {read_run(d).manifest.benchmark: d for d in _run_dirs(Path(b))}
    shared = [bench for bench in runs_a if bench in runs_b]
    if not shared:
        raise CrevalError(f"{a} and {b} share no benchmark: compare runs of the same benchmark.")
    report = PairedReport()
    for bench in shared:
        run_a, run_b = read_run(runs_a[bench]), read_run(runs_b[bench])
        differs = differences(run_a, run_b)  # the rules of `creval compare A B`'s grouping
        reason = "not comparable: " + "; ".join(differs) if differs else None
        if reason is None and (run_a.scores is None or run_b.scores is None):
            reason = "a run has no scores yet"
        if reason is not None:
            report.skipped.append({"run": f"{runs_a[bench]} vs {runs_b[bench]}",
                                   "benchmark": bench, "reason": reason})
            continue
        unpaired = _unpaired_measure(bench)
        if unpaired is not None:  # one prompt, exchangeable answers: nothing to pair by
            row = _unpaired_runs(run_a, run_b, unpaired)
            if row is None:
                report.skipped.append({"run": f"{runs_a[bench]} vs {runs_b[bench]}",
                                       "benchmark": bench, "reason": "a run has no valid trial"})
            else:
                report.rows.append({**row, "verdict_of": str(runs_b[bench])})
            continue
        values_a, values_b = run_item_values(run_a), run_item_values(run_b)
        if not values_a:
            report.skipped.append({"run": str(runs_a[bench]), "benchmark": bench,
                                   "reason": f"{bench} runs keep no item ids to pair by"})
        before = len(report.rows)
        for measure in sorted(set(values_a) & set(values_b)):
            row = paired_row(bench, str(runs_a[bench]), measure, values_a[measure], values_b[measure])
            if row is not None:
                report.rows.append({**row, "verdict_of": str(runs_b[bench])})
        if values_a and len(report.rows) == before:
            report.skipped.append({"run": f"{runs_a[bench]} vs {runs_b[bench]}", "benchmark": bench,
                                   "reason": _nothing_paired(values_a, values_b)})
    finish(report.rows)
    return report


def _unpaired_runs(a: Run, b: Run, measure: str) -> dict[str, Any] | None:
    """Run ``a`` against ``b`` (DAT): ``mean(a) - mean(b)`` of the valid answers' ``measure``,
    unpaired."""
    from creval.evaluation.compare.placement import placements

    values_a, values_b = ([float(v) for v in (r.scores.per_item.get(measure, []) if r.scores else [])
                           if v is not None] for r in (a, b))
    if not values_a or not values_b:
        return None
    (stats,) = placements(values_b, [values_a])
    return {"benchmark": a.benchmark, "subject": str(a.path), "measure": measure,
            "n": stats["n_published"] + stats["n_this"], **stats, "mdd": None,
            "mdd_reason": "unpaired: no detectable difference is computed",
            "n_subject": stats["n_published"], "published": stats["published"]}


def _nothing_paired(a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> str:
    """Why two runs' per-item values gave no pair: no shared measure, or no shared item.

    >>> _nothing_paired({"m": {"1": 0.5}}, {})
    'the second run has no item value (no unit finished, or none valid)'
    >>> _nothing_paired({"m": {"1": 0.5}}, {"m": {"2": 0.1}})
    'no item measured by both runs (the first has 1, the second 1, none shared: other items or --limit)'
    """
    if not b:
        return "the second run has no item value (no unit finished, or none valid)"
    shared = sorted(set(a) & set(b))
    if not shared:
        return (f"no measure in both runs (the first has {', '.join(sorted(a))}, the second "
                f"{', '.join(sorted(b))})")
    m = shared[0]
    for run, values in (("first", a), ("second", b)):
        if not values[m]:
            return (f"the {run} run has no value of {m} on any item (no answer was valid or "
                    "parsed: see its report)")
    return (f"no item measured by both runs (the first has {len(a[m])}, the second "
            f"{len(b[m])}, none shared: other items or --limit)")


# --- into the run's and the profile's reports -----------------------------------------------

def write_paired(run_dir: Path) -> Path | None:
    """Write ``paired.json`` into a finished run directory when its benchmark has published
    per-item results (the rows, or why there are none); never fails the run."""
    run = read_run(run_dir)
    if source_protocol(run.manifest.benchmark) is None:
        return None
    try:
        rows, why = published_rows(run)
    except (CrevalError, OSError, ValueError) as exc:  # the run's scores are written already
        rows, why = [], f"the comparison failed: {exc}"
    report = PairedReport(finish(rows), [] if why is None else [
        {"run": str(run_dir), "benchmark": run.manifest.benchmark, "reason": why}])
    path = run_dir / PAIRED_JSON
    path.write_text(json.dumps(report.to_json(), indent=1), encoding="utf-8")
    return path


def attach_paired(doc: dict[str, Any], out: Path) -> None:
    """Put each profile measurement's paired comparisons (``measurement["paired"]``) into a
    profile document, Holm-corrected across the whole profile, and a line per measurement
    into the summary's standing; a run that could not be compared leaves its reason in
    ``measurement["paired_reason"]``.

    The profile's own measures are compared where a source has them (JCQ: the rubric mean
    and originality); a source of other measures only (NeoCoder: pass@1 per state, behind
    convergent creativity) is shown with the benchmark's first measurement.
    """
    rows: list[dict[str, Any]] = []
    reasons: dict[str, str] = {}
    for fam in doc["families"]:
        for entry in fam["runs"]:
            if entry.get("missing") or source_protocol(entry["benchmark"]) is None:
                continue
            keys = {m["key"] for m in fam["measurements"] if m["benchmark"] == entry["benchmark"]}
            try:
                found, why = published_rows(read_run(out / entry["dir"]))
            except (CrevalError, OSError, ValueError) as exc:
                found, why = [], f"the comparison failed: {exc}"
            rows += [r for r in found if r["measure"] in keys] or found
            if why:
                reasons[entry["benchmark"]] = why
    finish(rows)
    shown: set[int] = set()
    for fam in doc["families"]:
        for m in fam["measurements"]:
            mine = [r for r in rows if r["benchmark"] == m["benchmark"] and id(r) not in shown
                    and (r["measure"] == m["key"] or not _has_card(doc, r))]
            shown |= {id(r) for r in mine}
            if mine:
                m["paired"] = mine
                doc.setdefault("summary", {}).setdefault("standing", []).append(
                    _standing_line(m["label"], m["key"], mine))
            elif m["benchmark"] in reasons:
                m["paired_reason"] = reasons[m["benchmark"]]


def _has_card(doc: dict[str, Any], row: dict[str, Any]) -> bool:
    return any(m["benchmark"] == row["benchmark"] and m["key"] == row["measure"]
               for fam in doc["families"] for m in fam["measurements"])


def _standing_line(label: str, key: str, rows: list[dict[str, Any]]) -> str:
    """The summary's line of one measurement's paired comparisons (a row of another measure
    than the measurement's ``key`` names its measure).

    >>> _standing_line("JCQ mean", "mean", [
    ...     {"subject": "A", "measure": "mean", "verdict": "behind"},
    ...     {"subject": "B", "measure": "mean", "verdict": "not distinguishable"}])
    'JCQ mean, item by item against 2 published models (Holm-corrected): behind A; not distinguishable from B'
    """
    parts = []
    for verdict, word in (("ahead", "ahead of"), ("behind", "behind"),
                          ("not distinguishable", "not distinguishable from")):
        names = [r["subject"] if r["measure"] == key else f"{r['subject']} on {r['measure']}"
                 for r in rows if r["verdict"] == verdict]
        if names:
            parts.append(f"{word} {', '.join(sorted(set(names)))}")
    subjects = len({r["subject"] for r in rows})
    return (f"{label}, item by item against {subjects} published model{'s' * (subjects != 1)} "
            f"(Holm-corrected): {'; '.join(parts)}")
