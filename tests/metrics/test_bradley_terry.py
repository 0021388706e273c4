"""Bradley-Terry with a first-position bias: against statsmodels' Logit on the same design
matrix, a brute-force grid on tiny data, and hand counts for the win matrix and triads."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from creval.metrics.bradley_terry import (
    bootstrap_bradley_terry,
    bradley_terry,
    intransitive_triads,
    pair_design_matrix,
    win_matrix,
)


def simulated(seed: int, n: int = 300, ties: bool = True) -> tuple[list[str], list[str], list[float]]:
    """Comparisons of four models with strengths 1, 0.3, 0, -1.3 and a bias of 0.7."""
    rng = random.Random(seed)
    strength = {"a": 1.0, "b": 0.3, "c": 0.0, "d": -1.3}
    first, second, outcome = [], [], []
    for _ in range(n):
        i, j = rng.sample(sorted(strength), 2)
        p = 1 / (1 + math.exp(-(strength[i] - strength[j] + 0.7)))
        u = rng.random()
        y = 0.5 if ties and abs(u - p) < 0.05 else float(u < p)
        first.append(i)
        second.append(j)
        outcome.append(y)
    return first, second, outcome


def test_matches_statsmodels_logit_on_the_same_design_matrix() -> None:
    import statsmodels.api as sm

    first, second, outcome = simulated(1)
    fit = bradley_terry(first, second, outcome, prior=0)
    index = {m: i for i, m in enumerate(fit.models)}
    x = np.asarray(pair_design_matrix([index[m] for m in first], [index[m] for m in second], 4))
    logit = sm.Logit(np.asarray(outcome), x).fit(disp=0, tol=1e-12, maxiter=200)
    theta = np.append(logit.params[:-1], 0.0)
    assert fit.ratings == pytest.approx(list(theta - theta.mean()), abs=1e-5)
    assert fit.bias == pytest.approx(logit.params[-1], abs=1e-5)
    # statsmodels scores a tie as log(1/2) whatever p: the same maximum, another likelihood
    assert fit.log_likelihood <= 0
    assert 0.3 < fit.bias < 1.1  # the simulated 0.7, from 300 comparisons


def test_the_prior_is_one_virtual_tie_per_pair_and_order() -> None:
    first, second, outcome = simulated(2, n=60, ties=False)
    pairs = sorted({tuple(sorted(p)) for p in zip(first, second, strict=True)})
    extra_first = [a for a, b in pairs] + [b for a, b in pairs]
    extra_second = [b for a, b in pairs] + [a for a, b in pairs]
    with_prior = bradley_terry(first, second, outcome, prior=2)
    explicit = bradley_terry(first + extra_first, second + extra_second,
                             outcome + [0.5] * len(extra_first), prior=0)
    assert with_prior.ratings == pytest.approx(explicit.ratings, abs=1e-5)
    assert with_prior.bias == pytest.approx(explicit.bias, abs=1e-5)


def test_brute_force_grid_on_two_models() -> None:
    # a shown first: wins 5 of 6; b shown first: wins 2 of 6 (a wins 4), one tie
    first = ["a"] * 6 + ["b"] * 6
    second = ["b"] * 6 + ["a"] * 6
    outcome = [1, 1, 1, 1, 1, 0] + [1, 1, 0, 0, 0, 0.5]
    fit = bradley_terry(first, second, outcome, prior=0)

    d, g = np.meshgrid(np.arange(-3, 3, 0.005), np.arange(-3, 3, 0.005), indexing="ij")
    total = np.zeros_like(d)
    for a, y in zip(first, outcome, strict=True):  # the log-likelihood on the whole grid
        p = 1 / (1 + np.exp(-((d if a == "a" else -d) + g)))
        total += y * np.log(p) + (1 - y) * np.log(1 - p)
    at = np.unravel_index(np.argmax(total), total.shape)
    best = (d[at], g[at])
    assert fit.rating("a") - fit.rating("b") == pytest.approx(best[0], abs=0.01)
    assert fit.bias == pytest.approx(best[1], abs=0.01)
    assert fit.rating("a") == pytest.approx(-fit.rating("b"))


def test_anchors_fix_their_mean_and_keep_the_differences() -> None:
    first, second, outcome = simulated(3)
    free = bradley_terry(first, second, outcome)
    anchored = bradley_terry(first, second, outcome, anchors=["b", "c"])
    assert anchored.rating("b") + anchored.rating("c") == pytest.approx(0, abs=1e-9)
    shift = anchored.rating("a") - free.rating("a")
    assert [r - shift for r in anchored.ratings] == pytest.approx(free.ratings, abs=1e-6)
    assert anchored.comparisons == [sum(m in p for p in zip(first, second, strict=True)) for m in "abcd"]


def test_a_model_that_always_wins_stays_finite_with_the_prior() -> None:
    first = ["a", "b", "c", "a", "c", "b"] * 4
    second = ["b", "a", "a", "c", "b", "c"] * 4
    outcome = [1, 0, 0, 1, 1, 1] * 4  # a always wins; b-c: the first shown
    fit = bradley_terry(first, second, outcome)
    assert 1 < fit.rating("a") < 10
    assert fit.rating("b") == pytest.approx(fit.rating("c"), abs=1e-6)


def test_bootstrap_resamples_items_and_judges_together() -> None:
    first, second, outcome = simulated(4, n=120)
    items = [str(k // 4) for k in range(120)]
    judges = ["j1", "j2"] * 60
    one = bootstrap_bradley_terry(first, second, outcome, items=items, judges=judges, resamples=100, seed=5)
    again = bootstrap_bradley_terry(first, second, outcome, items=items, judges=judges, resamples=100, seed=5)
    assert one == again  # seeded
    assert all(lo <= r <= hi for lo, r, hi in zip(one.low, one.fit.ratings, one.high, strict=True))
    assert one.bias_low < one.fit.bias < one.bias_high
    items_only = bootstrap_bradley_terry(first, second, outcome, items=items, resamples=100, seed=5)
    # the judges' level adds variance: wider on average than items alone
    width = sum(h - lo for lo, h in zip(one.low, one.high, strict=True))
    assert width > sum(h - lo for lo, h in zip(items_only.low, items_only.high, strict=True))


def test_win_matrix_by_hand() -> None:
    names, shares, counts = win_matrix(["a", "b", "a", "c"], ["b", "a", "c", "a"], [1, 1, 0.5, 0])
    assert names == ["a", "b", "c"]
    assert shares[0][1] == 0.5 and shares[1][0] == 0.5  # a won shown first, b won shown first
    assert shares[0][2] == 0.75 and shares[2][0] == 0.25  # a tie and a win of a
    assert shares[1][2] is None and counts[1][2] == 0 and counts[0][2] == 2


def test_triads_count_two_cyclic_orientations_of_eight() -> None:
    cyclic = 0
    for bits in itertools.product([0, 1], repeat=3):
        m: list[list[float | None]] = [[None] * 3 for _ in range(3)]
        for (i, j), bit in zip([(0, 1), (1, 2), (0, 2)], bits, strict=True):
            m[i][j], m[j][i] = float(bit), 1.0 - bit
        cyclic += intransitive_triads(m).cyclic
    assert cyclic == 2
    four = [[None, 1, 1, 0], [0, None, 1, 1], [0, 0, None, 1], [1, 0, 0, None]]
    t = intransitive_triads(four)  # a>b>c>d>a with a>c, b>d: triads abd and acd are cyclic
    assert (t.cyclic, t.transitive, t.rate) == (2, 2, 0.5)


@pytest.mark.parametrize("args, message", [
    ((["a"], ["a"], [1]), "with itself"),
    ((["a"], ["b"], [0.3]), "outcome"),
    ((["a", "c"], ["b", "d"], [1, 0]), "do not connect"),
    ((["a"], ["b", "a"], [1]), "same length"),
])
def test_bad_input_is_named(args: tuple[list[str], list[str], list[float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry(*args)
    with pytest.raises(ValueError, match="anchors"):
        bradley_terry(["a"], ["b"], [1], anchors=["z"])
