"""S_c (seed 003, Eq. 8), the round histogram and the bootstrap interval: hand calculations."""

from __future__ import annotations

import math

import pytest

from creval.metrics.bootstrap import bootstrap_mean_ci
from creval.metrics.lotbench import creativity_score, game_score, round_histogram, sample_scores


def test_sc_hand_calculation_with_repeats() -> None:
    # 2 samples x m = 3 repeats. Sample 1 solved at rounds 1, 2, 5; sample 2 at 3, unsolved, 10.
    # Terms: e^-0.2 = 0.818731, e^-0.4 = 0.670320, e^-1.0 = 0.367879,
    #        e^-0.6 = 0.548812, 0 (unsolved), e^-2.0 = 0.135335.
    # S_c = (0.818731 + 0.670320 + 0.367879 + 0.548812 + 0 + 0.135335) / 6 = 0.423513
    rounds: list[list[int | None]] = [[1, 2, 5], [3, None, 10]]
    assert creativity_score(rounds) == pytest.approx(0.423513, abs=1e-6)
    assert sample_scores(rounds) == pytest.approx([0.618977, 0.228049], abs=1e-6)


def test_unsolved_score_is_an_explicit_option() -> None:
    # Scoring an unsolved game as 0.05 instead of 0: (e^-0.2 + 0.05) / 2 = 0.434366
    assert creativity_score([[1, None]], unsolved=0.05) == pytest.approx(0.434366, abs=1e-6)


def test_alpha_and_beta() -> None:
    assert game_score(2, alpha=0.5, beta=2.0) == pytest.approx(2 * math.exp(-1.0))
    # the leaderboard's scale: a sample solved at round 1 scores 0.8187, at round 10 0.1353
    assert round(game_score(1), 4) == 0.8187 and round(game_score(10), 4) == 0.1353


def test_histogram() -> None:
    assert round_histogram([[1, 2, 5], [3, None, 10]], max_rounds=10) == {
        1: 1, 2: 1, 3: 1, 5: 1, 10: 1, "unsolved": 1}
    with pytest.raises(ValueError, match="exceeds max_rounds"):
        round_histogram([[11]], max_rounds=10)


@pytest.mark.parametrize(
    ("rounds", "message"),
    [([], "non-empty"), ([[]], r"rounds\[0\]"), ([[0]], r"rounds\[0\]\[0\]"),
     ([[1.5]], r"rounds\[0\]\[0\]"), ([[True]], r"rounds\[0\]\[0\]")],
)
def test_bad_rounds_are_named(rounds: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        creativity_score(rounds)  # type: ignore[arg-type]


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="alpha"):
        creativity_score([[1]], alpha=0)
    with pytest.raises(ValueError, match="unsolved"):
        creativity_score([[1]], unsolved=-1)


def test_bootstrap_interval_brackets_the_mean_and_is_reproducible() -> None:
    values = [0.0, 0.1, 0.2, 0.8, 0.9]
    a = bootstrap_mean_ci(values, seed=3)
    b = bootstrap_mean_ci(values, seed=3)
    assert a == b and a.mean == pytest.approx(0.4)
    assert 0.0 <= a.low < a.mean < a.high <= 0.9
    wide = bootstrap_mean_ci(values, confidence=0.99, seed=3)
    assert wide.low <= a.low and wide.high >= a.high


def test_bootstrap_of_two_values_has_the_exact_resampling_distribution() -> None:
    # Resampling [0, 1] twice gives means 0, 0.5, 0.5, 1 with probabilities 1/4, 1/2, 1/4:
    # the 2.5% and 97.5% quantiles of 20000 resample means are 0 and 1.
    ci = bootstrap_mean_ci([0.0, 1.0], resamples=20000, seed=0)
    assert (ci.low, ci.high) == (0.0, 1.0)
    narrow = bootstrap_mean_ci([0.0, 1.0], confidence=0.4, resamples=20000, seed=0)
    assert (narrow.low, narrow.high) == (0.5, 0.5)  # the middle 40% is all 0.5


def test_bootstrap_bad_input() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        bootstrap_mean_ci([])
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_mean_ci([1.0], confidence=1.0)


def test_human_groups_by_thirds() -> None:
    from creval.metrics.lotbench import human_groups

    # 21 players as in the paper: thirds of 7. Scores 1..21 (x 0.01): means 4, 11, 18 (x 0.01)
    groups = human_groups([i / 100 for i in range(21, 0, -1)])
    assert groups == pytest.approx({"low": 0.04, "medium": 0.11, "high": 0.18})
    # 4 players: sizes 2, 1, 1
    assert human_groups([0.4, 0.1, 0.3, 0.2]) == pytest.approx({"low": 0.15, "medium": 0.3, "high": 0.4})
    with pytest.raises(ValueError, match="at least 3"):
        human_groups([0.1, 0.2])
