"""Intervals of how well a score separates two sets: the AUROC and Cohen's d (seed 002).

**The methods.** :func:`auroc_interval` is DeLong's (DeLong, DeLong and Clarke-Pearson
1988, Biometrics 44: 837-845) variance of the AUROC from the placement values, on the logit
scale (Pepe 2003, section 5.2.2) so that the interval stays inside (0, 1), with Student's t
quantile at ``n_pos + n_neg - 2`` degrees of freedom. An AUROC of 0 or 1 (the sets do not
overlap) has no logit and a DeLong variance of 0; there the AUROC is taken half a pair from
the edge (``1 - 1 / (2 n_pos n_neg)``) and the variance is never below Hanley and McNeil's
(1982, Radiology 143: 29-36) for that AUROC. :func:`cohens_d_interval` inverts the
noncentral t distribution of ``d * sqrt(n_pos n_neg / (n_pos + n_neg))`` (Steiger and Fouladi
1997; Hedges and Olkin 1985, ch. 5): exact for two normal sets with one variance.

**Why these, and from how many texts.** Simulated coverage of nominal 95% intervals
(``tests/metrics/test_interval_coverage_more.py``; the table in ``bench/README.md``) on
skewed (exponential, lognormal) and bounded (beta, 1-5 Likert with ties) sets: the percentile
bootstrap creval printed before (:func:`creval.metrics.separation.bootstrap_ci`) covered the
AUROC 85-91% at 5 texts a set (40% at an AUROC of 0.96) and 91-95% at 10-30, and Cohen's d
81-85% at 5 and 90-94% at 30; these cover at least 93% from :data:`SEPARATION_MIN_PER_SET`
texts a set (the AUROC's 95-100%, wider than needed at 5-10), except d where the two sets'
spreads differ 55-fold (92.7% at 30 a set: the noncentral t assumes one spread). Below the
minimum no interval is given (None).

>>> low, high = auroc_interval([0.9, 0.8, 0.7, 0.4, 0.6], [0.3, 0.5, 0.1, 0.45, 0.2])
>>> round(low, 3), round(high, 3)
(0.378, 0.995)
>>> low, high = cohens_d_interval([1, 2, 3, 4, 5], [-1, 0, 1, 2, 0])
>>> round(low, 3), round(high, 3)
(0.312, 3.386)
>>> auroc_interval([1.0, 2.0], [0.0, 1.0]) is None  # 2 texts a set: too few
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from creval.metrics._validate import finite_numbers

__all__ = ["SEPARATION_MIN_PER_SET", "auroc_interval", "auroc_intervals", "cohens_d_interval",
           "cohens_d_intervals"]

#: Fewest texts in each set for an interval of the AUROC or of Cohen's d.
SEPARATION_MIN_PER_SET = 5


def _checked(pos: Sequence[float], neg: Sequence[float], confidence: float) -> tuple[Any, Any]:
    import numpy as np

    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}.")
    return np.asarray(finite_numbers(pos, "pos")), np.asarray(finite_numbers(neg, "neg"))


def auroc_intervals(pos: Any, neg: Any, *, confidence: float = 0.95) -> tuple[Any, Any, Any]:
    """Row by row (the last axis holds the texts): ``(auroc, low, high)`` arrays, the
    interval NaN below :data:`SEPARATION_MIN_PER_SET` texts a set.

    >>> import numpy as np
    >>> a, lo, hi = auroc_intervals(np.array([[3.0, 4, 5, 6, 7]]), np.array([[1.0, 2, 3, 4, 5]]))
    >>> float(a[0]), bool(lo[0] < a[0] < hi[0])
    (0.82, True)
    """
    import numpy as np
    from scipy.stats import rankdata, t

    p, n = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    n1, n2 = p.shape[-1], n.shape[-1]
    ranks = rankdata(np.concatenate([p, n], axis=-1), axis=-1)
    # placement values: the share of the other set that a text beats (ties count one half)
    v10 = (ranks[..., :n1] - rankdata(p, axis=-1)) / n2
    v01 = 1 - (ranks[..., n1:] - rankdata(n, axis=-1)) / n1
    area = v10.mean(axis=-1)
    if n1 < SEPARATION_MIN_PER_SET or n2 < SEPARATION_MIN_PER_SET:
        nan = np.full(area.shape, np.nan)
        return area, nan, nan.copy()
    edge = 1 / (2 * n1 * n2)
    a = np.clip(area, edge, 1 - edge)
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    hanley = (a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n2 - 1) * (q2 - a * a)) / (n1 * n2)
    delong = v10.var(axis=-1, ddof=1) / n1 + v01.var(axis=-1, ddof=1) / n2
    se = np.sqrt(np.where(np.isin(area, (0.0, 1.0)), np.maximum(delong, hanley), delong))
    half = t.ppf((1 + confidence) / 2, n1 + n2 - 2) * se / (a * (1 - a))
    logit = np.log(a / (1 - a))
    return area, 1 / (1 + np.exp(-(logit - half))), 1 / (1 + np.exp(-(logit + half)))


def auroc_interval(pos: Sequence[float], neg: Sequence[float], *,
                   confidence: float = 0.95) -> tuple[float, float] | None:
    """DeLong's interval of the AUROC on the logit scale (module docstring); None below
    :data:`SEPARATION_MIN_PER_SET` texts in either set."""
    p, n = _checked(pos, neg, confidence)
    if min(len(p), len(n)) < SEPARATION_MIN_PER_SET:
        return None
    _, low, high = auroc_intervals(p, n, confidence=confidence)
    return float(low), float(high)


def cohens_d_intervals(pos: Any, neg: Any, *, confidence: float = 0.95) -> tuple[Any, Any, Any]:
    """Row by row: ``(d, low, high)`` arrays; NaN where both sets are constant, and the
    interval NaN below :data:`SEPARATION_MIN_PER_SET` texts a set."""
    import numpy as np
    from scipy.special import nctdtrinc

    p, n = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    n1, n2 = p.shape[-1], n.shape[-1]
    pooled = ((n1 - 1) * p.var(axis=-1, ddof=1) + (n2 - 1) * n.var(axis=-1, ddof=1)) / (n1 + n2 - 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.where(pooled > 0, (p.mean(axis=-1) - n.mean(axis=-1)) / np.sqrt(pooled), np.nan)
    if n1 < SEPARATION_MIN_PER_SET or n2 < SEPARATION_MIN_PER_SET:
        nan = np.full(d.shape, np.nan)
        return d, nan, nan.copy()
    scale = math.sqrt(n1 * n2 / (n1 + n2))
    t = np.nan_to_num(d * scale)
    tail = (1 - confidence) / 2
    # the noncentralities at which the observed t is the upper and the lower quantile
    low = nctdtrinc(n1 + n2 - 2, 1 - tail, t) / scale
    high = nctdtrinc(n1 + n2 - 2, tail, t) / scale
    undefined = np.isnan(d)
    return d, np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def cohens_d_interval(pos: Sequence[float], neg: Sequence[float], *,
                      confidence: float = 0.95) -> tuple[float, float] | None:
    """The noncentral t interval of Cohen's d (module docstring); None below
    :data:`SEPARATION_MIN_PER_SET` texts in either set or when both sets are constant."""
    p, n = _checked(pos, neg, confidence)
    if min(len(p), len(n)) < SEPARATION_MIN_PER_SET:
        return None
    d, low, high = cohens_d_intervals(p, n, confidence=confidence)
    return None if math.isnan(float(d)) else (float(low), float(high))
