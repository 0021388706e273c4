"""The per-metric separation row, checked by hand."""

from __future__ import annotations

import pytest

from creval.benchmarks.metric_validity.analysis import metric_agreement, separation_row


def test_lower_is_creative_metrics_are_oriented() -> None:
    # tpt: lower = creative. creative 0.1, 0.2; uncreative 0.3, 0.4 -> perfect separation.
    row = separation_row("tpt", [0.1, 0.2], [0.3, 0.4])
    assert row["direction"] == "lower"
    assert row["auroc"] == 1.0 and row["best_accuracy"] == 1.0
    assert row["best_threshold"] == pytest.approx(0.2)  # "tpt <= 0.2 means creative"
    # means 0.15 and 0.35, both sd 0.0707 -> d = 0.2 / 0.0707 = 2.8284 (oriented: positive)
    assert row["cohens_d"] == pytest.approx(2.8284, abs=1e-4)
    assert row["mean_creative"] == 0.15 and row["mean_uncreative"] == 0.35


def test_higher_is_creative_and_median_threshold() -> None:
    # ci: creative 0.9, 0.5; uncreative 0.6, 0.2. Pairs won: 0.9>0.6, 0.9>0.2, 0.5>0.2 -> 3/4.
    row = separation_row("ci_mean", [0.9, 0.5], [0.6, 0.2])
    assert row["auroc"] == 0.75
    # median of all = 0.55: predicted creative 0.9 (tp), 0.6 (fp) -> accuracy 2/4
    assert row["median_accuracy"] == 0.5


def test_agreement_needs_three_shared_texts() -> None:
    per_text = {"a": {"ci_mean": 1.0, "tpt": 0.3}, "b": {"ci_mean": 0.5, "tpt": 0.2},
                "c": {"ci_mean": 0.1, "tpt": 0.1}, "d": {"ci_mean": 0.2}}
    (row,) = metric_agreement(per_text)
    assert (row["metric_a"], row["metric_b"], row["n"], row["spearman"]) == ("ci_mean", "tpt", 3, 1.0)


def test_auroc_and_d_intervals_from_five_texts_a_set() -> None:
    # 2 texts a set, perfectly separated: AUROC 1 but too few texts for an interval (the
    # percentile bootstrap printed [1, 1] here)
    row = separation_row("tpt", [0.1, 0.2], [0.3, 0.4])
    assert row["auroc"] == 1.0 and row["auroc_low"] is None and row["auroc_high"] is None
    assert row["d_ci_low"] is None and "too few for an interval (needs 5 a set)" in row["interval_note"]
    pos, neg = [0.9, 0.5, 0.7, 0.3, 0.8], [0.6, 0.2, 0.4, 0.55, 0.1]
    row = separation_row("ci_mean", pos, neg)
    assert row["auroc"] == 0.8 and 0 < row["auroc_low"] < 0.8 < row["auroc_high"] < 1.0
    assert row["d_ci_low"] < row["cohens_d"] < row["d_ci_high"]
    assert "interval_note" not in row
    # one text in a set: no interval
    row = separation_row("ci_mean", [0.9], neg)
    assert row["auroc_low"] is None and row["auroc_high"] is None
