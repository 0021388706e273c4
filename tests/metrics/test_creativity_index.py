"""L-uniqueness and the Creativity Index from match spans, checked by hand."""

from __future__ import annotations

import pytest

from creval.metrics.creativity_index import (
    creativity_index,
    l_uniqueness,
    spans_from_match_ends,
)


def test_l_uniqueness_by_hand() -> None:
    # 10 words; spans (0, 4) [4 words], (2, 8) [6 words], (8, 10) [2 words].
    # L = 2: all three count, words 0..9 covered -> 0 unique.
    # L = 4: (0, 4) and (2, 8) count, words 0..7 covered -> 2/10 unique.
    # L = 5: only (2, 8) counts, words 2..7 covered -> 4/10 unique.
    # L = 7: nothing counts -> 1.
    spans = [(0, 4), (2, 8), (8, 10)]
    assert l_uniqueness(10, spans, min_length=2) == 0.0
    assert l_uniqueness(10, spans, min_length=4) == pytest.approx(0.2)
    assert l_uniqueness(10, spans, min_length=5) == pytest.approx(0.4)
    assert l_uniqueness(10, spans, min_length=7) == 1.0


def test_index_sum_and_mean_over_the_range() -> None:
    spans = [(0, 4), (2, 8), (8, 10)]
    result = creativity_index(10, spans, min_l=4, max_l=6)
    # L = 4: 0.2, L = 5: 0.4, L = 6: 0.4 (only (2, 8) has 6 words)
    assert result.uniqueness == pytest.approx({4: 0.2, 5: 0.4, 6: 0.4})
    assert result.total == pytest.approx(1.0)
    assert result.mean == pytest.approx(1.0 / 3)
    assert result.as_dict()["l_uniqueness"] == pytest.approx({"4": 0.2, "5": 0.4, "6": 0.4})
    assert result.as_dict()["l_range"] == [4, 6]


def test_spans_from_match_ends_drop_empty_and_check_bounds() -> None:
    assert spans_from_match_ends([2, 2, 2]) == [(0, 2), (1, 2)]
    with pytest.raises(ValueError, match=r"match_ends\[1\]"):
        spans_from_match_ends([1, 0])
    with pytest.raises(ValueError, match=r"match_ends\[0\]"):
        spans_from_match_ends([4, 2])


def test_short_texts_get_no_index_never_one() -> None:
    with pytest.raises(ValueError, match="needs more than 7"):
        creativity_index(7, [], min_l=5, max_l=7)
    assert creativity_index(8, [], min_l=5, max_l=7).mean == 1.0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_l": 0}, "min_l"),
        ({"min_l": 6, "max_l": 5}, "max_l"),
        ({"min_l": True}, "min_l"),
    ],
)
def test_bad_options_name_the_argument(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        creativity_index(20, [], **kwargs)  # type: ignore[arg-type]


def test_bad_spans_are_named() -> None:
    with pytest.raises(ValueError, match=r"spans\[1\]"):
        l_uniqueness(5, [(0, 2), (3, 9)], min_length=2)
    with pytest.raises(ValueError, match=r"spans\[0\]"):
        l_uniqueness(5, [(3,)], min_length=2)  # type: ignore[list-item]
