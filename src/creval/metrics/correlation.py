"""How well a scorer agrees with people: a correlation with its interval, and the difference
between two scorers' correlations with the same people's ratings, over the same responses.

**One correlation** (:func:`correlation_interval`): Pearson's r (or Spearman's rho, Pearson's
r of the ranks) with the Fisher z interval ``tanh(atanh(r) +- q * se)``, ``q`` the normal
quantile, ``se = 1 / sqrt(n - 3)`` for Pearson and ``sqrt((1 + r**2 / 2) / (n - 3))`` for
Spearman (Bonett and Wright 2000, "Sample size requirements for estimating Pearson, Kendall
and Spearman correlations", Psychometrika 65: 23-28). Below ``min_items`` pairs, or when one
input is constant, there is no interval and ``reason`` says why.

**Two dependent correlations** (:func:`correlation_difference`): the scorers ``a`` and ``b``
both rated the same ``n`` responses that people rated (``y``): ``r_ya - r_yb`` with the
interval of Zou (2007, "Toward using confidence intervals to compare correlations",
Psychological Methods 12: 399-413, eq. 13 and section "Overlapping correlations"): each
correlation's own Fisher interval ``[l_1, u_1]``, ``[l_2, u_2]``, combined with the
correlation between the two estimates

``c = ((r_ab - r_ya r_yb / 2)(1 - r_ya^2 - r_yb^2 - r_ab^2) + r_ab^3) / ((1 - r_ya^2)(1 - r_yb^2))``

as ``L = d - sqrt((r_ya - l_1)^2 + (u_2 - r_yb)^2 - 2 c (r_ya - l_1)(u_2 - r_yb))`` and
``U = d + sqrt((u_1 - r_ya)^2 + (r_yb - l_2)^2 - 2 c (u_1 - r_ya)(r_yb - l_2))``. Zou's own
worked example (r_ya = .396, r_yb = .179, r_ab = .088, n = 66) gives (-0.093, 0.517):

>>> round_all(zou_interval(0.396, 0.179, 0.088, 66), 3)
(-0.093, 0.517)

The difference *differs* from zero when the interval excludes it. With Spearman the same
formulas are applied to the ranks (with Bonett and Wright's standard error).

>>> x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
>>> y = [1.2, 1.9, 3.4, 3.9, 5.1, 6.3, 6.8, 8.2, 9.1, 9.7, 11.4, 11.8]
>>> c = correlation_interval(x, y)
>>> round(c.r, 4), round(c.low, 4), round(c.high, 4), c.n
(0.9978, 0.9918, 0.9994, 12)
>>> correlation_interval(x[:5], y[:5]).reason
'n=5: too few pairs for an interval (needs 10)'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

__all__ = ["CorrelationDifference", "CorrelationInterval", "correlation_difference",
           "correlation_interval", "zou_interval"]

Method = Literal["pearson", "spearman"]
#: The fewest pairs an interval is given from.
MIN_PAIRS = 10


@dataclass(frozen=True)
class CorrelationInterval:
    """A correlation ``r`` over ``n`` pairs and its interval (None, with ``reason``, when
    ``n`` is below the minimum or an input is constant: then ``r`` may be None too)."""

    r: float | None
    low: float | None
    high: float | None
    n: int
    method: str
    confidence: float
    reason: str | None = None


@dataclass(frozen=True)
class CorrelationDifference:
    """``r_a - r_b`` (two scorers' correlations with the same ratings) and Zou's interval."""

    r_a: float | None
    r_b: float | None
    difference: float | None
    low: float | None
    high: float | None
    n: int
    method: str
    confidence: float
    reason: str | None = None

    @property
    def differs(self) -> bool:
        """Whether the interval excludes 0."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


def round_all(values: tuple[float, ...], digits: int = 4) -> tuple[float, ...]:
    """Every value rounded (for the worked examples)."""
    return tuple(round(v, digits) for v in values)


def _array(values: Sequence[float], name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be a sequence of numbers, got a string.")
    out = np.asarray(values, dtype=np.float64)
    if out.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {out.shape}.")
    bad = np.flatnonzero(~np.isfinite(out))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] must be a finite number, got {values[int(bad[0])]!r}.")
    return out


def _checked(confidence: float, min_items: int, method: str) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 4:
        raise ValueError(f"min_items must be an integer >= 4, got {min_items!r}.")
    if method not in ("pearson", "spearman"):
        raise ValueError(f"method must be 'pearson' or 'spearman', got {method!r}.")


def _prepared(columns: dict[str, Sequence[float]], method: str) -> list[np.ndarray]:
    arrays = [_array(v, k) for k, v in columns.items()]
    sizes = {len(a) for a in arrays}
    if len(sizes) != 1:
        raise ValueError(f"{', '.join(columns)} must have the same length, got "
                         f"{[len(a) for a in arrays]}.")
    if method == "spearman":
        from scipy.stats import rankdata

        arrays = [rankdata(a) for a in arrays]
    return arrays


def _r(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.clip(np.corrcoef(x, y)[0, 1], -1.0, 1.0))


def _se(r: float, n: int, method: str) -> float:
    return math.sqrt((1 + r * r / 2) / (n - 3)) if method == "spearman" else 1 / math.sqrt(n - 3)


def _fisher(r: float, n: int, method: str, confidence: float) -> tuple[float, float]:
    from scipy.stats import norm

    if abs(r) >= 1.0:
        return r, r
    q = float(norm.ppf(0.5 + confidence / 2))
    z, half = math.atanh(r), q * _se(r, n, method)
    return math.tanh(z - half), math.tanh(z + half)


def _constant(arrays: list[np.ndarray], names: Sequence[str]) -> str | None:
    for name, a in zip(names, arrays, strict=True):
        if a.size and a.min() == a.max():
            return f"{name} is constant: the correlation is undefined"
    return None


def correlation_interval(
    x: Sequence[float], y: Sequence[float], *, method: Method = "pearson",
    confidence: float = 0.95, min_items: int = MIN_PAIRS,
) -> CorrelationInterval:
    """The correlation of ``x`` and ``y`` with its Fisher z interval (module docstring).

    >>> correlation_interval([1, 2, 3, 4], [5, 5, 5, 5]).reason
    'y is constant: the correlation is undefined'
    """
    _checked(confidence, min_items, method)
    xs, ys = _prepared({"x": x, "y": y}, method)
    n = len(xs)
    if n < 2 or (reason := _constant([xs, ys], ["x", "y"])) is not None:
        why = f"n={n}: too few pairs for a correlation" if n < 2 else reason
        return CorrelationInterval(None, None, None, n, method, confidence, why)
    r = _r(xs, ys)
    if n < min_items:
        return CorrelationInterval(r, None, None, n, method, confidence,
                                   f"n={n}: too few pairs for an interval (needs {min_items})")
    low, high = _fisher(r, n, method, confidence)
    return CorrelationInterval(r, low, high, n, method, confidence)


def zou_interval(r_ya: float, r_yb: float, r_ab: float, n: int, *, method: Method = "pearson",
                 confidence: float = 0.95) -> tuple[float, float]:
    """Zou's (2007) interval of ``r_ya - r_yb`` for two correlations sharing ``y``, from the
    three correlations and ``n`` (module docstring).

    >>> round_all(zou_interval(0.6, 0.4, 0.5, 200))  # a real difference of 0.2
    (0.0854, 0.3181)
    """
    for name, r in (("r_ya", r_ya), ("r_yb", r_yb), ("r_ab", r_ab)):
        if not -1.0 <= r <= 1.0:
            raise ValueError(f"{name} must be in [-1, 1], got {r!r}.")
    if isinstance(n, bool) or not isinstance(n, int) or n < 4:
        raise ValueError(f"n must be an integer >= 4, got {n!r}.")
    _checked(confidence, 4, method)
    l1, u1 = _fisher(r_ya, n, method, confidence)
    l2, u2 = _fisher(r_yb, n, method, confidence)
    denominator = (1 - r_ya ** 2) * (1 - r_yb ** 2)
    c = 1.0 if denominator == 0 else (
        ((r_ab - r_ya * r_yb / 2) * (1 - r_ya ** 2 - r_yb ** 2 - r_ab ** 2) + r_ab ** 3)
        / denominator)
    d = r_ya - r_yb
    low = d - math.sqrt(max(0.0, (r_ya - l1) ** 2 + (u2 - r_yb) ** 2
                            - 2 * c * (r_ya - l1) * (u2 - r_yb)))
    high = d + math.sqrt(max(0.0, (u1 - r_ya) ** 2 + (r_yb - l2) ** 2
                             - 2 * c * (u1 - r_ya) * (r_yb - l2)))
    return low, high


def correlation_difference(
    y: Sequence[float], a: Sequence[float], b: Sequence[float], *, method: Method = "pearson",
    confidence: float = 0.95, min_items: int = MIN_PAIRS,
) -> CorrelationDifference:
    """``corr(y, a) - corr(y, b)`` over the same responses, with Zou's interval: is scorer
    ``a`` closer to the people's ratings ``y`` than scorer ``b``?

    >>> y = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    >>> d = correlation_difference(y, y, [2, 1, 4, 3, 6, 5, 8, 7, 10, 9, 12, 11])
    >>> round(d.difference, 4), round(d.low, 4), round(d.high, 4), d.differs
    (0.042, 0.0115, 0.1467, True)
    """
    _checked(confidence, min_items, method)
    ys, xa, xb = _prepared({"y": y, "a": a, "b": b}, method)
    n = len(ys)
    reason = (f"n={n}: too few pairs for an interval (needs {min_items})" if n < min_items
              else _constant([ys, xa, xb], ["y", "a", "b"]))
    if reason is not None:
        defined = n >= 2 and _constant([ys, xa, xb], ["y", "a", "b"]) is None
        r_a, r_b = (_r(ys, xa), _r(ys, xb)) if defined else (None, None)
        diff = None if r_a is None or r_b is None else r_a - r_b
        return CorrelationDifference(r_a, r_b, diff, None, None, n, method, confidence, reason)
    r_a, r_b, r_ab = _r(ys, xa), _r(ys, xb), _r(xa, xb)
    low, high = zou_interval(r_a, r_b, r_ab, n, method=method, confidence=confidence)
    return CorrelationDifference(r_a, r_b, r_a - r_b, low, high, n, method, confidence)
