"""The noise floor in reports: a run's variance split (``scores.noise``, from ``--repeats``)
in report.md and report.html, and, in ``creval compare``, which differences between runs are
smaller than the noise of sampling and judging.

The renderers take the table function of the report they write into (``markdown_table``,
``html_table``), so that those modules can call these without an import cycle.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from creval.reader import Run
from creval.records import Scores

EXPLAIN = (
    "Shares of each measure's variance: items (which item it is), samples (which answer the "
    "model drew for the item) and judge (which verdict the judge gave that answer); '-' where "
    "the run did not repeat that level (its noise is then in the level above). Reliability is "
    "the correlation of two independent draws of one item (ICC(1), test-retest), without an "
    "interval: none of the methods tried covers at 95% on skewed data (bench/README.md). Floor: two "
    "runs of this model over these items, one draw per item each, differ by less than this "
    "95% of the time from sampling and judging alone; a difference between models smaller "
    "than the floor is not distinguishable from noise."
)
COLUMNS = ["measure", "items", "samples", "judge", "reliability", "floor", "n_items", "n_values",
           "repeats"]


def noise_rows(scores: Scores) -> list[dict[str, Any]]:
    """One row per measure of ``scores.noise`` (a measure that could not be split says why)."""
    rows = []
    for measure, entry in scores.noise.items():
        if "error" in entry:
            rows.append({"measure": measure, "items": None, "note": entry["error"]})
            continue
        row = {"measure": measure, **{c: entry.get(c) for c in COLUMNS[1:]}}
        interval = (entry.get("interval") or {}).get("reliability")
        if interval:
            row["reliability"] = f"{entry['reliability']:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"
        rows.append(row)
    return rows


def retest_lines(scores: Scores) -> list[str]:
    """DAT: the model's test-retest (repeat 1 against repeat 2) beside the people's."""
    out = []
    for measure, entry in scores.noise.items():
        model, people = entry.get("retest"), entry.get("people_retest")
        if model:
            out.append(f"{measure}, this model: repeat 1 against repeat 2 over {model['n']} trials, "
                       f"r = {_r(model)}; one "
                       f"answer's spread around its trial's level sd {model['within_sd']:.2f}.")
        if people:
            out.append(f"{measure}, people ({people['source']}, n = {people['n']}): "
                       f"r = {_r(people)}; one "
                       f"test's spread around the person's level sd {people['within_sd']:.2f}, "
                       f"mean change {people['mean_change']:+.2f}. People's scores are under "
                       "GloVe 840B: compare the correlations and spreads, not the levels.")
    return out


def _r(entry: dict[str, Any]) -> str:
    """``r [low, high]``, or r with its n where too few subjects give no interval.

    >>> _r({"r": 0.5, "low": 0.1, "high": 0.8, "n": 30}), _r({"r": 0.5, "low": None, "high": None, "n": 4})
    ('0.50 [0.10, 0.80]', '0.50 (n = 4: too few trials for an interval)')
    """
    if entry.get("low") is None or entry.get("high") is None:
        return f"{entry['r']:.2f} (n = {entry['n']}: too few trials for an interval)"
    return f"{entry['r']:.2f} [{entry['low']:.2f}, {entry['high']:.2f}]"


Table = Callable[[list[dict[str, Any]]], str]


def noise_markdown(scores: Scores, table: Table) -> list[str]:
    """The "Noise floor" block of report.md (nothing without repeats)."""
    if not scores.noise:
        return []
    out = ["", "## Noise floor (repeats)", "", EXPLAIN, "", table(noise_rows(scores))]
    out += [f"- {line}" for line in retest_lines(scores)]
    return out


def noise_html(scores: Scores, table: Table) -> str:
    """The same block for report.html."""
    if not scores.noise:
        return ""
    lines = "".join(f"<li>{escape(line)}</li>" for line in retest_lines(scores))
    return (f'<h3 id="noise">Noise floor (repeats)</h3><p class="note">{escape(EXPLAIN)}</p>'
            + table(noise_rows(scores)) + (f"<ul>{lines}</ul>" if lines else ""))


def _noise_var(scores: Scores, measure: str) -> float | None:
    entry = scores.noise.get(measure, {})
    variance = entry.get("variance") or {}
    if "error" in entry or variance.get("items") is None:
        return None
    return float(variance.get("samples") or 0.0) + float(variance.get("judge") or 0.0)


def _values(scores: Scores, measure: str) -> int:
    return sum(v is not None for v in scores.per_item.get(measure, []))


def compare_noise(runs: Sequence[Run], *, z: float = 1.959964) -> list[dict[str, Any]]:
    """For each benchmark and measure that some run split (``--repeats``), each pair of runs:
    the difference of their headlines and the floor it must pass,
    ``z * sqrt(v_a / m_a + v_b / m_b)`` (``v`` the noise variance of one draw, from the run's
    own split or else the other's; ``m`` the values its headline averages), and whether it is
    ``within noise``."""
    by_bench: dict[str, list[Run]] = {}
    for run in runs:
        if run.scores is not None:
            by_bench.setdefault(run.benchmark, []).append(run)
    rows: list[dict[str, Any]] = []
    for bench, group in by_bench.items():
        measures = dict.fromkeys(m for r in group for m in r.scores.noise if r.scores)  # type: ignore[union-attr]
        for measure in measures:
            for i, a in enumerate(group):
                for b in group[i + 1:]:
                    row = _pair(bench, measure, a, b, z)
                    if row is not None:
                        rows.append(row)
    return rows


def _pair(bench: str, measure: str, a: Run, b: Run, z: float) -> dict[str, Any] | None:
    sa, sb = a.scores, b.scores
    assert sa is not None and sb is not None
    va, vb = _noise_var(sa, measure), _noise_var(sb, measure)
    ha, hb = sa.headline.get(measure), sb.headline.get(measure)
    ma, mb = _values(sa, measure), _values(sb, measure)
    if (va is None and vb is None) or not isinstance(ha, int | float) or not isinstance(hb, int | float):
        return None
    if ma == 0 or mb == 0:
        return None
    va, vb = va if va is not None else vb, vb if vb is not None else va
    floor = z * math.sqrt(float(va) / ma + float(vb) / mb)  # type: ignore[arg-type]
    difference = float(ha) - float(hb)
    return {"benchmark": bench, "measure": measure, "a": a.model, "b": b.model,
            "difference": round(difference, 6), "floor": round(floor, 6),
            "verdict": "within noise" if abs(difference) < floor else "beyond noise"}


def compare_noise_markdown(runs: Sequence[Run], table: Table) -> str:
    """``creval compare``'s "Noise floor" section, or "" when no run has repeats."""
    rows = compare_noise(runs)
    if not rows:
        return ""
    return ("## Noise floor\n\nDifferences (a minus b) against the noise of sampling and "
            "judging measured by `--repeats` (95%): 'within noise' means the runs are not "
            "distinguishable by this measure.\n\n" + table(rows))


def profile_noise(scores: Scores, key: str, refs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A profile measurement's noise (its run had ``--repeats``): the floor, the shares and
    the reliability, and the published models (comparable ones only) whose value differs
    from this model's by less than the floor (``within_noise``: not distinguishable). None
    without a split."""
    entry = scores.noise.get(key)
    value = scores.headline.get(key)
    if not entry or "error" in entry or not isinstance(value, int | float):
        return None
    floor = float(entry["floor"])
    placed = [r for r in refs if r.get("comparable") and isinstance(r.get("value"), int | float)]
    within = [r["subject"] for r in placed if abs(float(value) - r["value"]) < floor]
    return {"floor": floor, "repeats": entry.get("repeats"), "reliability": entry.get("reliability"),
            **{k: entry.get(k) for k in ("items", "samples", "judge")}, "placed": len(placed),
            "within_noise": within}


def noise_sentence(noise: dict[str, Any] | None) -> str:
    """One line for a profile page about a measurement's noise floor ("" without one).

    >>> noise_sentence({"floor": 2.4, "repeats": 3, "reliability": 0.19, "placed": 2,
    ...                 "within_noise": ["gpt-4"]})
    'Noise floor 2.4 (3 repeats; reliability 0.19): not distinguishable from gpt-4.'
    """
    if not noise:
        return ""
    within = noise["within_noise"]
    tail = (f"not distinguishable from {', '.join(within)}" if within
            else "every published model placed beside it differs by more" if noise.get("placed")
            else "no published model is placed beside it")
    return (f"Noise floor {noise['floor']:.3g} ({noise['repeats']} repeats; reliability "
            f"{noise['reliability']:.2f}): {tail}.")
