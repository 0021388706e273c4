"""The released-words check: does DAT rise with temperature for every model but GPT-4?

Chen and Ding (Findings of EMNLP 2023) released the word lists five models gave at
temperatures 0.1 to 1.0 (``dat-humans/models/temperature/``, read by
:func:`creval.benchmarks.dat.humans.read_model_words`) and claim that higher temperatures
raise the DAT of every model but GPT-4. :func:`released_trends` re-scores every list with
creval's own DAT scorer (by default the packaged GloVe 6B 50d vectors and dictionary, Olson's
first-7-valid-words rule) and, per model, gives the mean score and valid rate per temperature
with bootstrap intervals, and the trend of the per-list score with temperature: Spearman's
rho with a bootstrap interval and a permutation p-value (:func:`creval.metrics.curves.spearman_trend`).

A model "rises" when rho > 0 and the interval excludes 0; "falls" when rho < 0 and the
interval excludes 0; otherwise the trend is "flat" (no detectable monotone trend). The
claim holds when every model but GPT-4 rises and GPT-4 does not.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

#: The model the paper names as the exception.
EXCEPTION = "gpt-4"


def released_trends(root: Path, *, vectors: str = "glove-6b-50d", dictionary: str | None = None,
                    resamples: int = 2000) -> dict[str, Any]:
    """Per model, the re-scored DAT per temperature and its trend, and whether the paper's
    claim holds under this scorer (see the module docstring)."""
    from creval.benchmarks.dat import DATOptions
    from creval.benchmarks.dat.humans import read_model_words
    from creval.benchmarks.dat.scoring import DATScorer
    from creval.metrics.curves import spearman_trend
    from creval.metrics.intervals import mean_interval

    scorer = DATScorer.from_options(DATOptions(vectors=vectors, dictionary=dictionary))
    by_model: dict[str, list[tuple[float, float | None]]] = defaultdict(list)
    for lists in read_model_words(Path(root), "temperature"):
        if lists.temperature is None:
            continue
        result = scorer.score_words(list(lists.words))
        score = None if result.score is None else float(result.score)
        by_model[lists.model].append((lists.temperature, score))
    models = []
    for model, rows in sorted(by_model.items()):
        per_t = []
        for t in sorted({t for t, _ in rows}):
            scores = [s for u, s in rows if u == t and s is not None]
            total = sum(1 for u, _ in rows if u == t)
            ci = mean_interval(scores) if scores else None
            per_t.append({"temperature": t, "lists": total, "valid": len(scores),
                          "valid_rate": len(scores) / total,
                          "dat": None if ci is None else ci.mean,
                          "low": None if ci is None else ci.low,
                          "high": None if ci is None else ci.high})
        valid = [(t, s) for t, s in rows if s is not None]
        trend = spearman_trend([t for t, _ in valid], [s for _, s in valid], resamples=resamples)
        models.append({"model": model, "temperatures": per_t, "rho": trend.rho,
                       "low": trend.low, "high": trend.high, "p": trend.p, "n": trend.n,
                       "direction": _direction(trend.rho, trend.low, trend.high)})
    others = [m for m in models if m["model"] != EXCEPTION]
    exception = [m for m in models if m["model"] == EXCEPTION]
    holds = (bool(others) and all(m["direction"] == "rises" for m in others)
             and all(m["direction"] != "rises" for m in exception))
    return {"scorer": scorer.resources, "variant": scorer.variant, "models": models,
            "claim": "DAT rises with temperature for every model but GPT-4",
            "claim_holds": holds}


def _direction(rho: float | None, low: float | None, high: float | None) -> str:
    """rises, falls or flat (see the module docstring).

    >>> _direction(0.3, 0.1, 0.5), _direction(0.1, -0.1, 0.3), _direction(-0.2, -0.3, -0.1)
    ('rises', 'flat', 'falls')
    """
    if rho is None or low is None or high is None:
        return "flat"
    if low > 0:
        return "rises"
    if high < 0:
        return "falls"
    return "flat"
