"""Fixed-count binning of a scatter (seed 001, Figures 6, 10 and 11).

The paper plots semantic entropy against a convergent score as "the mean Y value at the
median X value of a unique set of 15 data points": the points are sorted by X and cut into
consecutive groups of ``size``; each group becomes one point. The paper does not say what
happens to the remainder; here the last group keeps it (it has fewer than ``size`` points and
its ``n`` says so).

>>> [(b.x, b.y, b.n) for b in fixed_count_bins([3, 1, 2, 5, 4], [1, 0, 0, 1, 1], size=2)]
[(1.5, 0.0, 2), (3.5, 1.0, 2), (5.0, 1.0, 1)]
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Bin", "fixed_count_bins"]


@dataclass(frozen=True)
class Bin:
    """One group: the median of its X values, the mean of its Y values, its size."""

    x: float
    y: float
    n: int


def fixed_count_bins(x: Sequence[float], y: Sequence[float], *, size: int = 15) -> list[Bin]:
    """Sort the points by ``x`` (ties keep their order) and summarise each run of ``size``.

    >>> fixed_count_bins([0.1, 0.2], [1, 0], size=15)
    [Bin(x=0.15000000000000002, y=0.5, n=2)]
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be a positive integer, got {size!r}.")
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}.")
    for name, values in (("x", x), ("y", y)):
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ValueError(f"{name}[{i}] must be a finite number, got {v!r}.")
    points = sorted(zip(x, y, strict=True), key=lambda p: p[0])
    return [
        Bin(x=float(statistics.median(p[0] for p in chunk)),
            y=float(statistics.fmean(p[1] for p in chunk)), n=len(chunk))
        for chunk in (points[i:i + size] for i in range(0, len(points), size))
    ]
