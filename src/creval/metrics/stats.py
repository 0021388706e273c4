"""Correlations across models (seed 004, Tables 8-10): Pearson and Spearman with p-values.

Both use ``scipy.stats`` (imported when called) and report two-sided p-values. When one
input is constant the coefficient is undefined: the result has ``r`` and ``p`` set to
None and a ``note`` saying why, rather than NaN or a crash.

>>> c = pearson([1, 2, 3, 4], [2, 4, 6, 8])
>>> round(c.r, 6), round(c.p, 6), c.n
(1.0, 0.0, 4)
>>> spearman([1, 2, 3], [5, 5, 5]).note
'y is constant: the correlation is undefined'
>>> round(kendall([1, 2, 3, 4], [1, 3, 2, 4]).r, 6)  # 5 concordant, 1 discordant pair
0.666667
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from creval.errors import CrevalError

__all__ = ["Correlation", "correlation_table", "kendall", "pearson", "spearman"]


@dataclass(frozen=True)
class Correlation:
    """A correlation coefficient ``r`` with its two-sided ``p`` over ``n`` pairs.

    ``r`` and ``p`` are None when undefined (a constant input); ``note`` then says why.
    """

    r: float | None
    p: float | None
    n: int
    note: str | None = None


def _stats() -> Any:
    try:
        import scipy.stats
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CrevalError(
            "Correlations need the 'scipy' package, which is not installed. "
            "Install it with: pip install scipy"
        ) from exc
    return scipy.stats


def _check_pairs(x: Sequence[float], y: Sequence[float]) -> tuple[list[float], list[float]]:
    xs: list[float] = []
    ys: list[float] = []
    for name, values, out in (("x", x, xs), ("y", y, ys)):
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise ValueError(f"{name} must be a sequence of numbers, got {type(values).__name__}.")
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name}[{i}] must be a finite number, got {v!r}.")
            out.append(float(v))
    if len(xs) != len(ys):
        raise ValueError(f"x and y must have the same length, got {len(xs)} and {len(ys)}.")
    if len(xs) < 3:
        raise ValueError(f"A correlation with a p-value needs at least 3 pairs, got {len(xs)}.")
    return xs, ys


def _constant(xs: list[float], ys: list[float]) -> str | None:
    for name, values in (("x", xs), ("y", ys)):
        if min(values) == max(values):
            return f"{name} is constant: the correlation is undefined"
    return None


def pearson(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Pearson's r with the two-sided p-value of ``scipy.stats.pearsonr``.

    Hand check: x = 1, 2, 3 and y = 1, 3, 2 have deviations (-1, 0, 1) and (-1, 1, 0), so
    r = 1 / sqrt(2 * 2) = 0.5; with n = 3 the exact p-value is 1 - (2/pi) asin(0.5) = 2/3.

    >>> c = pearson([1, 2, 3], [1, 3, 2])
    >>> round(c.r, 6), round(c.p, 6)
    (0.5, 0.666667)
    >>> round(pearson([1, 2, 3], [3, 2, 1]).r, 6)
    -1.0
    """
    xs, ys = _check_pairs(x, y)
    note = _constant(xs, ys)
    if note is not None:
        return Correlation(r=None, p=None, n=len(xs), note=note)
    result = _stats().pearsonr(xs, ys)
    return Correlation(r=float(result.statistic), p=float(result.pvalue), n=len(xs))


