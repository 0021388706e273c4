"""Bradley-Terry strengths from pairwise judgements asked in both orders, with a position bias.

A judgement shows two answers, one *first* and one *second*, and says which is better or that
they tie. The model (Bradley and Terry 1952, with an order effect as Davidson and Beaver 1977
give it for home advantage) is

    P(first wins) = sigmoid(theta_first - theta_second + gamma)

``theta`` is a model's strength on the logit scale and ``gamma`` the judge's preference for the
first position (0: none; 1.0: a first answer of equal strength wins 73% of the time). A tie
counts as half a win for each side (the outcome is 0.5 in the binomial log-likelihood, a
quasi-likelihood; Davidson's 1970 model would add a tie parameter instead), so ``gamma`` and the strengths are the maximum
of the quasi-likelihood

    sum_k w_k [y_k log p_k + (1 - y_k) log(1 - p_k)]

found by scipy's ``trust-exact`` Newton method with the analytic gradient and Hessian. ``prior`` adds that many virtual ties to
every pair of models that was compared (half in each order): a judge that always prefers one
model would otherwise send its strength to infinity; the default, one tie per pair, moves a
rating little once a pair has a few dozen comparisons.

Strengths are known only up to a shift. They are centred so that their mean is 0, or, with
``anchors``, so that the anchors' mean is 0: then adding models to the pool leaves the
anchors' scale where it was.

Intervals (:func:`bootstrap_bradley_terry`) resample items and judges together (a two-way
bootstrap: the items drawn with replacement, the judges drawn with replacement, every
judgement of a drawn item by a drawn judge kept as often as both were drawn) and refit.

>>> first  = ["a", "b", "a", "c", "b", "c"] * 3
>>> second = ["b", "a", "c", "a", "c", "b"] * 3
>>> outcome = [1, 0, 1, 0, 1, 1] * 3
>>> fit = bradley_terry(first, second, outcome)
>>> fit.models, [round(r, 2) for r in fit.ratings], round(fit.bias, 2)
(['a', 'b', 'c'], [2.19, -1.09, -1.09], 1.41)
>>> abs(sum(fit.ratings)) < 1e-9
True
>>> fit.comparisons  # each model took part in 12 of the 18
[12, 12, 12]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BradleyTerry", "BradleyTerryIntervals", "Triads", "bootstrap_bradley_terry", "bradley_terry",
    "intransitive_triads", "pair_design_matrix", "win_matrix",
]  # fmt: skip


@dataclass(frozen=True)
class BradleyTerry:
    """Strengths (logit scale, centred on ``anchors`` or on all models), first-position bias,
    comparisons per model and the quasi-log-likelihood at the maximum."""

    models: list[str]
    ratings: list[float]
    bias: float
    comparisons: list[int]
    anchors: list[str]
    log_likelihood: float

    def rating(self, model: str) -> float:
        return self.ratings[self.models.index(model)]


@dataclass(frozen=True)
class BradleyTerryIntervals:
    """The fit with percentile intervals over ``resamples`` two-way bootstrap resamples."""

    fit: BradleyTerry
    low: list[float]
    high: list[float]
    bias_low: float
    bias_high: float
    confidence: float
    resamples: int


@dataclass(frozen=True)
class Triads:
    """Triads of models with all three pairs decided: ``cyclic`` of them (a beats b, b beats c,
    c beats a), ``transitive`` the others; ``undecided`` had a pair at exactly one half or not
    compared. ``rate`` = cyclic / (cyclic + transitive), None when none was decided."""

    cyclic: int
    transitive: int
    undecided: int

    @property
    def rate(self) -> float | None:
        decided = self.cyclic + self.transitive
        return self.cyclic / decided if decided else None


def _checked(first: Sequence[str], second: Sequence[str], outcome: Sequence[float],
             models: Sequence[str] | None) -> tuple[list[str], list[int], list[int], list[float]]:
    if isinstance(first, str) or isinstance(second, str):
        raise ValueError("first and second must be sequences of model names, not strings.")
    if not len(first) == len(second) == len(outcome):
        raise ValueError(f"first, second and outcome must have the same length, got "
                         f"{len(first)}, {len(second)} and {len(outcome)}.")
    if not first:
        raise ValueError("No comparison given: first, second and outcome are empty.")
    names = list(models) if models is not None else sorted({*map(str, first), *map(str, second)})
    index = {m: i for i, m in enumerate(names)}
    ys = []
    for k, (a, b, y) in enumerate(zip(first, second, outcome, strict=True)):
        if a not in index or b not in index:
            raise ValueError(f"comparison {k}: {a!r} or {b!r} is not among the models {names}.")
        if a == b:
            raise ValueError(f"comparison {k} compares {a!r} with itself.")
        if isinstance(y, bool) or y not in (0, 0.5, 1):
            raise ValueError(f"outcome[{k}] must be 1 (first wins), 0 (second wins) or 0.5 (tie), got {y!r}.")
        ys.append(float(y))
    return names, [index[a] for a in first], [index[b] for b in second], ys


def pair_design_matrix(first: Sequence[int], second: Sequence[int], n_models: int) -> list[list[float]]:
    """One row per comparison: +1 in the first model's column, -1 in the second's (the last
    model is the reference and has no column), then 1 for the position bias.

    >>> pair_design_matrix([0, 2], [1, 0], 3)
    [[1.0, -1.0, 1.0], [-1.0, 0.0, 1.0]]
    """
    rows = []
    for a, b in zip(first, second, strict=True):
        row = [0.0] * n_models
        row[a] += 1.0
        row[b] -= 1.0
        rows.append([*row[:-1], 1.0])
    return rows


def _connected(n: int, first: list[int], second: list[int]) -> bool:
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in zip(first, second, strict=True):
        parent[root(a)] = root(b)
    return len({root(i) for i in range(n)}) == 1


def _fit(x: Any, y: Any, w: Any) -> tuple[Any, float]:
    """Maximum of the weighted quasi-log-likelihood (coefficients, log-likelihood)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    def nll(beta: Any) -> tuple[float, Any]:
        eta = x @ beta
        value = -float(np.sum(w * (y * log_expit(eta) + (1 - y) * log_expit(-eta))))
        return value, -(x.T @ (w * (y - expit(eta))))

    def hessian(beta: Any) -> Any:
        p = expit(x @ beta)
        return (x.T * (w * p * (1 - p))) @ x

    # the likelihood is concave: Newton steps in a trust region converge in a few iterations
    result = minimize(nll, np.zeros(x.shape[1]), jac=True, hess=hessian, method="trust-exact",
                      options={"gtol": 1e-9, "maxiter": 200})
    return result.x, -float(result.fun)


