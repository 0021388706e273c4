"""The contract of ``Scores`` that ``creval profile`` relies on, checked on a benchmark's scores:
``per_item[k]`` holds the item values whose plain mean (None left out) is ``headline[k]``, and
an interval ``k_low``/``k_high`` the scorer writes itself surrounds ``headline[k]``."""

from __future__ import annotations

import statistics

import pytest

from creval.records import Scores


def assert_per_item_means(scores: Scores) -> None:
    """Every ``per_item`` key is a headline whose value is the mean of its items (None for
    a headline without any item value)."""
    for key, items in scores.per_item.items():
        assert key in scores.headline, f"per_item[{key!r}] has no headline"
        values = [v for v in items if v is not None]
        if not values:
            assert scores.headline[key] is None, key
        else:
            assert scores.headline[key] == pytest.approx(statistics.fmean(values)), key


def assert_intervals(scores: Scores, keys: list[str]) -> None:
    """``k_low <= k <= k_high`` for each of ``keys`` (all three numbers present)."""
    for key in keys:
        low, value, high = (scores.headline[f"{key}_low"], scores.headline[key],
                            scores.headline[f"{key}_high"])
        assert None not in (low, value, high), key
        assert low <= value <= high, (key, low, value, high)
