"""Fleiss' kappa against statsmodels, the clustered bootstrap against a brute-force loop."""

from __future__ import annotations

import doctest
import random

import numpy as np
import pytest

from creval.metrics import rater_agreement
from creval.metrics.rater_agreement import clustered_agreement, fleiss_kappa


def test_doctests() -> None:
    assert doctest.testmod(rater_agreement).failed == 0


@pytest.mark.parametrize("raters,labels", [(3, "yn"), (4, "abc"), (2, "yn")])
def test_fleiss_kappa_matches_statsmodels(raters: int, labels: str) -> None:
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    rng = random.Random(raters)
    ratings = [[rng.choice(labels) for _ in range(raters)] for _ in range(40)]
    table, _ = aggregate_raters(np.array(ratings))
    assert fleiss_kappa(ratings) == pytest.approx(sm_fleiss(table, method="fleiss"), abs=1e-12)


def test_fleiss_kappa_refuses_unequal_raters() -> None:
    with pytest.raises(ValueError, match=r"ratings\[1\] has 2 labels; every item needs 3"):
        fleiss_kappa([["y", "y", "n"], ["y", "n"]])
    with pytest.raises(ValueError, match="at least two raters"):
        fleiss_kappa([["y"], ["n"]])


def test_point_values_match_sklearn() -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(3)
    a = [rng.choice("yn") for _ in range(70)]
    b = [x if rng.random() < 0.7 else rng.choice("yn") for x in a]
    r = clustered_agreement(a, b, [i // 14 for i in range(70)], resamples=50)
    assert r.kappa == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert r.accuracy == pytest.approx(np.mean([x == y for x, y in zip(a, b, strict=True)]))
    assert r.n == 70 and r.clusters == 5


def test_interval_is_the_cluster_bootstrap_done_by_hand() -> None:
    """The vectorised resampling equals a loop that redraws clusters and calls sklearn."""
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(5)
    clusters = [i // 7 for i in range(56)]
    a = [rng.choice("yn") for _ in clusters]
    b = [x if rng.random() < 0.6 else rng.choice("yn") for x in a]
    r = clustered_agreement(a, b, clusters, resamples=300, seed=11)
    draws = np.random.default_rng(11).integers(0, 8, size=(300, 8))
    accs, kappas = [], []
    for row in draws:
        idx = [i for c in row for i in range(len(a)) if clusters[i] == c]
        ra, rb = [a[i] for i in idx], [b[i] for i in idx]
        accs.append(np.mean([x == y for x, y in zip(ra, rb, strict=True)]))
        kappas.append(cohen_kappa_score(ra, rb))
    assert (r.accuracy_low, r.accuracy_high) == pytest.approx(tuple(np.quantile(accs, [0.025, 0.975])))
    assert (r.kappa_low, r.kappa_high) == pytest.approx(tuple(np.quantile(kappas, [0.025, 0.975])))


def test_one_label_everywhere_has_no_kappa_and_bad_input_is_named() -> None:
    r = clustered_agreement(["No"] * 4, ["No"] * 4, [1, 1, 2, 2], resamples=20)
    assert r.kappa is None and r.kappa_low is None and r.accuracy == 1.0
    with pytest.raises(ValueError, match="one value per item"):
        clustered_agreement(["y"], ["y", "n"], [1, 2])
    with pytest.raises(ValueError, match=r"judge\[0\] must be a hashable label"):
        clustered_agreement([None], ["y"], [1])
