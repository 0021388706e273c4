"""Mode collapse of a random choice: how far a model's answers to "pick one of N at random"
are from uniform (Verbalized Sampling, Zhang et al. 2025, section on random number
generation: the KL divergence of the answers' distribution from the uniform one).

>>> round(kl_from_uniform([10, 0, 0, 0, 0, 0]), 4)  # always the same face: log 6
1.7918
>>> kl_from_uniform([5, 5, 5, 5, 5, 5])
0.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from creval.errors import CrevalError


def kl_from_uniform(counts: Sequence[int]) -> float:
    """``KL(p || uniform)`` in nats of the empirical distribution ``p`` of ``counts`` (one
    count per option, zeros included) against the uniform distribution over the options:
    ``sum p_i log(p_i N)`` = ``log N - H(p)``; 0 when uniform, ``log N`` when every answer is
    the same option.

    >>> round(kl_from_uniform([3, 1]), 6)  # 0.75 log 1.5 + 0.25 log 0.5
    0.130812
    """
    if len(counts) < 2:
        raise CrevalError("kl_from_uniform needs counts for at least two options.")
    if any(c < 0 for c in counts):
        raise CrevalError("kl_from_uniform: counts must not be negative.")
    total = sum(counts)
    if total == 0:
        raise CrevalError("kl_from_uniform: no answer to measure (all counts are 0).")
    n = len(counts)
    return sum((c / total) * math.log(c / total * n) for c in counts if c)
