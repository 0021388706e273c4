"""Does a metric tell the creative set from the uncreative one? (seed 002, Table 2)

For each per-text metric: mean and standard deviation per set, the direction seed 002
reads as "more creative", AUROC in that direction with DeLong's 95% interval on the logit
scale, accuracy and F1 at the best threshold and at a fixed, label-free one (the median of
all scores), Cohen's d with its noncentral t interval (both intervals from
``SEPARATION_MIN_PER_SET`` texts a set, :mod:`creval.metrics.separation_ci`), the overlap of the two distributions; and the rank
correlations between metrics on the texts they all scored.
"""

from __future__ import annotations

import statistics
from itertools import combinations
from typing import Any

from creval.metrics.separation import (
    auroc,
    best_threshold,
    cohens_d,
    overlap,
    threshold_metrics,
)
from creval.metrics.separation_ci import SEPARATION_MIN_PER_SET, auroc_interval, cohens_d_interval
from creval.metrics.stats import spearman

#: metric -> (label, +1 when higher reads as more creative, -1 when lower does)
METRICS: dict[str, tuple[str, int]] = {
    "ci_mean": ("Creativity Index (mean L-uniqueness)", 1),
    "ci_sum": ("Creativity Index (sum of L-uniqueness)", 1),
    "ppl": ("perplexity", 1),
    "tpt": ("templates per token", -1),
    "judge": ("LLM judge (the domain's creativity criterion)", 1),
    "sns": ("Semantic Novelty Score", 1),
}


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def separation_row(name: str, pos: list[float], neg: list[float]) -> dict[str, Any]:
    """One row of the per-metric table (scores oriented by the metric's direction)."""
    label, direction = METRICS.get(name, (name, 1))
    row: dict[str, Any] = {
        "metric": name, "direction": "higher" if direction > 0 else "lower",
        "n_creative": len(pos), "n_uncreative": len(neg),
        "mean_creative": _round(statistics.fmean(pos)) if pos else None,
        "std_creative": _round(statistics.stdev(pos)) if len(pos) > 1 else None,
        "mean_uncreative": _round(statistics.fmean(neg)) if neg else None,
        "std_uncreative": _round(statistics.stdev(neg)) if len(neg) > 1 else None,
    }
    if not pos or not neg:
        return row | {"note": "a set has no scored text"}
    p = [direction * v for v in pos]
    n = [direction * v for v in neg]
    best = best_threshold(p, n)
    fixed = threshold_metrics(p, n, statistics.median(p + n))
    row |= {
        "auroc": _round(auroc(p, n)), **_auroc_interval(p, n),
        "best_accuracy": _round(best.accuracy), "best_f1": _round(best.f1),
        "best_threshold": _round(direction * best.threshold) if best.threshold != float("inf") else None,
        "median_accuracy": _round(fixed.accuracy), "median_f1": _round(fixed.f1),
    }
    try:
        d = cohens_d(p, n)
        ci = cohens_d_interval(p, n)
        row |= {"cohens_d": _round(d), "d_ci_low": _round(ci[0]) if ci else None,
                "d_ci_high": _round(ci[1]) if ci else None, "overlap": _round(overlap(d))}
    except ValueError as exc:
        row["note"] = str(exc)
    return row


def _auroc_interval(pos: list[float], neg: list[float]) -> dict[str, Any]:
    """``auroc_low``/``auroc_high``: DeLong's 95% interval of the AUROC on the logit scale;
    None, with ``interval_note`` saying why, below ``SEPARATION_MIN_PER_SET`` texts a set."""
    ci = auroc_interval(pos, neg)
    if ci is None:
        return {"auroc_low": None, "auroc_high": None, "interval_note": (
            f"{len(pos)} creative and {len(neg)} uncreative texts: too few for an interval "
            f"(needs {SEPARATION_MIN_PER_SET} a set)")}
    return {"auroc_low": _round(ci[0]), "auroc_high": _round(ci[1])}


def separation_table(per_text: dict[str, dict[str, float]], labels: dict[str, int]) -> list[dict[str, Any]]:
    """A row per metric that scored at least one text."""
    names = [m for m in METRICS if any(m in v for v in per_text.values())]
    rows = []
    for name in names:
        pos = [v[name] for tid, v in per_text.items() if name in v and labels.get(tid) == 1]
        neg = [v[name] for tid, v in per_text.items() if name in v and labels.get(tid) == 0]
        rows.append(separation_row(name, pos, neg))
    return rows


def metric_agreement(per_text: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """Spearman's rho between every two metrics over the texts both scored."""
    names = [m for m in METRICS if any(m in v for v in per_text.values())]
    rows = []
    for a, b in combinations(names, 2):
        pairs = [(v[a], v[b]) for v in per_text.values() if a in v and b in v]
        if len(pairs) < 3:
            continue
        corr = spearman([x for x, _ in pairs], [y for _, y in pairs])
        rows.append({"metric_a": a, "metric_b": b, "n": corr.n, "spearman": _round(corr.r),
                     "p": _round(corr.p), **({"note": corr.note} if corr.note else {})})
    return rows
