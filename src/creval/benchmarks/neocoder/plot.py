"""The per-state figure of a NeoCoder run (the paper's Figures 4 and 5 for one model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FIGURE = "neogauge_by_state.png"
SERIES = (
    ("neogauge", "NeoGauge@t"), ("cumulative_neogauge", "cumulative NeoGauge"),
    ("convergent", "convergent"), ("divergent", "divergent"),
    ("human_convergent", "human convergent"), ("human_divergent", "human divergent"),
)


def plot_states(table: list[dict[str, Any]], out: Path) -> list[str]:
    """Draw every per-state series of ``table`` to ``out/neogauge_by_state.png``.

    Returns the file names written (none when matplotlib is missing or there is no state).
    """
    if not table:
        return []
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    states = [row["t"] for row in table]
    for key, label in SERIES:
        values = [row.get(key) for row in table]
        if any(v is not None for v in values):
            style = "--" if key.startswith("human") else "-"
            ax.plot(states, [float("nan") if v is None else v for v in values], style,
                    marker="o", label=label)
    ax.set_xlabel("state t (number of denied techniques)")
    ax.set_ylabel("score")
    ax.set_xticks(states)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / FIGURE, dpi=120)
    plt.close(fig)
    return [FIGURE]
