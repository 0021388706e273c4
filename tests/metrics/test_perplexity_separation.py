"""Perplexity and the two-set separation statistics, checked by hand."""

from __future__ import annotations

import math

import pytest

from creval.metrics.perplexity import corpus_perplexity, perplexity
from creval.metrics.separation import (
    auroc,
    best_threshold,
    bootstrap_ci,
    cohens_d,
    overlap,
    threshold_metrics,
)


def test_perplexity_by_hand() -> None:
    # probabilities 1/2, 1/4, 1/8: mean log = ln(1/4) ... (ln 2 + ln 4 + ln 8)/3 = ln 4
    assert perplexity([math.log(0.5), math.log(0.25), math.log(0.125)]) == pytest.approx(4.0)
    assert perplexity([0.0]) == 1.0
    # pooled tokens: (ln 1/2 + ln 1/8 + ln 1/8) / 3 -> exp(7 ln2 / 3)
    assert corpus_perplexity([[math.log(0.5)], [math.log(0.125)] * 2]) == pytest.approx(2 ** (7 / 3))


def test_perplexity_bad_input() -> None:
    with pytest.raises(ValueError, match="empty text"):
        perplexity([])
    with pytest.raises(ValueError, match=r"logprobs\[1\]"):
        perplexity([-1.0, 0.5])
    with pytest.raises(ValueError, match=r"texts\[0\]\[0\]"):
        corpus_perplexity([[float("nan")]])


def test_auroc_and_thresholds_by_hand() -> None:
    pos, neg = [0.9, 0.8, 0.4], [0.5, 0.3]
    # pairs won by pos: 0.9>0.5, 0.9>0.3, 0.8>0.5, 0.8>0.3, 0.4>0.3 -> 5 of 6
    assert auroc(pos, neg) == pytest.approx(5 / 6)
    assert auroc(neg, pos) == pytest.approx(1 / 6)
    # threshold 0.8: predicted creative 0.9, 0.8 (tp 2), none of neg; tn 2 -> acc 4/5
    r = threshold_metrics(pos, neg, 0.8)
    assert (r.accuracy, r.precision, r.recall) == (0.8, 1.0, pytest.approx(2 / 3))
    assert r.f1 == pytest.approx(0.8)
    # 0.4 also gives 4/5 (fp 0.5); the lower threshold wins ties
    best = best_threshold(pos, neg)
    assert best.accuracy == 0.8 and best.threshold == 0.4


def test_effect_size_interval_and_overlap() -> None:
    # means 2 and 0, variances 1 and 1 -> d = 2
    assert cohens_d([1, 2, 3], [-1, 0, 1]) == pytest.approx(2.0)
    assert overlap(2.0) == pytest.approx(2 * 0.5 * math.erfc(1 / math.sqrt(2)))
    lo, hi = bootstrap_ci([1, 2, 3, 4, 5], [-1, 0, 1, 2, 0], n_resamples=300, seed=1)
    d = cohens_d([1, 2, 3, 4, 5], [-1, 0, 1, 2, 0])
    assert lo < d < hi
    with pytest.raises(ValueError, match="constant"):
        cohens_d([1, 1], [2, 2])
