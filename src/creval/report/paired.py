"""Paired comparisons in words, tables and HTML: "GPT-4o minus this model: +0.12 [0.05, 0.19],
p = 0.003 after Holm", and whether this model is ahead, behind or not distinguishable.

The rows come from :mod:`creval.evaluation.compare.paired` (``paired.json`` in a run directory,
``measurement["paired"]`` in a profile document); this module only renders them.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from creval.report.markdown import markdown_table

PAIRED_JSON = "paired.json"
HOW_TO_READ = (
    "Each row pairs this model's per-item values with a published model's on the same items. "
    "The difference is published minus this model (positive: the published model scored "
    "higher), with a 95% interval of the mean difference (t with Hall's skewness correction, "
    "from 10 items); p is a paired sign-flip permutation test, "
    "p_holm the same after Holm's correction across every comparison of this report. "
    "p_holm < 0.05 says which is ahead; otherwise the two are not distinguishable on these "
    "items, and a true difference smaller than mdd (80% power) could well go unseen. English "
    "DAT is compared unpaired (test 'unpaired') with the five released models and the people, "
    "every list re-scored by this run's scorer: a Welch interval with Hall's skewness "
    "correction (from 30 trials a side) and a permutation p of the difference in means."
)


def _num(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3g}" if signed else f"{value:.3g}"


def _p(p: float) -> str:
    """A p-value, short.

    >>> _p(0.00312), _p(0.5), _p(1e-7)
    ('0.003', '0.5', '< 0.0001')
    """
    return "< 0.0001" if p < 1e-4 else f"{p:.1g}" if p < 0.01 else f"{p:.2f}".rstrip("0").rstrip(".")


def standing(row: dict[str, Any]) -> str:
    """Where this model stands against the row's subject, and why.

    >>> row = {"subject": "GPT-4o", "difference": 0.12, "low": 0.05, "high": 0.19,
    ...        "p": 0.001, "p_holm": 0.003, "mdd": 0.04, "n": 700, "verdict": "behind"}
    >>> standing(row)
    'behind GPT-4o (p = 0.003 after Holm < 0.05)'
    >>> standing({**row, "verdict": "not distinguishable", "p_holm": 0.4})
    'not distinguishable from GPT-4o (p = 0.4 after Holm; 700 items detect about 0.04 at 80% power)'
    """
    if row.get("note"):  # no spread in the differences: nothing measured to distinguish
        return f"{row['verdict']} against {row['subject']}: {row['note']}"
    if row["verdict"] == "behind":
        return f"behind {row['subject']} (p = {_p(row['p_holm'])} after Holm < 0.05)"
    if row["verdict"] == "ahead":
        return f"ahead of {row['subject']} (p = {_p(row['p_holm'])} after Holm < 0.05)"
    if row.get("test") == "unpaired":
        return (f"not distinguishable from {row['subject']} (p = {_p(row['p_holm'])} after Holm; "
                f"unpaired, {row.get('n_published')} vs {row.get('n_this')} trials)")
    if row.get("mdd") is None:
        why = row.get("mdd_reason") or "no detectable difference computed"
        return f"not distinguishable from {row['subject']} (p = {_p(row['p_holm'])} after Holm; {why})"
    return (f"not distinguishable from {row['subject']} (p = {_p(row['p_holm'])} after Holm; "
            f"{row['n']} items detect about {_num(row['mdd'])} at 80% power)")


def sentence(row: dict[str, Any], *, this: str = "this model") -> str:
    """One comparison in a line.

    >>> sentence({"subject": "GPT-4o", "difference": 0.12, "low": 0.05, "high": 0.19,
    ...           "p_holm": 0.003})
    'GPT-4o minus this model: +0.12 [0.05, 0.19], p = 0.003 after Holm'
    """
    interval = (f"[{_num(row['low'])}, {_num(row['high'])}]" if row["low"] is not None
                else f"({row.get('interval_note') or 'no interval'})")
    return (f"{row['subject']} minus {this}: {_num(row['difference'], signed=True)} "
            f"{interval}, p = {_p(row['p_holm'])} after Holm")


def placement_text(p: Mapping[str, Any]) -> str:
    """One placement in words.

    >>> placement_text({"difference": 1.5, "low": 0.5, "high": 2.5, "p_holm": 0.01,
    ...                 "verdict": "behind", "n_published": 40, "n_this": 20})
    'published - this run = 1.5 [0.5, 2.5], p_holm 0.01 (unpaired, 40 vs 20 lists): behind'
    >>> placement_text({"difference": 1.5, "low": None, "high": None, "p_holm": 0.01,
    ...                 "interval_note": "n=8: too few items for an interval (needs 30)",
    ...                 "verdict": "behind", "n_published": 40, "n_this": 8})[:74]
    'published - this run = 1.5 (n=8: too few items for an interval (needs 30))'
    """
    interval = (f"[{p['low']:.3g}, {p['high']:.3g}]" if p.get("low") is not None
                else f"({p.get('interval_note') or 'no interval'})")
    return (f"published - this run = {p['difference']:.3g} {interval}, "
            f"p_holm {p['p_holm']:.2g} (unpaired, {p['n_published']} vs {p['n_this']} lists): "
            f"{p['verdict']}")


def rows_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows as shown: rounded, with the standing in words."""
    return [{"benchmark": r["benchmark"], "measure": r["measure"], "subject": r["subject"],
             "test": r.get("test", "paired"), "n": _n(r),
             "difference": _num(r["difference"], signed=True) + (f" {r['unit']}" if r.get("unit") else ""),
             "95% interval": (f"[{_num(r['low'])}, {_num(r['high'])}]" if r["low"] is not None
                              else r.get("interval_note") or "-"), "p": _p(r["p"]),
             "p_holm": _p(r["p_holm"]), "mdd": _num(r.get("mdd")), "verdict": r["verdict"],
             "verdict of": r.get("verdict_of", "this run")}
            for r in rows]


