"""Plots of a run's scores, drawn as inline SVG for the HTML report.

A benchmark declares plots as data in ``scores["plots"]``: a list of specs, each a dict

``{"title": str, "kind": KIND, "data": {...}, "xlabel": str, "ylabel": str, "note": str}``

(``xlabel``, ``ylabel`` and ``note`` are optional) where ``KIND`` and its ``data`` are

* ``"histogram"``: ``{"values": [number | None, ...], "bins": int}``; None values are left
  out (and counted in the caption); ``bins`` is optional (default: up to 20); or
  ``{"series": {name: [number | None, ...]}}`` for overlaid distributions on shared bins
  (creative against uncreative texts, say);
* ``"bar"``: ``{"labels": [str, ...], "values": [number | None, ...]}`` for one series, or
  ``{"labels": [...], "series": {name: [number | None, ...]}}`` for grouped bars;
* ``"heatmap"``: ``{"rows": [str, ...], "columns": [str, ...], "values": [[number | None]]}``
  (one inner list per row; None cells stay blank);
* ``"line"``: ``{"x": [number | str, ...], "series": {name: [number | None, ...]}}``.

The plots every report draws from what the scores of the built-in benchmarks hold (DAT and
SAT distributions, the JCQ/TTCT task x criterion heat map, semantic entropy per step and its
distribution, judge verdicts per criterion, NeoGauge per state, ...) are built as the same
specs by :func:`builtin_plots` and go through the same :func:`render_svg`.

Drawing needs matplotlib (the ``plot`` extra), imported only when a plot is drawn; without it
:func:`render_svg` raises :class:`PlottingUnavailable` and the report shows its tables only.
"""

from __future__ import annotations

import io
import math
import statistics
from typing import Any

KINDS = ("histogram", "bar", "heatmap", "line")
MAX_ANNOTATED_CELLS = 300


class PlottingUnavailable(RuntimeError):
    """matplotlib is not installed."""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _numbers(values: Any, name: str) -> str | None:
    if not isinstance(values, list):
        return f"{name} must be a list"
    bad = [i for i, v in enumerate(values) if v is not None and not _number(v)]
    return f"{name}[{bad[0]}] is not a number or None" if bad else None


def check_plot(spec: Any) -> str | None:
    """What is wrong with a plot spec, or None when it can be drawn.

    >>> check_plot({"title": "t", "kind": "bar", "data": {"labels": ["a"], "values": [1]}})
    >>> check_plot({"title": "t", "kind": "pie", "data": {}})
    "kind must be one of histogram, bar, heatmap, line (got 'pie')"
    >>> check_plot({"title": "t", "kind": "bar", "data": {"labels": ["a"], "values": [1, 2]}})
    'data.values has 2 values for 1 labels'
    """
    if not isinstance(spec, dict) or not isinstance(spec.get("title"), str):
        return "a plot is a dict with a string title"
    kind, data = spec.get("kind"), spec.get("data")
    if kind not in KINDS:
        return f"kind must be one of {', '.join(KINDS)} (got {kind!r})"
    if not isinstance(data, dict):
        return "data must be a dict"
    if kind == "histogram":
        if "series" not in data:
            return _numbers(data.get("values"), "data.values")
        if not isinstance(data["series"], dict) or not data["series"]:
            return "data.series must be a non-empty dict of value lists"
        return next((e for n, v in data["series"].items()
                     if (e := _numbers(v, f"data.series[{n!r}]"))), None)
    if kind == "heatmap":
        rows, cols, values = data.get("rows"), data.get("columns"), data.get("values")
        if not isinstance(rows, list) or not isinstance(cols, list) or not isinstance(values, list):
            return "data needs rows, columns and values lists"
        if len(values) != len(rows) or any(not isinstance(v, list) or len(v) != len(cols) for v in values):
            return "data.values must have one list per row with one value per column"
        return next((e for i, v in enumerate(values) if (e := _numbers(v, f"data.values[{i}]"))), None)
    if kind == "bar":
        labels = data.get("labels")
        if not isinstance(labels, list):
            return "data.labels must be a list"
        series = data["series"] if "series" in data else {"": data.get("values")}
    else:
        labels = data.get("x")
        if not isinstance(labels, list):
            return "data.x must be a list"
        series = data.get("series")
    if not isinstance(series, dict) or not series:
        return "data needs values or a non-empty series dict"
    for name, values in series.items():
        where = f"data.series[{name!r}]" if name else "data.values"
        if error := _numbers(values, where):
            return error
        if len(values) != len(labels):
            return f"{where} has {len(values)} values for {len(labels)} labels"
    return None


def _label(text: Any) -> str:
    """Plain text for matplotlib: a ``$`` would start mathtext."""
    return str(text).replace("$", r"\$")[:80]


