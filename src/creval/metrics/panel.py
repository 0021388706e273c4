"""A panel of judges: each judge's value per item combined into the panel's, and how far the
judges agree with each other.

``by_judge[j][i]`` is judge ``j``'s value of item ``i`` (None: no value, e.g. a verdict that
did not parse). :func:`panel_values` combines each item's values:

- ``mean``: the mean of the values the item has;
- ``majority``: the value most judges gave; None when the top count is tied (as
  :func:`creval.metrics.agreement.majority_vote`); meant for verdicts (0/1, a 1-5 score);
- ``trimmed``: the trimmed mean that drops the single lowest and the single highest value of
  the item (``scipy.stats.trim_mean`` with a cut of ``1/k`` for ``k`` values), so one judge
  out of line moves nothing; it needs at least 3 values (with 3 it is the median), and an
  item with fewer has None.

:func:`agreement_matrix` holds every pair of judges against each other on the items both
valued, with the statistic the values call for (:func:`value_kind`): Cohen's kappa for
verdicts with two labels (binary), Spearman's rho for numbers (a 1-5 score, a mean of
criteria: the order matters, not the spacing), and beside either the share of items the
two gave exactly the same value.

>>> panel_values([[1.0, 4.0], [2.0, 4.0], [6.0, None]], aggregate="mean")
[3.0, 4.0]
>>> panel_values([[1.0, 4.0], [2.0, 4.0], [6.0, None]], aggregate="trimmed")
[2.0, None]
>>> panel_values([[1, 0, 1], [1, 1, 0], [0, 1, 0]], aggregate="majority")
[1, 1, 0]
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from creval.metrics.agreement import cohen_kappa, rank_agreement

__all__ = ["PairAgreement", "agreement_matrix", "panel_values", "value_kind"]

Aggregate = Literal["mean", "majority", "trimmed"]
Kind = Literal["auto", "binary", "numeric"]
Value = float | int | None


def _table(by_judge: Sequence[Sequence[Value]], need: int) -> list[list[Value]]:
    """``by_judge`` checked: at least ``need`` judges, one value (or None) per item each."""
    if isinstance(by_judge, (str, bytes)) or not isinstance(by_judge, Sequence):
        raise ValueError(f"by_judge must be a sequence of judges' values, got {type(by_judge).__name__}.")
    if len(by_judge) < need:
        raise ValueError(f"by_judge needs at least {need} judges, got {len(by_judge)}.")
    rows = []
    for j, values in enumerate(by_judge):
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise ValueError(f"by_judge[{j}] must be a sequence of values, got {type(values).__name__}.")
        if len(values) != len(by_judge[0]):
            raise ValueError(f"by_judge[{j}] has {len(values)} values, by_judge[0] has "
                             f"{len(by_judge[0])}: give every judge one value (or None) per item.")
        for i, v in enumerate(values):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or not math.isfinite(v)):
                raise ValueError(f"by_judge[{j}][{i}] must be a finite number or None, got {v!r}.")
        rows.append(list(values))
    return rows


def _combine(values: list[float | int], aggregate: Aggregate) -> Value:
    if aggregate == "mean":
        return statistics.fmean(values) if values else None
    if aggregate == "majority":
        counts = Counter(values).most_common()
        if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
            return None
        return counts[0][0]
    if len(values) < 3:
        return None
    return statistics.fmean(sorted(values)[1:-1])


def panel_values(by_judge: Sequence[Sequence[Value]], *, aggregate: Aggregate = "mean") -> list[Value]:
    """The panel's value of each item from its judges' values (see the module docstring).

    Hand calculation: item values 1, 2, 6 have mean 3, the trimmed mean drops 1 and 6 (2),
    and no majority (three different values); 4, 4 and None have mean and majority 4 and,
    with two values, no trimmed mean.

    >>> panel_values([[1, 4], [2, 4], [6, None]], aggregate="majority")
    [None, 4]
    """
    if aggregate not in ("mean", "majority", "trimmed"):
        raise ValueError(f"aggregate must be 'mean', 'majority' or 'trimmed', got {aggregate!r}.")
    rows = _table(by_judge, 1)
    return [_combine([r[i] for r in rows if r[i] is not None], aggregate)  # type: ignore[misc]
            for i in range(len(rows[0]))]


def value_kind(by_judge: Sequence[Sequence[Value]]) -> Literal["binary", "numeric"]:
    """``binary`` when every value is 0 or 1 (verdicts), else ``numeric``.

    >>> value_kind([[1, 0, None], [0, 0, 1]]), value_kind([[1, 5], [3, 4]])
    ('binary', 'numeric')
    """
    rows = _table(by_judge, 1)
    return "binary" if all(v in (0, 1) for r in rows for v in r if v is not None) else "numeric"


@dataclass(frozen=True)
class PairAgreement:
    """Judges ``a`` and ``b`` (indices) over the ``n`` items both valued: ``statistic`` is
    ``kappa`` (Cohen's) or ``spearman`` (rho), ``value`` its value (None when undefined:
    fewer than 2 common items, or a judge gave one value throughout; ``note`` says which),
    ``exact`` the share of those items with the same value from both."""

    a: int
    b: int
    statistic: Literal["kappa", "spearman"]
    value: float | None
    n: int
    exact: float | None
    note: str | None = None


def agreement_matrix(by_judge: Sequence[Sequence[Value]], *, kind: Kind = "auto") -> list[PairAgreement]:
    """Every pair of judges' agreement on the items both valued (``kind``: ``binary`` for
    Cohen's kappa, ``numeric`` for Spearman's rho, ``auto`` by :func:`value_kind`).

    Hand calculation: verdicts 1 1 0 0 and 1 0 0 0 agree on 3 of 4 items; chance agreement
    is 1/2 * 1/4 + 1/2 * 3/4 = 1/2, so kappa = (3/4 - 1/2) / (1 - 1/2) = 1/2.

    >>> pair = agreement_matrix([[1, 1, 0, 0], [1, 0, 0, 0]])[0]
    >>> pair.statistic, pair.value, pair.exact, pair.n
    ('kappa', 0.5, 0.75, 4)
    >>> round(agreement_matrix([[1, 2, 3, 4], [1, 3, 2, 4]])[0].value, 6)  # one swap: rho 0.8
    0.8
    """
    if kind not in ("auto", "binary", "numeric"):
        raise ValueError(f"kind must be 'auto', 'binary' or 'numeric', got {kind!r}.")
    rows = _table(by_judge, 2)
    chosen = value_kind(rows) if kind == "auto" else kind
    out = []
    for a, b in combinations(range(len(rows)), 2):
        both = [(x, y) for x, y in zip(rows[a], rows[b], strict=True) if x is not None and y is not None]
        xs, ys = [p[0] for p in both], [p[1] for p in both]
        n = len(both)
        exact = sum(x == y for x, y in both) / n if n else None
        statistic: Literal["kappa", "spearman"] = "kappa" if chosen == "binary" else "spearman"
        if n < 2:
            out.append(PairAgreement(a, b, statistic, None, n, exact,
                                     f"{n} item(s) valued by both: too few to say"))
        elif statistic == "kappa":
            k = cohen_kappa(xs, ys)
            out.append(PairAgreement(a, b, statistic, k.kappa, n, exact, k.note))
        else:
            rho = rank_agreement(xs, ys).spearman
            out.append(PairAgreement(a, b, statistic, rho.r, n, exact, rho.note))
    return out
