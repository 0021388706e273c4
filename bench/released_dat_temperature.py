"""The released-words check as a figure: the five models' DAT per temperature, re-scored by
creval's DAT scorer, with 95% bootstrap intervals, and each model's trend (Spearman's rho).

Usage (writes the figure the documentation shows, and prints the table it states)::

    python bench/released_dat_temperature.py [DAT_HUMANS_DIR] [--out docs/img/sweep-released-dat.svg]

DAT_HUMANS_DIR defaults to ../shared/data/dat-humans (or what `creval data fetch dat-humans`
wrote). The numbers come from :func:`creval.evaluation.sweep.released.released_trends`; the
test tests/evaluation/sweep/test_sweep_released.py checks the outcome the page states.
"""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", type=Path,
                        default=REPO.parent / "shared" / "data" / "dat-humans")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "sweep-released-dat.svg")
    args = parser.parse_args()

    from matplotlib import rc_context
    from matplotlib.figure import Figure

    from creval.evaluation.sweep.released import released_trends

    result = released_trends(args.root)
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": "released-dat", "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False}):
        fig = Figure(figsize=(6.4, 3.8))
        ax = fig.subplots()
        for m in result["models"]:
            rows = [r for r in m["temperatures"] if r["dat"] is not None]
            xs = [r["temperature"] for r in rows]
            ys = [r["dat"] for r in rows]
            err = [[r["dat"] - r["low"] for r in rows], [r["high"] - r["dat"] for r in rows]]
            label = f"{m['model']} (rho {m['rho']:+.2f} [{m['low']:+.2f}, {m['high']:+.2f}])"
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=label,
                        linestyle="--" if m["model"] == "gpt-4" else "-")
        ax.set_xlabel("temperature")
        ax.set_ylabel("DAT (creval scorer: GloVe 6B 50d, first 7 valid words)")
        ax.set_title("Released word lists (Chen and Ding 2023), re-scored", fontsize=9)
        ax.legend(fontsize=7, frameon=False, loc="lower right")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        args.out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.out, format="svg", metadata={"Date": None})
    print("| model | " + " | ".join(f"t={r['temperature']}" for r in result["models"][0]["temperatures"])
          + " | Spearman rho [95%] | p | trend |")
    print("| --- |" + " --- |" * (len(result["models"][0]["temperatures"]) + 3))
    for m in result["models"]:
        cells = " | ".join(f"{r['dat']:.1f} ({r['lists']})" for r in m["temperatures"])
        print(f"| {m['model']} | {cells} | {m['rho']:+.3f} [{m['low']:+.3f}, {m['high']:+.3f}] "
              f"| {m['p']:.3g} | {m['direction']} |")
    print(f"\nclaim ({result['claim']}) holds under this scorer: {result['claim_holds']}")
    print(f"figure: {args.out}")


if __name__ == "__main__":
    main()
