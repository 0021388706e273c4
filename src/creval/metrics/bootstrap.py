"""Percentile bootstrap confidence interval of a mean (Efron and Tibshirani 1993, ch. 13).

Resample the values with replacement ``resamples`` times (seeded, so the interval is
reproducible), take each resample's mean, and return the ``(1 - confidence) / 2`` and
``(1 + confidence) / 2`` quantiles of those means (numpy's linear interpolation). With a
single value, or identical values, the interval collapses to that value.

>>> ci = bootstrap_mean_ci([0.2, 0.4, 0.6, 0.8], seed=0)
>>> ci.mean, ci.low <= ci.mean <= ci.high, ci.confidence
(0.5, True, 0.95)
>>> bootstrap_mean_ci([0.25, 0.25, 0.25])
BootstrapCI(mean=0.25, low=0.25, high=0.25, confidence=0.95, resamples=2000)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BootstrapCI", "bootstrap_mean_ci"]


@dataclass(frozen=True)
class BootstrapCI:
    """The sample mean and its percentile bootstrap interval ``[low, high]``."""

    mean: float
    low: float
    high: float
    confidence: float
    resamples: int


def bootstrap_mean_ci(
    values: Sequence[float], *, confidence: float = 0.95, resamples: int = 2000, seed: int = 0
) -> BootstrapCI:
    """The mean of ``values`` with its percentile bootstrap confidence interval."""
    import numpy as np

    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ValueError("values must be a non-empty sequence of numbers.")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"values[{i}] must be a finite number, got {v!r}.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1:
        raise ValueError(f"resamples must be a positive integer, got {resamples!r}.")
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if data.min() == data.max():
        return BootstrapCI(mean, mean, mean, confidence, resamples)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(data), size=(resamples, len(data)))
    means = data[picks].mean(axis=1)
    low, high = np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])
    return BootstrapCI(mean, float(low), float(high), confidence, resamples)
