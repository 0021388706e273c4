"""Fidelity: every published metric of upstream's released models re-derived from their
released outputs (``results/<model>.json[.gz]``) and set beside the published value
(``data/leaderboard_results.json``), as upstream's ``generate-leaderboard.mjs`` computed it:
the outputs longer than 300 characters joined by a blank line, the repetition score over the
first 150 of them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from creval.benchmarks.slop.data import (
    published_metrics,
    read_released,
    released_results,
    slop_lists,
)
from creval.metrics.slop import METRICS, leaderboard_text, slop_metrics, utf16_length


def rederive(path: Path, words: set[str], trigrams: set[str]) -> tuple[str, dict[str, float]]:
    """``(model id, metrics)`` of one released results file, with ``sample_count`` and
    ``total_chars`` as upstream reports them."""
    model, samples = read_released(path)
    outputs = [str(s.get("output") or "") for s in samples]
    text = leaderboard_text(outputs)
    metrics = slop_metrics(text, words=words, trigrams=trigrams,
                           text_for_ngrams=leaderboard_text(outputs, first=150)) or {}
    metrics["sample_count"] = sum(1 for o in outputs if utf16_length(o) > 300)
    metrics["total_chars"] = utf16_length(text)
    return model, metrics


def relative_difference(ours: float, published: float) -> float | None:
    """``(ours - published) / published`` (None when the published value is 0 and ours not;
    0 when both are).

    >>> relative_difference(10.1, 10.0)
    0.009999999999999964
    """
    if published == 0:
        return 0.0 if ours == 0 else None
    return (ours - published) / published


def fidelity(data: str | Path, results: str | Path, models: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per released model (file stem in ``results``, all or ``models``): its model id,
    and for each metric (and ``sample_count``, ``total_chars``) ours, the published value and
    the relative difference (``<metric>``, ``<metric>_published``, ``<metric>_diff``)."""
    words, trigrams = slop_lists(data)
    published = published_metrics(data)
    files = released_results(results)
    rows = []
    for stem, path in files.items():
        if models is not None and stem not in models:
            continue
        model, ours = rederive(path, words, trigrams)
        pub = published.get(model)
        row: dict[str, Any] = {"file": stem, "model": model, "published": pub is not None}
        for name in (*METRICS, "sample_count", "total_chars"):
            row[name] = ours.get(name)
            if pub is not None:
                row[f"{name}_published"] = pub[name]
                row[f"{name}_diff"] = relative_difference(float(ours[name]), float(pub[name]))
        rows.append(row)
    return rows
