"""Story metrics against people: DSI and Lempel-Ziv complexity of the DAT_GPT stories beside
the human raters' scores (dat-100k, ``all_stories_dsi_lziv_ratings_num-words.csv``).

Bellemare-Pepin et al. released, for human and model synopses, haiku and flash fiction, each
story's divergent semantic integration (DSI, bert-large-uncased) and Lempel-Ziv complexity;
179 human flash fictions have the mean of 5 human raters, 479 stories GPT-4's ratings.
:func:`story_validity` correlates each metric with the raters (Pearson and Spearman, 95%
Fisher intervals) and, since both metrics move with a story's length, with the number of
words held fixed (:func:`creval.metrics.story.partial_pearson`). creval recomputes the
Lempel-Ziv values from the text (:func:`creval.metrics.story.lempel_ziv_complexity`); DSI
needs BERT-large, which creval does not ship, so the file's DSI values are used.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.metrics.story import LZIV_VALIDITY  # checked by story_validity's test

__all__ = ["LZIV_VALIDITY", "read_stories", "story_validity"]

STORIES_FILE = "all_stories_dsi_lziv_ratings_num-words.csv"
#: Rater columns: (column, who).
RATERS = (("StoryRaterMean", "people (mean of 5 raters)"), ("gpt4_avg", "GPT-4 (mean rating)"))
METRICS = (("DSI", "DSI"), ("lziv", "Lempel-Ziv (normalised)"), ("num_words", "length (words)"))


def read_stories(root: Path) -> list[dict[str, Any]]:
    """The stories with their metrics and ratings (None where a value is missing)."""
    path = Path(root) / STORIES_FILE
    if not path.is_file():
        raise CrevalError(f"{path} is missing: fetch the folder with `creval data fetch "
                          "dat-100k`, or pass the folder that holds it.")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))

    def number(text: str | None) -> float | None:
        try:
            value = float((text or "").strip())
        except ValueError:
            return None
        return value if math.isfinite(value) else None

    numeric = [c for c, _ in METRICS] + [c for c, _ in RATERS]
    return [{"story": r.get("story") or "", "model": r.get("model"), "condition": r.get("condition"),
             **{c: number(r.get(c)) for c in numeric}} for r in rows]


def story_validity(root: Path) -> list[dict[str, Any]]:
    """One row per (metric, rater): n, Pearson and Spearman r with 95% intervals, and the
    Pearson r with the length held fixed (None for length itself)."""
    from creval.metrics.correlation import correlation_interval
    from creval.metrics.story import partial_pearson

    stories = read_stories(root)
    rows = []
    for rater, who in RATERS:
        for metric, name in METRICS:
            both = [s for s in stories if s[rater] is not None and s[metric] is not None
                    and s["num_words"] is not None]
            x, y = [s[metric] for s in both], [s[rater] for s in both]
            row: dict[str, Any] = {"metric": name, "rater": who, "n": len(both)}
            for method in ("pearson", "spearman"):
                r = correlation_interval(x, y, method=method)
                row[method] = {"r": r.r, "low": r.low, "high": r.high, "reason": r.reason}
            row["partial_length"] = None
            if metric != "num_words":
                p = partial_pearson(x, y, [s["num_words"] for s in both])
                row["partial_length"] = {"r": p.r, "low": p.low, "high": p.high}
            rows.append(row)
    return rows
