"""A run's headline measures with their interval and number of items, as the console result
of ``creval run`` and the Scores table of report.md and report.html show them.

The interval is the scorer's own (``KEY_low``/``KEY_high`` in the headline) when it wrote
one, else that of the mean over the measure's per-item values
(:func:`creval.metrics.intervals.mean_interval`: none below its minimum number of items,
and the cell then says why). The scorer's ``KEY_low``/``KEY_high`` rows are folded into
their measure's row.
"""

from __future__ import annotations

import math
from typing import Any

from creval.records import Scores

__all__ = ["headline_rows", "measure_interval"]


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok and math.isfinite(value) else None


def scorer_interval(scores: Scores, key: str) -> dict[str, Any] | None:
    """What the scorer says of its own interval of ``key`` (``KEY_low``/``KEY_high``): its
    ``level``, the ``n`` and ``unit`` it is over (36 stories, not the 504 items behind the
    value) and its ``method``, from the scores' ``intervals``; None when it says nothing.

    >>> scorer_interval(Scores().with_extra(intervals={"k": {"n": 36, "unit": "stories"}}), "k")
    {'n': 36, 'unit': 'stories'}
    """
    said = (scores.extra("intervals") or {}).get(key)
    return dict(said) if isinstance(said, dict) else None


def measure_interval(scores: Scores, key: str) -> tuple[str, int | None]:
    """``(interval text, n)`` of the headline measure ``key``.

    >>> s = Scores(headline={"x": 77.495}, per_item={"x": [77.0, 77.99]})
    >>> measure_interval(s, "x")
    ('n=2: too few items for an interval (needs 10)', 2)
    >>> measure_interval(Scores(headline={"p": 50.0, "p_low": 40.0, "p_high": 60.0}), "p")
    ('[40.0000, 60.0000]', None)
    >>> measure_interval(Scores(headline={"x": None}, per_item={"x": []}), "x")
    ('no valid item', 0)
    """
    from creval.metrics.intervals import mean_interval

    def fmt(value: float) -> str:  # as report.markdown.fmt writes a float (no import cycle)
        return f"{value:.4f}"

    head = scores.headline
    values = [float(v) for v in scores.per_item.get(key, []) if v is not None]
    n = len(values) if key in scores.per_item else None
    low, high = _number(head.get(f"{key}_low")), _number(head.get(f"{key}_high"))
    if low is not None and high is not None:
        own = scorer_interval(scores, key)
        return f"[{fmt(low)}, {fmt(high)}]", own.get("n") if own else n
    if f"{key}_low" in head:  # the scorer's own interval, not computable here
        return "none (the notes say why)", n
    if n is None:
        return "-", None
    if not values:
        return "no valid item", 0
    split = scores.noise.get(key) or {}
    items = split.get("n_items")
    if isinstance(items, int) and items < len(values):  # --repeats: the values are samples
        from creval.metrics.intervals import MIN_ITEMS

        if items < MIN_ITEMS:
            return (f"n={items} items ({len(values)} samples, {split.get('repeats')} per item): "
                    f"too few items for an interval (needs {MIN_ITEMS})"), items
    ci = mean_interval(values, proportions=True)
    if ci.low is None or ci.high is None:
        return str(ci.reason), n
    return f"[{fmt(ci.low)}, {fmt(ci.high)}]", n


def headline_rows(scores: Scores) -> list[dict[str, Any]]:
    """One row per headline measure: ``metric``, ``value``, ``95% interval`` and ``n``.

    >>> rows = headline_rows(Scores(headline={"p": 50.0, "p_low": 40.0, "p_high": 60.0,
    ...                                       "valid": 3}))
    >>> [(r["metric"], r["95% interval"]) for r in rows]
    [('p', '[40.0000, 60.0000]'), ('valid', '-')]
    """
    head = scores.headline
    folded = {f"{k}_{side}" for k in head for side in ("low", "high")
              if f"{k}_low" in head and f"{k}_high" in head}
    rows = []
    for key, value in head.items():
        if key in folded:
            continue
        interval, n = measure_interval(scores, key)
        rows.append({"metric": key, "value": value, "95% interval": interval, "n": n})
    return rows
