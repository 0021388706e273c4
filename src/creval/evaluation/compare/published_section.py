"""The run report's section of published values: every published value of every measure a
run has (not only a profile's headline measures), placed by :mod:`creval.evaluation.compare.comparability`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from creval.evaluation.compare.comparability import check_run
from creval.reader import read_run
from creval.records import Scores

PUBLISHED_SECTION = "Published values of these measures"


def with_published_section(run_dir: Path, scores: Scores) -> Scores:
    """``scores`` with a section placing every published value of every measure the run has
    (not only a profile's headline ones), for the run's own report; unchanged when no
    measure of the run has a published value."""
    kept = [s for s in scores.sections if s.get("title") != PUBLISHED_SECTION]
    if not (run_dir / "manifest.json").is_file():
        return scores.model_copy(update={"sections": kept})
    checks = check_run(read_run(run_dir), scores=scores)
    if not checks:
        return scores.model_copy(update={"sections": kept})
    rows = [{"measure": c.measure, "ours": c.ours, "subject": c.subject,
             "published": f"{c.value:.4g} {c.unit}" if c.unit else c.value,
             "protocol": c.protocol, "comparable": _placed(c.placement) if c.comparable else "no",
             "why not": "; ".join(c.reasons) or "-"} for c in checks]
    placed = sum(c.comparable for c in checks)
    text = (f"{placed} of {len(checks)} published value(s) were measured the way this run "
            "measured and may stand beside its numbers; the others say every difference. "
            f"`creval references check {run_dir} --json` gives the same as JSON (see "
            "docs/references.md).")
    items = {c.measure: c.items for c in checks if c.items is not None}
    if items:
        text += " " + "; ".join(f"{m}: {i.line()}" for m, i in items.items()) + "."
    notes = sorted({n for c in checks for n in c.notes})
    if notes:
        text += " Compared by effect: " + "; ".join(notes) + "."
    inferred = sorted({n for c in checks if c.comparable for n in c.inferred})
    if inferred:
        text += " Comparable under protocol values the paper does not print: " + "; ".join(inferred) + "."
    section = {"title": PUBLISHED_SECTION, "text": text, "rows": rows,
               "columns": ["measure", "ours", "subject", "published", "protocol", "comparable", "why not"]}
    return scores.model_copy(update={"sections": [*kept, section]})


def _placed(placement: Any) -> str:
    """A comparable value's cell: yes, with the unpaired placement where there is one."""
    if not placement:
        return "yes"
    from creval.report.paired import placement_text

    return "yes: " + placement_text(placement)
