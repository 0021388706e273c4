"""Does a metric tell the creative set from the uncreative one? (seed 002, Table 2)

For each per-text metric: mean and standard deviation per set, the direction seed 002
reads as "more creative", AUROC in that direction with a 95% stratified bootstrap interval
(texts resampled within the creative and within the uncreative set, seeded), accuracy and
F1 at the best threshold and at a fixed, label-free one (the median of all scores), Cohen's
d with a bootstrap interval, the overlap of the two distributions; and the rank
correlations between metrics on the texts they all scored.
"""

from __future__ import annotations

import statistics
from itertools import combinations
from typing import Any

from creval.metrics.separation import (
    auroc,
    best_threshold,
    bootstrap_ci,
    cohens_d,
    overlap,
    threshold_metrics,
)
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


#: Resamples of the bootstrap intervals (AUROC and Cohen's d): the AUROC compares every pair
#: of texts, so 1000 resamples of 200 + 200 texts take about 3 s per metric.
RESAMPLES = 1000


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def separation_row(name: str, pos: list[float], neg: list[float], *, seed: int) -> dict[str, Any]:
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
        "auroc": _round(auroc(p, n)), **_auroc_interval(p, n, seed=seed),
        "best_accuracy": _round(best.accuracy), "best_f1": _round(best.f1),
        "best_threshold": _round(direction * best.threshold) if best.threshold != float("inf") else None,
        "median_accuracy": _round(fixed.accuracy), "median_f1": _round(fixed.f1),
    }
    try:
        d = cohens_d(p, n)
        lo, hi = bootstrap_ci(p, n, n_resamples=RESAMPLES, seed=seed)
        row |= {"cohens_d": _round(d), "d_ci_low": _round(lo), "d_ci_high": _round(hi),
                "overlap": _round(overlap(d))}
    except ValueError as exc:
        row["note"] = str(exc)
    return row


def _auroc_interval(pos: list[float], neg: list[float], *, seed: int) -> dict[str, float | None]:
    """``auroc_low``/``auroc_high``: the 95% percentile bootstrap interval of the AUROC, each
    set resampled on its own (so every resample keeps both classes and their sizes); None
    with fewer than two texts in a set."""
    if len(pos) < 2 or len(neg) < 2:
        return {"auroc_low": None, "auroc_high": None}
    lo, hi = bootstrap_ci(pos, neg, auroc, n_resamples=RESAMPLES, seed=seed)
    return {"auroc_low": _round(lo), "auroc_high": _round(hi)}


def separation_table(per_text: dict[str, dict[str, float]], labels: dict[str, int], *,
                     seed: int) -> list[dict[str, Any]]:
    """A row per metric that scored at least one text."""
    names = [m for m in METRICS if any(m in v for v in per_text.values())]
    rows = []
    for name in names:
        pos = [v[name] for tid, v in per_text.items() if name in v and labels.get(tid) == 1]
        neg = [v[name] for tid, v in per_text.items() if name in v and labels.get(tid) == 0]
        rows.append(separation_row(name, pos, neg, seed=seed))
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