class _Problem:
    """Comparisons as arrays, with the prior's virtual ties appended (weights fixed)."""

    def __init__(self, names: list[str], a: list[int], b: list[int], y: list[float], prior: float,
                 anchors: Sequence[str] | None) -> None:
        import numpy as np

        if not math.isfinite(prior) or prior < 0:
            raise ValueError(f"prior must be a finite number of virtual ties >= 0, got {prior!r}.")
        unknown = [m for m in anchors or [] if m not in names]
        if unknown:
            raise ValueError(f"anchors {unknown} are not among the models {names}.")
        if len(names) < 2 or not _connected(len(names), a, b):
            raise ValueError("The comparisons do not connect every model to every other (through "
                             "opponents in common): their strengths are not on one scale.")
        self.names, self.n = names, len(a)
        self.anchors = list(anchors or [])
        pairs = sorted({(min(i, j), max(i, j)) for i, j in zip(a, b, strict=True)})
        va = [p[0] for p in pairs] + [p[1] for p in pairs]
        vb = [p[1] for p in pairs] + [p[0] for p in pairs]
        self.x = np.asarray(pair_design_matrix(a + va, b + vb, len(names)), dtype=float)
        self.y = np.asarray(y + [0.5] * len(va))
        self.prior_w = np.full(len(va), prior / 2)
        self.counts = [sum(1 for i, j in zip(a, b, strict=True) if m in (i, j)) for m in range(len(names))]

    def solve(self, weights: Any) -> BradleyTerry:
        import numpy as np

        beta, loglik = _fit(self.x, self.y, np.concatenate([weights, self.prior_w]))
        theta = np.append(beta[:-1], 0.0)
        centre = [self.names.index(m) for m in self.anchors] or list(range(len(self.names)))
        theta = theta - theta[centre].mean()
        return BradleyTerry(list(self.names), [float(t) for t in theta], float(beta[-1]),
                            list(self.counts), list(self.anchors), loglik)


def bradley_terry(
    first: Sequence[str], second: Sequence[str], outcome: Sequence[float], *,
    models: Sequence[str] | None = None, prior: float = 1.0, anchors: Sequence[str] | None = None,
) -> BradleyTerry:
    """Strengths and first-position bias from comparisons (``outcome`` 1: the first shown won,
    0: the second won, 0.5: a tie); ``models`` fixes their order (default: sorted names)."""
    import numpy as np

    names, a, b, y = _checked(first, second, outcome, models)
    return _Problem(names, a, b, y, prior, anchors).solve(np.ones(len(a)))


