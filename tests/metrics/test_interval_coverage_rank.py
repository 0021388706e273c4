"""Coverage, simulated, of the Bradley-Terry ratings' interval ``creval rank`` prints (the
two-way percentile bootstrap of :func:`creval.metrics.bradley_terry.bootstrap_bradley_terry`):
from :data:`creval.evaluation.rank.fit.RANK_MIN_ITEMS` items it covers each model's true
centred strength; below, no interval is printed (``tests/cli/test_rank.py``). Few
replications (each is a 200-resample bootstrap): the bar is lowered by their Monte Carlo
error; ``bench/README.md`` records the larger run."""

from __future__ import annotations

import numpy as np
import pytest

from creval.evaluation.rank.fit import RANK_MIN_ITEMS
from creval.metrics.bradley_terry import bootstrap_bradley_terry

STRENGTHS = np.array([0.8, 0.0, -0.8])  # centred on all models
BIAS = 0.5
JUDGES = 2


def coverage(n_items: int, reps: int, seed: int, resamples: int = 200) -> float:
    """Share of (replication, model) pairs whose interval holds the true strength: every pair
    of the 3 models on ``n_items`` items, by 2 judges, in both orders, outcomes drawn from
    the Bradley-Terry model with a first-position bias (each judge with its own leaning)."""
    rng = np.random.default_rng(seed)
    names = ["m0", "m1", "m2"]
    hits = total = 0
    for rep in range(reps):
        first, second, items, judges, outcome = [], [], [], [], []
        lean = rng.normal(0, 0.3, JUDGES)
        for item in range(n_items):
            ease = rng.normal(0, 0.5, 3)  # an item favours some models
            for j in range(JUDGES):
                for a in range(3):
                    for b in range(3):
                        if a == b:
                            continue
                        logit = STRENGTHS[a] + ease[a] - STRENGTHS[b] - ease[b] + BIAS + lean[j]
                        first.append(names[a])
                        second.append(names[b])
                        items.append(str(item))
                        judges.append(str(j))
                        outcome.append(float(rng.random() < 1 / (1 + np.exp(-logit))))
        fit = bootstrap_bradley_terry(first, second, outcome, items=items, judges=judges, models=names,
                                      resamples=resamples, seed=rep)
        for m, truth in enumerate(STRENGTHS):
            hits += fit.low[m] <= truth <= fit.high[m]
            total += 1
    return hits / total


@pytest.mark.parametrize("n_items", [RANK_MIN_ITEMS, 10])
def test_bradley_terry_interval_covers_from_the_minimum(n_items: int) -> None:
    # 25 replications x 3 models: a Monte Carlo error of about 3 points, so the bar is 0.90
    assert coverage(n_items, reps=25, seed=n_items, resamples=150) >= 0.90


def test_below_the_minimum_it_would_not_cover() -> None:
    """Why the minimum: at 2 items the bootstrap's interval is too narrow."""
    assert RANK_MIN_ITEMS > 2
    assert coverage(2, reps=25, seed=2, resamples=150) < 0.93
