"""A scorer's own interval is shown with its own level, n and unit (issue 44): TTCW-judges'
kappa and accuracy intervals are over 36 stories, not the 504 items behind the value."""

from __future__ import annotations

from creval.records import Scores
from creval.report.headline import measure_interval


def _judges_scores() -> Scores:
    over = {"level": 0.95, "n": 36, "unit": "stories", "method": "jackknife over stories"}
    return Scores(headline={"accuracy": 0.4, "accuracy_low": 0.3, "accuracy_high": 0.5},
                  per_item={"accuracy": [0.0, 1.0] * 252}).with_extra(intervals={"accuracy": over})


def test_the_console_gives_the_scorers_n() -> None:
    assert measure_interval(_judges_scores(), "accuracy") == ("[0.3000, 0.5000]", 36)


def test_the_profile_says_the_scorers_level_and_unit() -> None:
    from creval.evaluation.profile.data import interval

    low, high, n, how = interval(_judges_scores(), "accuracy")
    assert (low, high, n) == (0.3, 0.5, 36)
    assert how == "the scorer's 95% interval (jackknife over stories) over 36 stories"


def test_the_leaderboard_keeps_the_scorers_interval(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from types import SimpleNamespace

    from creval.report.leaderboard import leaderboard

    run = SimpleNamespace(scores=_judges_scores(), model="openai:j", path=tmp_path,
                          benchmark="ttcw-judges")
    [row] = leaderboard([run])["ttcw-judges"]  # type: ignore[list-item]
    assert (row["accuracy_low"], row["accuracy_high"], row["accuracy_n"]) == (0.3, 0.5, 36)
