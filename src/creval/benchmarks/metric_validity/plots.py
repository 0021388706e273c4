"""Figures of a metric-validity run: one histogram per metric (creative vs uncreative),
L-uniqueness against L (seed 002 Figure 2) and template rate by n (Figure 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from creval.records import Scores


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def write_plots(scores: Scores, out: Path) -> list[str]:
    """Write the PNG files into ``out``; returns their names (none without matplotlib)."""
    plt = _pyplot()
    if plt is None:
        return []
    written = []
    values: dict[str, dict[str, list[float]]] = scores.extra("values", {})
    for metric, sets in values.items():
        if not (sets.get("creative") or sets.get("uncreative")):
            continue
        fig, ax = plt.subplots(figsize=(5.6, 3.6))
        for name, color in (("creative", "tab:green"), ("uncreative", "tab:red")):
            if sets.get(name):
                ax.hist(sets[name], bins=15, alpha=0.55, color=color, label=f"{name} (n={len(sets[name])})")
        ax.set_xlabel(metric)
        ax.set_ylabel("texts")
        ax.legend()
        written.append(_save(fig, plt, out / f"metric_{metric}.png"))
    lines = (
        (scores.extra("creativity_index", {}).get("uniqueness_by_l", []), "L",
         "minimum span length L (words)", "mean L-uniqueness", "ci_uniqueness_by_l.png"),
        (scores.extra("templates", {}).get("rate_by_n", []), "n",
         "template length n (POS tags)", "template rate", "template_rate_by_n.png"),
    )
    for rows, x, xlabel, ylabel, name in lines:
        if rows:
            written.append(_line(plt, rows, x, xlabel, ylabel, out / name))
    return written


def _line(plt: Any, rows: list[dict[str, Any]], x: str, xlabel: str, ylabel: str, path: Path) -> str:
    """Creative and uncreative as two lines of ``row[name]`` against ``row[x]``."""
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    for name in ("creative", "uncreative"):
        points = [(row[x], row[name]) for row in rows if row.get(name) is not None]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return _save(fig, plt, path)


def _save(fig: Any, plt: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name
