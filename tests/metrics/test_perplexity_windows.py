"""The sliding-window arithmetic of long-text perplexity, by hand and by its promises."""

from __future__ import annotations

import pytest

from creval.metrics.perplexity import Window, sliding_windows


def test_hand_calculation() -> None:
    # 10 tokens, windows of 4 starting every 2: 0-3 scores 1-3; 2-5 scores 4-5; 4-7 scores
    # 6-7; 6-9 scores 8-9. Token 4 sees tokens 2 and 3 (window - stride = 2) before it.
    assert sliding_windows(10, window=4, stride=2) == [
        Window(0, 4, 1), Window(2, 6, 4), Window(4, 8, 6), Window(6, 10, 8)]
    # stride 3 of window 4: only one token of overlap, so each later window scores 3 tokens
    assert sliding_windows(8, window=4, stride=3) == [Window(0, 4, 1), Window(3, 7, 4), Window(6, 8, 7)]
    assert sliding_windows(4, window=4, stride=2) == [Window(0, 4, 1)]
    assert sliding_windows(1, window=4, stride=2) == [] and sliding_windows(0, window=4, stride=2) == []


@pytest.mark.parametrize("n", [2, 3, 7, 50, 101])
@pytest.mark.parametrize(("window", "stride"), [(2, 1), (4, 1), (4, 3), (16, 8), (16, 15), (64, 32)])
def test_each_token_once_with_at_least_window_minus_stride_of_context(n: int, window: int, stride: int) -> None:
    windows = sliding_windows(n, window=window, stride=stride)
    scored = [t for w in windows for t in range(w.first, w.end)]
    assert scored == list(range(1, n))  # every token but the first, once, in order
    for w in windows:
        assert 0 <= w.start < w.first <= w.end <= n and w.end - w.start <= window
        if w.start > 0:  # past the first window: at least window - stride tokens before each
            assert w.first - w.start >= window - stride
    assert len({w.start for w in windows}) == len(windows)


@pytest.mark.parametrize(("n", "window", "stride"), [(-1, 4, 2), (10, 1, 1), (10, 4, 4), (10, 4, 0), (10, 4, 5)])
def test_bad_arguments_name_themselves(n: int, window: int, stride: int) -> None:
    with pytest.raises(ValueError, match="n_tokens|window|stride"):
        sliding_windows(n, window=window, stride=stride)
