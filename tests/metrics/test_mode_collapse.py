from __future__ import annotations

import math
import random

import pytest
from scipy.stats import entropy

from creval.errors import CrevalError
from creval.metrics.mode_collapse import kl_from_uniform


@pytest.mark.parametrize("seed", range(5))
def test_kl_from_uniform_is_scipy_relative_entropy(seed: int) -> None:
    rng = random.Random(seed)
    counts = [rng.choice([0, 0, 1, 3, 10, 50]) for _ in range(rng.randrange(2, 12))]
    if not sum(counts):
        counts[0] = 1
    n = len(counts)
    assert kl_from_uniform(counts) == pytest.approx(float(entropy(counts, [1 / n] * n)), rel=1e-12, abs=1e-15)


def test_extremes_and_errors() -> None:
    assert kl_from_uniform([7, 7, 7]) == 0.0
    assert kl_from_uniform([0, 9, 0, 0]) == pytest.approx(math.log(4))
    for bad in ([1], [0, 0], [-1, 2]):
        with pytest.raises(CrevalError):
            kl_from_uniform(bad)
