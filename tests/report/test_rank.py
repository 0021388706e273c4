"""The ratings page of ``creval rank`` in real Chromium: one interval bar per model, in rating
order, each drawn from its low to its high end around its rating; and the Markdown table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from creval.report.rank import render_html, render_markdown

from ._browser import Browser, chromium_or_skip


def _doc() -> dict[str, Any]:
    ratings = [{"model": "openai:fixed", "rating": 1.9, "low": 1.4, "high": 2.6, "comparisons": 56,
                "win_rate": 1.0, "anchor": True, "scores": {"fluency": 3.0}},
               {"model": "openai:alpha", "rating": -0.2, "low": -0.6, "high": 0.3, "comparisons": 56,
                "win_rate": 0.25, "anchor": False, "scores": {}}]
    return {"benchmark": "ttct", "ratings": ratings, "centred_on": ["openai:fixed"],
            "position_bias": {"gamma": 0.9, "low": 0.4, "high": 1.5, "first_wins": 0.71},
            "triads": {"models": {"cyclic": 0, "decided": 0, "rate": None},
                       "items": {"cyclic": 1, "decided": 14, "rate": 1 / 14}},
            "win_matrix": {"models": ["openai:fixed", "openai:alpha"], "shares": [[None, 1.0], [0.0, None]],
                           "comparisons": [[0, 28], [28, 0]]},
            "judge_checks": [{"judge": "openai:judge", "check": "position_bias", "items": 56,
                              "detail": "position 1 of 2 was chosen in 55 of 56 decisions"}],
            "judgements": 56, "ties": 0, "failed_parses": 1, "failed_requests": 0, "missing": 0, "items": 14,
            "judges": ["openai:judge"], "design": {"design": "all", "pairs": [["a", "b"]], "requests": 56},
            "interval": {"confidence": 0.95, "resamples": 200}}


def test_markdown_puts_ratings_beside_the_runs_own_scores() -> None:
    text = render_markdown(_doc())
    row = next(line for line in text.splitlines() if line.startswith("| 1 "))
    assert "openai:fixed (anchor)" in row and "1.90 [1.40, 2.60]" in row and "fluency 3" in row
    assert "(not scored)" in text and "1 answer(s) naming no winner" in text
    assert "Judge check: openai:judge: position 1 of 2 was chosen in 55 of 56" in text
    assert "0.90 [0.40, 1.50]" in text and "1 of 14 (7%) within items" in text


def test_page_draws_one_interval_per_model_in_chromium(tmp_path: Path) -> None:
    page = tmp_path / "ratings.html"
    page.write_text(render_html(_doc()), encoding="utf-8")
    browser = Browser(chromium_or_skip(), page.as_uri(), tmp_path / "profile")
    try:
        browser.wait_for("!!document.querySelector('figure.intervals svg g.model')")
        drawn = browser.js("Array.from(document.querySelectorAll('g.model')).map(g => [g.dataset.model,"
                           " g.querySelector('line').getBBox().x, g.querySelector('line').getBBox().width,"
                           " g.querySelector('circle').getBBox().x + 4])")
        assert [d[0] for d in drawn] == ["openai:fixed", "openai:alpha"]
        (_, x0, w0, c0), (_, x1, w1, c1) = drawn
        assert x0 < c0 < x0 + w0 and x1 < c1 < x1 + w1  # each rating inside its interval
        assert x0 > x1 + w1  # the intervals do not overlap, as the numbers say
        assert browser.js("document.querySelectorAll('section.rank table')[0].rows.length") == 3
    finally:
        browser.close()
