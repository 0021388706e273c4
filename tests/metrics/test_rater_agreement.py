"""Fleiss' kappa against statsmodels, the cluster jackknife against a brute-force loop."""

from __future__ import annotations

import doctest
import math
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


def test_interval_is_the_cluster_jackknife_done_by_hand() -> None:
    """The vectorised leave-one-story-out values equal a loop that drops each cluster and calls
    sklearn; the interval is the estimate +- t(clusters - 1) times the jackknife error."""
    from scipy.stats import t
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(5)
    clusters = [i // 7 for i in range(56)]
    a = [rng.choice("yn") for _ in clusters]
    b = [x if rng.random() < 0.6 else rng.choice("yn") for x in a]
    r = clustered_agreement(a, b, clusters)
    accs, kappas = [], []
    for c in range(8):
        ra, rb = ([v for v, k in zip(x, clusters, strict=True) if k != c] for x in (a, b))
        accs.append(np.mean([x == y for x, y in zip(ra, rb, strict=True)]))
        kappas.append(cohen_kappa_score(ra, rb))
    q = t.ppf(0.975, 7)
    for (low, high), point, values in (((r.accuracy_low, r.accuracy_high), r.accuracy, accs),
                                       ((r.kappa_low, r.kappa_high), r.kappa, kappas)):
        se = math.sqrt(7 / 8 * sum((v - np.mean(values)) ** 2 for v in values))
        assert (low, high) == pytest.approx((point - q * se, point + q * se))
    assert r.reason is None
    few = clustered_agreement(a[:28], b[:28], clusters[:28])  # 4 stories
    assert few.kappa_low is None and few.accuracy_low is None
    assert few.reason == "4 stories: too few for an interval (needs 5)"


def test_one_label_everywhere_has_no_kappa_and_bad_input_is_named() -> None:
    r = clustered_agreement(["No"] * 4, ["No"] * 4, [1, 1, 2, 2], resamples=20)
    assert r.kappa is None and r.kappa_low is None and r.accuracy == 1.0
    with pytest.raises(ValueError, match="one value per item"):
        clustered_agreement(["y"], ["y", "n"], [1, 2])
    with pytest.raises(ValueError, match=r"judge\[0\] must be a hashable label"):
        clustered_agreement([None], ["y"], [1])
