"""The rank page (issue 44, newcomer item 9): styled, labels not clipped, a plot with an
axis that scales to the window."""

from __future__ import annotations

import re

from creval.report.rank import render_html

from .test_rank import _doc as ratings_doc

LONG = "openai:Skywork/Skywork-Reward-Llama-3.1-8B-v0.2 (runs/a/ttct)"


def test_labels_fit_and_the_plot_has_an_axis() -> None:
    doc = ratings_doc()
    doc["ratings"][0]["model"] = LONG
    page = render_html(doc)
    label_x = min(float(x) for x in re.findall(r"<text x='([\d.]+)' y='\d+' text-anchor='end'>", page))
    assert label_x >= 6 * len(LONG)  # room for the longest label left of it
    assert "class='axis'" in page and "rating (Bradley-Terry)" in page
    assert page.count("text-anchor='middle'>") >= 6  # five ticks and the axis title
    assert "viewBox=" in page and "width='100%'" in page and "name='viewport'" in page
