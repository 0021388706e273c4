"""What a paired row says about itself: items left out, no detectable difference without
spread, and whose standing the verdict gives."""

from __future__ import annotations

from creval.evaluation.compare.paired import finish, paired_row
from creval.report.paired import rows_table, standing


def test_unequal_item_sets_say_what_each_side_left_out() -> None:
    theirs = {"1": 3.0, "2": 4.0, "3": 2.5, "9": 1.0}
    ours = {"1": 2.0, "2": 3.5, "3": 2.0, "7": 2.0, "8": 2.0}
    (row,) = finish([paired_row("jcq", "A", "mean", theirs, ours)])  # type: ignore[list-item]
    assert (row["n"], row["left_out_subject"], row["left_out_this"]) == (3, 1, 2)
    assert rows_table([row])[0]["n"] == "3 (left out: 1 of the subject, 2 of this)"
    assert row["mdd"] is not None and row["mdd"] > 0


def test_no_spread_gives_no_detectable_difference_and_says_nothing_was_measured() -> None:
    same = {str(i): 3.0 for i in range(1, 9)}
    (row,) = finish([paired_row("jcq", "A", "mean", same, dict(same))])  # type: ignore[list-item]
    assert row["mdd"] is None and "no spread" in row["mdd_reason"]
    assert "nothing was measured to distinguish the two" in row["note"]
    assert "nothing was measured" in standing(row) and "at 80% power" not in standing(row)
    shifted = {k: v + 0.5 for k, v in same.items()}
    (row,) = finish([paired_row("jcq", "A", "mean", shifted, same)])  # type: ignore[list-item]
    assert row["mdd"] is None and "differs by exactly 0.5" in row["note"]
