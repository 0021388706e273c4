"""Human rankings turned into model scores, and how many items a score needs (seed 004).

**Rank points** (appendix C of the Japanese TTCT-family paper, Fukuda et al. 2025): a
crowdworker ranks the 11 models' rewrites of one story from most to least creative; first
place earns 1 point, second 0.9, third 0.8 and so on down to 0 for the last. With ``k``
ranked models (the paper: k = 11, steps of 0.1) place ``i`` (1-based) earns
``1 - (i - 1) / (k - 1)``; the paper is silent for other ``k`` and this linear spread from 1
to 0 is its rule generalised. A model's human score is the mean of its points over all
rankings (stories and annotators).

**Reliability curve** (Figure 1): for ``n`` = 1, 2, ... items, the Pearson correlation between
model scores computed on ``n`` randomly drawn items and a reference score per model (the
paper: the human score); summarised over ``repeats`` draws by the mean, the 5th and the 95th
percentile of r.

>>> points = mean_rank_points([["a", "b", "c"], ["b", "a", "c"]])
>>> points["a"], points["b"], points["c"]
(0.75, 0.75, 0.0)
>>> rank_points(2, 11)
0.9
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from creval.metrics.stats import pearson

__all__ = ["ReliabilityPoint", "mean_rank_points", "rank_points", "reliability_curve"]


def rank_points(place: int, ranked: int) -> float:
    """Points for ``place`` (1 = most creative) among ``ranked`` models: 1 down to 0, linear.

    >>> [rank_points(i, 3) for i in (1, 2, 3)]
    [1.0, 0.5, 0.0]
    """
    if isinstance(ranked, bool) or not isinstance(ranked, int) or ranked < 2:
        raise ValueError(f"ranked must be an integer >= 2 (a ranking of one model has no order), got {ranked!r}.")
    if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= ranked:
        raise ValueError(f"place must be an integer in 1..{ranked}, got {place!r}.")
    return round(1.0 - (place - 1) / (ranked - 1), 12)


def mean_rank_points(rankings: Sequence[Sequence[str]]) -> dict[str, float]:
    """Each model's mean rank points over ``rankings`` (each a list of model names, most
    creative first). A model is averaged over the rankings it appears in.

    >>> mean_rank_points([["x", "y"], ["x", "y"], ["y", "x"]])
    {'x': 0.6666666666666666, 'y': 0.3333333333333333}
    """
    totals: dict[str, list[float]] = {}
    for i, ranking in enumerate(rankings):
        if isinstance(ranking, str) or not isinstance(ranking, Sequence):
            raise ValueError(f"rankings[{i}] must be a list of model names, got {ranking!r}.")
        if len(set(ranking)) != len(ranking):
            raise ValueError(f"rankings[{i}] names a model twice: {list(ranking)!r}.")
        for place, model in enumerate(ranking, start=1):
            totals.setdefault(model, []).append(rank_points(place, len(ranking)))
    return {model: math.fsum(points) / len(points) for model, points in totals.items()}


@dataclass(frozen=True)
class ReliabilityPoint:
    """The correlation with the reference at ``items`` items, over ``draws`` random draws."""

    items: int
    draws: int
    mean_r: float | None
    low_r: float | None
    high_r: float | None
    #: Draws whose r was undefined (a constant score across models), left out of the summary.
    undefined: int


def reliability_curve(
    scores: Sequence[Sequence[float]],
    reference: Sequence[float],
    *,
    sizes: Sequence[int] | None = None,
    repeats: int = 100,
    seed: int = 0,
) -> list[ReliabilityPoint]:
    """Pearson r between per-model means over ``n`` random items and ``reference``, per ``n``.

    ``scores[m][j]`` is model ``m``'s score on item ``j`` (every model scored on the same
    items); ``reference[m]`` is model ``m``'s reference score. For each size ``n`` (default
    1..items), ``repeats`` draws of ``n`` distinct items (one draw when ``n`` is all items).
    Needs at least 3 models.

    Hand check: with every item the means are (0.5, 0.5, 1.0) against (0, 1, 1): deviations
    (-1/6, -1/6, 1/3) and (-2/3, 1/3, 1/3), r = (1/9) / sqrt((1/6) (2/3)) = 0.5.

    >>> [p] = reliability_curve([[0, 1], [1, 0], [1, 1]], [0, 1, 1], sizes=[2])
    >>> p.items, p.draws, round(p.mean_r, 6)
    (2, 1, 0.5)
    """
    matrix = np.asarray(scores, dtype=float)
    ref = np.asarray(reference, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] < 3 or matrix.shape[1] < 1:
        raise ValueError(f"scores must be a models x items matrix with at least 3 models, got shape {matrix.shape}.")
    if ref.shape != (matrix.shape[0],):
        raise ValueError(f"reference must hold one score per model ({matrix.shape[0]}), got {ref.shape}.")
    if not (np.isfinite(matrix).all() and np.isfinite(ref).all()):
        raise ValueError("scores and reference must be finite numbers.")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}.")
    items = matrix.shape[1]
    wanted = list(range(1, items + 1)) if sizes is None else list(sizes)
    for n in wanted:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= items:
            raise ValueError(f"sizes must be integers in 1..{items}, got {n!r}.")
    rng = np.random.default_rng(seed)
    out = []
    for n in wanted:
        draws = 1 if n == items else repeats
        rs: list[float] = []
        for _ in range(draws):
            chosen = rng.choice(items, size=n, replace=False)
            r = pearson(matrix[:, chosen].mean(axis=1).tolist(), ref.tolist()).r
            if r is not None:
                rs.append(r)
        if rs:
            out.append(ReliabilityPoint(n, draws, float(np.mean(rs)), float(np.percentile(rs, 5)),
                                        float(np.percentile(rs, 95)), draws - len(rs)))
        else:
            out.append(ReliabilityPoint(n, draws, None, None, None, draws))
    return out