def _matplotlib() -> Any:
    """matplotlib's ``Figure`` class and ``rc_context``. pyplot is not used, so drawing a report
    never changes the backend of the process (a notebook keeps its own)."""
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        raise PlottingUnavailable(
            "matplotlib is not installed: pip install 'creval[plot]' to draw plots."
        ) from None
    return Figure, rc_context


def render_svg(spec: dict[str, Any], *, salt: str = "creval") -> str:
    """Draw a checked plot spec (see :func:`check_plot`) as an ``<svg>`` element.

    ``salt`` makes the SVG's internal ids distinct from those of the other plots on the page.
    """
    figure_class, rc_context = _matplotlib()
    kind, data = spec["kind"], spec["data"]
    wide = kind == "heatmap" and len(data["columns"]) > 6
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False}):
        fig = figure_class(figsize=(7.5 if wide else 5.6, 3.4))
        ax = fig.subplots()
        {"histogram": _histogram, "bar": _bar, "heatmap": _heatmap, "line": _line}[kind](fig, ax, data)
        if spec.get("xlabel"):
            ax.set_xlabel(_label(spec["xlabel"]))
        if spec.get("ylabel"):
            ax.set_ylabel(_label(spec["ylabel"]))
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML declaration and doctype


def _histogram(fig: Any, ax: Any, data: dict[str, Any]) -> None:
    if "series" in data:
        _overlaid_histogram(ax, data)
        return
    values = [float(v) for v in data["values"] if v is not None]
    bins = data.get("bins") or max(1, min(20, len(set(values))))
    ax.hist(values, bins=bins, color="#4c72b0", edgecolor="white")
    if values:
        mean = statistics.fmean(values)
        ax.axvline(mean, color="#c44e52", linestyle="--", linewidth=1.2, zorder=3,
                   label=f"mean {mean:.3g}")
        ax.legend(fontsize=8, frameon=False)
    ax.set_ylabel("count")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)


def _overlaid_histogram(ax: Any, data: dict[str, Any]) -> None:
    """One translucent histogram per series on the same bins, each labelled with its count."""
    series = {name: [float(v) for v in values if v is not None]
              for name, values in data["series"].items()}
    pooled = [v for values in series.values() for v in values]
    bins = data.get("bins") or max(1, min(20, len(set(pooled))))
    edges = None
    for name, values in series.items():
        if values:
            _, edges, _ = ax.hist(values, bins=edges if edges is not None else bins, alpha=0.55,
                                  edgecolor="white", label=f"{_label(name)} (n={len(values)})")
    if pooled:
        ax.legend(fontsize=8, frameon=False)
    ax.set_ylabel("count")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)


def _bar(fig: Any, ax: Any, data: dict[str, Any]) -> None:
    labels = [_label(x) for x in data["labels"]]
    series = data["series"] if "series" in data else {"": data["values"]}
    width = 0.8 / len(series)
    for i, (name, values) in enumerate(series.items()):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(labels))]
        ax.bar(xs, [math.nan if v is None else v for v in values], width=width,
               label=_label(name) if name else None)
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 5 else 0,
                  ha="right" if len(labels) > 5 else "center")
    if len(series) > 1 or "" not in series:
        ax.legend(fontsize=8, frameon=False)
    if all(isinstance(v, int) for values in series.values() for v in values if v is not None):
        ax.yaxis.get_major_locator().set_params(integer=True)  # counts
    if len(labels) < 3:
        ax.set_xlim(-1.5, len(labels) + 0.5)  # no bar as wide as the plot
    ax.grid(axis="y", alpha=0.3)


def _heatmap(fig: Any, ax: Any, data: dict[str, Any]) -> None:
    import numpy as np

    grid = np.array([[math.nan if v is None else float(v) for v in row] for row in data["values"]],
                    dtype=float)
    image = ax.imshow(np.ma.masked_invalid(grid), cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(data["columns"])), [_label(c) for c in data["columns"]],
                  rotation=30, ha="right")
    ax.set_yticks(range(len(data["rows"])), [_label(r) for r in data["rows"]])
    ax.spines[:].set_visible(False)
    if grid.size <= MAX_ANNOTATED_CELLS and np.isfinite(grid).any():
        middle = np.nanmean(grid)
        for (r, c), value in np.ndenumerate(grid):
            if math.isfinite(value):
                ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if value > middle else "white")
    fig.colorbar(image, ax=ax)


def _line(fig: Any, ax: Any, data: dict[str, Any]) -> None:
    xs = data["x"]
    positions = xs if all(_number(x) for x in xs) else list(range(len(xs)))
    for name, values in data["series"].items():
        style = "--" if str(name).startswith("human") else "-"
        ax.plot(positions, [math.nan if v is None else v for v in values], style, marker="o",
                label=_label(name))
    if positions is not xs or len(xs) <= 12:
        ax.set_xticks(positions, [_label(x) for x in xs])
    ax.legend(fontsize=8, frameon=False)
    ax.grid(alpha=0.3)