def _n(row: dict[str, Any]) -> str:
    """The row's items: paired (with those left out of either side) or unpaired (each side).

    >>> _n({"n": 5, "left_out_subject": 2, "left_out_this": 0})
    '5 (left out: 2 of the subject, 0 of this)'
    >>> _n({"test": "unpaired", "n": 30, "n_published": 10, "n_this": 20})
    '10 vs 20'
    """
    if row.get("test") == "unpaired":
        return f"{row.get('n_published')} vs {row.get('n_this')}"
    left = (row.get("left_out_subject"), row.get("left_out_this"))
    if any(left):
        return f"{row['n']} (left out: {left[0]} of the subject, {left[1]} of this)"
    return str(row["n"])


HOW_TO_READ_RUNS = (
    "Each row pairs the two runs' per-item values on the same items. The difference is the "
    "first run minus the second, with a 95% interval of the mean difference (t with Hall's "
    "skewness correction, from 10 items); p is a paired sign-flip "
    "permutation test, p_holm the same after Holm's correction across every row. p_holm < 0.05 "
    "says which run is ahead (the verdict is the second run's standing, named in 'verdict of': "
    "behind means the first scored higher); otherwise they are not distinguishable, and a "
    "true difference smaller than mdd (80% power) could well go unseen. DAT runs are compared "
    "unpaired (test 'unpaired': a trial is one draw of one prompt, so no trial has a partner): "
    "a Welch interval with Hall's skewness correction of the difference in means (from 30 "
    "trials a side) and a permutation p."
)


def render_paired_text(report: dict[str, Any], *, runs: bool = False) -> str:
    """``creval compare --published`` (or, with ``runs``, ``--paired``) console output."""
    out = []
    if report["rows"]:
        out += [markdown_table(rows_table(report["rows"])), "", HOW_TO_READ_RUNS if runs else HOW_TO_READ]
    else:
        out.append("No paired comparison could be made.")
    for s in report["skipped"]:
        out.append(f"- {s['benchmark']} ({s['run']}): not compared: {s['reason']}")
    return "\n".join(out)


def read_paired(run_dir: Path) -> dict[str, Any] | None:
    """A run directory's ``paired.json``, when there is one."""
    path = Path(run_dir) / PAIRED_JSON
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    return doc if isinstance(doc, dict) and isinstance(doc.get("rows"), list) else None


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def paired_html(rows: list[dict[str, Any]], reason: str | None = None) -> str:
    """A block of paired comparisons for report.html and profile.html (the rows of one
    measure or one run), or the reason there are none."""
    if not rows:
        if reason is None:
            return ""
        return (f"<div class='paired notcomp'>Paired comparison with published per-item results: "
                f"not made ({_e(reason)}).</div>")
    items = "".join(
        f"<li data-subject='{_e(r['subject'])}' data-measure='{_e(r['measure'])}'>"
        f"<b>{_e(r['verdict'])}</b> &middot; {_e(sentence(r))} "
        f"<span class=muted>({_e(r['measure'])}, {r['n']} paired items; {_e(standing(r))})</span></li>"
        for r in rows)
    return (f"<details class=paired open><summary>Item by item against {len(rows)} published "
            f"model(s): ahead, behind or not distinguishable</summary><ul>{items}</ul>"
            f"<p class=note>{_e(HOW_TO_READ)}</p></details>")


def paired_section(run_dir: Path) -> str:
    """report.html's block from the run's ``paired.json`` ("" when there is none)."""
    doc = read_paired(run_dir)
    if doc is None:
        return ""
    reason = "; ".join(s["reason"] for s in doc.get("skipped", [])) or None
    return paired_html(doc["rows"], reason)


def paired_markdown(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown lines of one measure's paired comparisons (profile.md)."""
    if not rows:
        return []
    return [markdown_table(rows_table(rows)), "", HOW_TO_READ, ""]
