"""The plots of the built-in benchmarks, as plot specs (see :mod:`creval.report.plots`).

Each function looks at what a run's ``scores.json`` holds and returns the specs it can
draw from it (none when the data is not there), so a partial or older run still gets the
plots its data supports. A benchmark can declare more in ``scores["plots"]``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

Spec = dict[str, Any]

NEOGAUGE_SERIES = (
    ("neogauge", "NeoGauge@t"), ("cumulative_neogauge", "cumulative NeoGauge"),
    ("convergent", "convergent"), ("divergent", "divergent"),
    ("human_convergent", "human convergent"), ("human_divergent", "human divergent"),
)
ENTROPIES = (("length_normalised", "length-normalised"),
             ("probability_weighted", "probability-weighted"), ("discrete", "discrete"))
JUDGE_ROW_FIELDS = {"judge", "solutions", "overall", "parse_failures", "tokens", "tokens_by_role"}


def _column(rows: Any, name: str) -> list[float | None]:
    if not isinstance(rows, list):
        return []
    return [row.get(name) for row in rows if isinstance(row, dict) and name in row]


def _section(scores: dict[str, Any], title: str) -> list[dict[str, Any]]:
    for section in scores.get("sections") or []:
        if isinstance(section, dict) and section.get("title") == title:
            rows = section.get("rows")
            return rows if isinstance(rows, list) else []
    return []


def _histogram(title: str, values: list[Any], xlabel: str) -> Spec:
    kept = [v for v in values if v is not None]
    note = f"{len(kept)} value(s)" + (f"; {len(values) - len(kept)} without a score (excluded)"
                                      if len(kept) < len(values) else "")
    return {"title": title, "kind": "histogram", "data": {"values": kept}, "xlabel": xlabel,
            "note": note}


def dat_plots(scores: dict[str, Any]) -> list[Spec]:
    if scores.get("benchmark") != "dat":
        return []
    out = []
    values = _column(scores.get("table"), "score")
    if any(v is not None for v in values):
        out.append(_histogram("DAT score distribution", values, "DAT score (per trial)"))
    reasons = (scores.get("summary") or {}).get("invalid_reasons") or {}
    if reasons:
        out.append({"title": "Why DAT trials were invalid", "kind": "bar",
                    "data": {"labels": list(reasons), "values": list(reasons.values())},
                    "ylabel": "trials"})
    return out


def sat_plots(scores: dict[str, Any]) -> list[Spec]:
    values = _column(scores.get("table"), "distance")
    if scores.get("benchmark") != "sat" or not any(v is not None for v in values):
        return []
    return [_histogram("SAT distance distribution", values,
                       "cosine distance, original vs rewrite (per story)")]


def rubric_plots(scores: dict[str, Any]) -> list[Spec]:
    tasks = (scores.get("rubric") or {}).get("tasks") or {}
    if not tasks:
        return []
    columns = list(dict.fromkeys(c for row in tasks.values() for c in row if c != "mean"))
    columns.append("mean")
    return [{"title": "Judge scores: task x criterion", "kind": "heatmap",
             "data": {"rows": list(tasks), "columns": columns,
                      "values": [[row.get(c) for c in columns] for row in tasks.values()]},
             "note": "Mean rubric score per task and criterion (mean = mean over criteria)."}]


def entropy_plots(scores: dict[str, Any]) -> list[Spec]:
    steps = [s for s in _section(scores, "Steps") if isinstance(s, dict) and "discrete" in s]
    if not steps:
        return []
    numbers = sorted({s["step"] for s in steps if isinstance(s.get("step"), (int, float))})
    series: dict[str, list[float | None]] = {}
    for name, label in ENTROPIES:
        means = []
        for step in numbers:
            values = [s[name] for s in steps if s.get("step") == step and s.get(name) is not None]
            means.append(statistics.fmean(values) if values else None)
        if any(v is not None for v in means):
            series[label] = means
    name, label = next((n, lab) for n, lab in ENTROPIES if any(s.get(n) is not None for s in steps))
    out = [_histogram(f"Semantic entropy distribution ({label}, per step)",
                      [s.get(name) for s in steps], "semantic entropy (nats)")]
    if numbers:
        out.insert(0, {"title": "Semantic entropy per step", "kind": "line",
                       "data": {"x": numbers, "series": series}, "xlabel": "step",
                       "ylabel": "semantic entropy (nats)",
                       "note": "Mean over solutions of the steps with enough valid candidates."})
    return out


def judge_plots(scores: dict[str, Any]) -> list[Spec]:
    rows = [r for r in _section(scores, "Judges") if isinstance(r, dict) and r.get("judge")]
    criteria = list(dict.fromkeys(k for r in rows for k in r if k not in JUDGE_ROW_FIELDS))
    if not rows or not criteria:
        return []
    return [{"title": "Judge verdicts per criterion", "kind": "bar",
             "data": {"labels": criteria,
                      "series": {str(r["judge"]): [r.get(c) for c in criteria] for r in rows}},
             "ylabel": "mean verdict",
             "note": "Mean verdict per criterion over the judged solutions (yes = 1, no = 0)."}]


def neogauge_plots(scores: dict[str, Any]) -> list[Spec]:
    states = [s for s in scores.get("states") or [] if isinstance(s, dict) and "t" in s]
    series = {label: [s.get(key) for s in states] for key, label in NEOGAUGE_SERIES
              if any(s.get(key) is not None for s in states)}
    if not states or not series:
        return []
    return [{"title": "NeoGauge per state", "kind": "line",
             "data": {"x": [s["t"] for s in states], "series": series},
             "xlabel": "state t (number of denied techniques)", "ylabel": "score"}]


def choice_plots(scores: dict[str, Any]) -> list[Spec]:
    accuracy = {k.removeprefix("acc_"): v for k, v in (scores.get("headline") or {}).items()
                if k.startswith("acc_") and v is not None}
    if not accuracy:
        return []
    return [{"title": "Choice accuracy per question type", "kind": "bar",
             "data": {"labels": list(accuracy), "values": list(accuracy.values())},
             "ylabel": "accuracy"}]


def rounds_plots(scores: dict[str, Any]) -> list[Spec]:
    rows = [r for r in _section(scores, "Rounds to DAESO") if isinstance(r, dict)]
    if not rows:
        return []
    return [{"title": "Rounds to DAESO", "kind": "bar",
             "data": {"labels": [str(r.get("round")) for r in rows],
                      "values": [r.get("games") for r in rows]},
             "xlabel": "round", "ylabel": "games"}]


def metric_validity_plots(scores: dict[str, Any]) -> list[Spec]:
    """Seed 002: each metric's creative and uncreative distributions, L-uniqueness against L
    (Figure 2) and template rate against n (Figure 4): the figures the run also writes as PNG.

    >>> specs = metric_validity_plots({"benchmark": "metric-validity",
    ...     "values": {"perplexity": {"creative": [9.0, 12.0], "uncreative": [4.0]}},
    ...     "creativity_index": {"uniqueness_by_l": [{"L": 5, "creative": 0.9, "uncreative": 0.4}]}})
    >>> [(p["title"], p["kind"]) for p in specs]
    [('perplexity: creative vs uncreative', 'histogram'), ('L-uniqueness by span length L', 'line')]
    """
    if scores.get("benchmark") != "metric-validity":
        return []
    out: list[Spec] = []
    for metric, sets in (scores.get("values") or {}).items():
        series = {name: sets.get(name) or [] for name in ("creative", "uncreative")
                  if isinstance(sets, dict) and sets.get(name)}
        if series:
            out.append({"title": f"{metric}: creative vs uncreative", "kind": "histogram",
                        "data": {"series": series, "bins": 15}, "xlabel": metric,
                        "ylabel": "texts"})
    lines = (("creativity_index", "uniqueness_by_l", "L", "L-uniqueness by span length L",
              "minimum span length L (words)", "mean L-uniqueness"),
             ("templates", "rate_by_n", "n", "Template rate by template length n",
              "template length n (POS tags)", "template rate"))
    for group, key, x, title, xlabel, ylabel in lines:
        rows = [r for r in (scores.get(group) or {}).get(key) or [] if isinstance(r, dict)]
        if rows:
            out.append({"title": title, "kind": "line",
                        "data": {"x": [r.get(x) for r in rows],
                                 "series": {name: [r.get(name) for r in rows]
                                            for name in ("creative", "uncreative")}},
                        "xlabel": xlabel, "ylabel": ylabel})
    return out


BUILTIN: tuple[Callable[[dict[str, Any]], list[Spec]], ...] = (
    dat_plots, sat_plots, rubric_plots, entropy_plots, judge_plots, neogauge_plots,
    choice_plots, rounds_plots, metric_validity_plots,
)


def builtin_plots(scores: dict[str, Any]) -> list[Spec]:
    """The plot specs the scores of a built-in benchmark support.

    >>> [p["title"] for p in builtin_plots({"benchmark": "sat", "table": [{"distance": 0.4}]})]
    ['SAT distance distribution']
    >>> builtin_plots({"benchmark": "sat", "table": []})
    []
    """
    return [spec for make in BUILTIN for spec in make(scores)]