def bootstrap_bradley_terry(
    first: Sequence[str], second: Sequence[str], outcome: Sequence[float], *,
    items: Sequence[str], judges: Sequence[str] | None = None, models: Sequence[str] | None = None,
    prior: float = 1.0, anchors: Sequence[str] | None = None, confidence: float = 0.95,
    resamples: int = 1000, seed: int = 0,
) -> BradleyTerryIntervals:
    """:func:`bradley_terry` with percentile intervals from resampling items and judges together
    (``items``/``judges``: the item and the judge of each comparison; one judge when None).

    >>> f, s = ["a", "b"] * 6, ["b", "a"] * 6
    >>> y = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0]  # a wins 9 of 12; the first shown wins 7
    >>> r = bootstrap_bradley_terry(f, s, y, items=[str(i // 2) for i in range(12)], resamples=200)
    >>> round(r.fit.rating("a"), 2), round(r.fit.bias, 2), r.bias_low < r.fit.bias < r.bias_high
    (0.52, 0.4, True)
    """
    import numpy as np

    names, a, b, y = _checked(first, second, outcome, models)
    judges = ["judge"] * len(a) if judges is None else list(judges)
    if len(items) != len(a) or len(judges) != len(a):
        raise ValueError(f"items and judges need one entry per comparison ({len(a)}), got "
                         f"{len(items)} and {len(judges)}.")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")
    problem = _Problem(names, a, b, y, prior, anchors)
    fit = problem.solve(np.ones(len(a)))
    item_names, item_of = np.unique(np.asarray(items, dtype=str), return_inverse=True)
    judge_names, judge_of = np.unique(np.asarray(judges, dtype=str), return_inverse=True)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(resamples):
        ci = np.bincount(rng.integers(0, len(item_names), len(item_names)), minlength=len(item_names))
        cj = np.bincount(rng.integers(0, len(judge_names), len(judge_names)), minlength=len(judge_names))
        one = problem.solve((ci[item_of] * cj[judge_of]).astype(float))
        draws.append([*one.ratings, one.bias])
    q = np.quantile(np.asarray(draws), [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    return BradleyTerryIntervals(fit, [float(v) for v in q[0, :-1]], [float(v) for v in q[1, :-1]],
                                 float(q[0, -1]), float(q[1, -1]), confidence, resamples)


def win_matrix(
    first: Sequence[str], second: Sequence[str], outcome: Sequence[float], *,
    models: Sequence[str] | None = None,
) -> tuple[list[str], list[list[float | None]], list[list[int]]]:
    """Each model's share of wins against each other (ties half; both orders pooled, so a
    position bias cancels when every pair is asked in both orders), and the comparisons behind
    each cell; None where a pair was never compared.

    >>> win_matrix(["a", "b", "a"], ["b", "a", "b"], [1, 1, 0.5])
    (['a', 'b'], [[None, 0.5], [0.5, None]], [[0, 3], [3, 0]])
    """
    names, a, b, y = _checked(first, second, outcome, models)
    n = len(names)
    wins = [[0.0] * n for _ in range(n)]
    count = [[0] * n for _ in range(n)]
    for i, j, v in zip(a, b, y, strict=True):
        wins[i][j] += v
        wins[j][i] += 1 - v
        count[i][j] += 1
        count[j][i] += 1
    shares = [[wins[i][j] / count[i][j] if count[i][j] else None for j in range(n)] for i in range(n)]
    return names, shares, count


def intransitive_triads(preference: Sequence[Sequence[float | None]]) -> Triads:
    """Circular triads (Kendall and Babington Smith 1940) of a preference matrix: ``[i][j]`` is
    i's share against j (above one half: i is preferred), None when not compared.

    >>> intransitive_triads([[None, 1, 0], [0, None, 1], [1, 0, None]])
    Triads(cyclic=1, transitive=0, undecided=0)
    >>> intransitive_triads([[None, 1, 1], [0, None, 0.5], [0, 0.5, None]]).rate is None
    True
    """
    n = len(preference)
    if any(len(row) != n for row in preference):
        raise ValueError("preference must be a square matrix (one row and column per model).")
    cyclic = transitive = undecided = 0
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                cells = [preference[i][j], preference[j][k], preference[k][i]]
                if any(c is None or c == 0.5 for c in cells):
                    undecided += 1
                    continue
                ups = [float(c) > 0.5 for c in cells if c is not None]
                cyclic += all(ups) or not any(ups)
                transitive += not (all(ups) or not any(ups))
    return Triads(cyclic, transitive, undecided)