def spearman(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Spearman's rho (Pearson's r of the ranks, ties averaged), two-sided p from scipy.

    scipy's p-value uses the t approximation with n - 2 degrees of freedom.

    >>> c = spearman([1, 2, 3, 4, 5], [1, 4, 9, 16, 100])  # monotone, not linear
    >>> round(c.r, 6), round(c.p, 6)
    (1.0, 0.0)
    >>> round(spearman([1, 2, 3, 4], [1, 3, 2, 4]).r, 6)  # ranks differ in one swap: 0.8
    0.8
    """
    xs, ys = _check_pairs(x, y)
    note = _constant(xs, ys)
    if note is not None:
        return Correlation(r=None, p=None, n=len(xs), note=note)
    result = _stats().spearmanr(xs, ys)
    return Correlation(r=float(result.statistic), p=float(result.pvalue), n=len(xs))


def kendall(x: Sequence[float], y: Sequence[float]) -> Correlation:
    """Kendall's tau-b (ties corrected), two-sided p from ``scipy.stats.kendalltau``.

    tau-b = (C - D) / sqrt((n0 - n1) (n0 - n2)) with C and D the concordant and discordant
    pairs, n0 = n (n - 1) / 2, and n1, n2 the pairs tied in x and in y. scipy computes the
    exact p-value for small samples without ties and the normal approximation otherwise.

    Hand check: x = 1, 2, 3, 4 and y = 1, 3, 2, 4 order 5 of the 6 pairs alike and swap one
    (2, 3), so tau = (5 - 1) / 6 = 2/3. With a tie, x = 1, 2, 2, 3 and y = 1, 2, 3, 4 have
    C = 5, D = 0, one pair tied in x: tau-b = 5 / sqrt(5 * 6) = 0.912871.

    >>> c = kendall([1, 2, 3, 4], [1, 3, 2, 4])
    >>> round(c.r, 6), c.n
    (0.666667, 4)
    >>> round(kendall([1, 2, 2, 3], [1, 2, 3, 4]).r, 6)
    0.912871
    """
    xs, ys = _check_pairs(x, y)
    note = _constant(xs, ys)
    if note is not None:
        return Correlation(r=None, p=None, n=len(xs), note=note)
    result = _stats().kendalltau(xs, ys, variant="b")
    return Correlation(r=float(result.statistic), p=float(result.pvalue), n=len(xs))


def correlation_table(
    scores_a: Mapping[str, Mapping[str, Mapping[str, float | None]]],
    scores_b: Mapping[str, float | None],
    *,
    min_models: int = 3,
) -> list[dict[str, Any]]:
    """Correlate each task x criterion score with another benchmark's score across models.

    ``scores_a`` is model -> task -> criterion -> score (the shape of
    ``aggregate_rubric(...)["tasks"]``, whose ``"mean"`` entry becomes a criterion named
    ``"mean"``); ``scores_b`` is model -> score (e.g. DAT or SAT). Only models in both with
    numeric values count. One row per task x criterion, in first-seen order, with ``task``,
    ``criterion``, ``n``, ``pearson_r``, ``pearson_p``, ``spearman_r``, ``spearman_p`` and
    ``note``; with fewer than ``min_models`` models the statistics are None and the note says
    so.

    >>> jcq = {"m1": {"uses": {"fluency": 3.0}}, "m2": {"uses": {"fluency": 4.0}},
    ...        "m3": {"uses": {"fluency": 5.0}}, "m4": {"uses": {"fluency": 1.0}}}
    >>> dat = {"m1": 0.70, "m2": 0.80, "m3": 0.90, "other": 0.5}
    >>> row = correlation_table(jcq, dat)[0]
    >>> row["task"], row["criterion"], row["n"], row["note"]
    ('uses', 'fluency', 3, None)
    >>> round(row["pearson_r"], 6), round(row["spearman_r"], 6)
    (1.0, 1.0)
    """
    if isinstance(min_models, bool) or not isinstance(min_models, int) or min_models < 3:
        raise ValueError(f"min_models must be an integer >= 3, got {min_models!r}.")
    if not isinstance(scores_a, Mapping) or not isinstance(scores_b, Mapping):
        raise ValueError("scores_a and scores_b must be mappings keyed by model.")

    def number(value: Any) -> float | None:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return float(value) if ok and math.isfinite(value) else None

    other = {m: v for m, value in scores_b.items() if (v := number(value)) is not None}
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for model in scores_a:
        tasks = scores_a[model]
        if not isinstance(tasks, Mapping):
            raise ValueError(f"scores_a[{model!r}] must map task -> criterion -> score.")
        if model not in other:
            continue
        for task, crits in tasks.items():
            if not isinstance(crits, Mapping):
                raise ValueError(f"scores_a[{model!r}][{task!r}] must map criterion -> score.")
            for crit, value in crits.items():
                score = number(value)
                if score is not None:
                    cells.setdefault((task, crit), {})[model] = score

    rows = []
    for (task, crit), values in cells.items():
        models = sorted(values)
        row: dict[str, Any] = {"task": task, "criterion": crit, "n": len(models)}
        empty = {"pearson_r": None, "pearson_p": None, "spearman_r": None, "spearman_p": None}
        if len(models) < min_models:
            rows.append(row | empty | {"note": f"only {len(models)} models with both scores"})
            continue
        xs = [values[m] for m in models]
        ys = [other[m] for m in models]
        p, s = pearson(xs, ys), spearman(xs, ys)
        rows.append(row | {"pearson_r": p.r, "pearson_p": p.p, "spearman_r": s.r,
                           "spearman_p": s.p, "note": p.note or s.note})  # fmt: skip
    return rows
