"""Figures of a metric-validity run: one histogram per metric (creative vs uncreative),
L-uniqueness against L (seed 002 Figure 2) and template rate by n (Figure 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def write_plots(scores: dict[str, Any], out: Path) -> list[str]:
    """Write the PNG files into ``out``; returns their names (none without matplotlib)."""
    plt = _pyplot()
    if plt is None:
        return []
    written = []
    values: dict[str, dict[str, list[float]]] = scores.get("values", {})
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
    curve = scores.get("creativity_index", {}).get("uniqueness_by_l", [])
    if curve:
        fig, ax = plt.subplots(figsize=(5.6, 3.6))
        for name in ("creative", "uncreative"):
            points = [(row["L"], row[name]) for row in curve if row.get(name) is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
        ax.set_xlabel("minimum span length L (words)")
        ax.set_ylabel("mean L-uniqueness")
        ax.legend()
        written.append(_save(fig, plt, out / "ci_uniqueness_by_l.png"))
    by_n = scores.get("templates", {}).get("rate_by_n", [])
    if by_n:
        fig, ax = plt.subplots(figsize=(5.6, 3.6))
        for name in ("creative", "uncreative"):
            points = [(row["n"], row[name]) for row in by_n if row.get(name) is not None]
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
        ax.set_xlabel("template length n (POS tags)")
        ax.set_ylabel("template rate")
        ax.legend()
        written.append(_save(fig, plt, out / "template_rate_by_n.png"))
    return written


def _save(fig: Any, plt: Any, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name
