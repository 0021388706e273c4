"""The sweep reports: ``sweep.md`` and a self-contained ``sweep.html`` from ``sweep.json``,
and ``compare.md`` and ``compare.html`` for two sweeps compared.

Each curve gets one figure of two panels, drawn by matplotlib (the ``plot`` extra) as inline
SVG like every report's plots: left, the divergent measure and the quality measure against
the option value, each with its interval at every point; right, the divergent
measure against the quality measure (the trade-off), each point labelled with its value.
The comparison's figure draws both models' trade-offs and marks the quality at which they
are compared. Without matplotlib the pages hold their tables and say why there is no plot.
"""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

from creval.report.html_assets import CSS
from creval.report.markdown import fmt, markdown_table
from creval.report.plots import PlottingUnavailable

SWEEP_MD = "sweep.md"
SWEEP_HTML = "sweep.html"


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _ci(estimate: Any, low: Any, high: Any, why: Any = None) -> str:
    """A value with its interval, or with why it has none.

    >>> _ci(0.5, 0.4, 0.6), _ci(None, None, None), _ci(0.5, None, None)
    ('0.5000 [0.4000, 0.6000]', '-', '0.5000')
    >>> _ci(0.5, None, None, "n=2: too few items for an interval (needs 10)")
    '0.5000 (n=2: too few items for an interval (needs 10))'
    """
    if estimate is None:
        return "-" if not why else f"- ({why})"
    if low is None:
        return fmt(estimate) if not why else f"{fmt(estimate)} ({why})"
    return f"{fmt(estimate)} [{fmt(low)}, {fmt(high)}]"


def _empty(points: list[dict[str, Any]]) -> bool:
    """No point of the curve has a value of its divergent measure (nothing valid at any
    value): there is nothing to draw."""
    return all(p["estimate"] is None for p in points)


def curves_of(doc: dict[str, Any]) -> list[tuple[tuple[str, str, str], list[dict[str, Any]]]]:
    """The points of ``doc`` grouped by curve (benchmark, measure, quality measure), in
    increasing value."""
    keys = dict.fromkeys((p["benchmark"], p["measure"], p["quality_measure"]) for p in doc["points"])
    return [(k, sorted((p for p in doc["points"]
                        if (p["benchmark"], p["measure"], p["quality_measure"]) == k),
                       key=lambda p: p["value"])) for k in keys]


def _trend_text(trend: dict[str, Any] | None) -> str:
    """A trend in words: rho with the interval and p of the same resamples, or why not.

    >>> _trend_text({"rho": -0.58, "low": None, "high": None, "p": None,
    ...              "note": "n=6: too few pairs for a trend interval and test (needs 30)"})
    'rho -0.5800 (n=6: too few pairs for a trend interval and test (needs 30))'
    >>> _trend_text({"rho": 0.4, "low": 0.1, "high": 0.6, "p": 0.0, "resamples": 2000})
    'rho 0.4000 [0.1000, 0.6000], p < 0.0005 (bootstrap)'
    """
    if not trend or trend.get("rho") is None:
        return "-" if not trend or not trend.get("note") else f"- ({trend['note']})"
    if trend.get("p") is None:
        return f"rho {_ci(trend['rho'], None, None, trend.get('note') or 'no test')}"
    p = trend["p"]
    shown = (f"p < {1 / trend.get('resamples', 2000):.2g}" if p == 0
             else f"p = {p:.3g}")
    return f"rho {_ci(trend['rho'], trend['low'], trend['high'])}, {shown} (bootstrap)"


def _table_rows(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"value": p["value"], "run": p["run"],
             p["measure"]: _ci(p["estimate"], p["low"], p["high"], p.get("interval")),
             "n": p["n"],
             p["quality_measure"]: _ci(p["quality"], p["quality_low"], p["quality_high"],
                                       p.get("quality_interval")),
             "quality n": p["quality_n"]} for p in points]


def render_sweep_markdown(doc: dict[str, Any]) -> str:
    """``sweep.md`` of a sweep document."""
    level = f"{round(doc['confidence'] * 100)}%"
    target = "the profile battery" if doc.get("profile") else ", ".join(doc["benchmarks"])
    out = [f"# creval sweep: {doc['model']}, {doc['option']}", "",
           f"- {target} at {doc['option']} = {', '.join(repr(v) for v in doc['values'])}",
           f"- intervals: {level} over items (t with Hall's skewness correction; none from "
           f"fewer than 10 items); trends: Spearman's rho with a bootstrap interval and the p "
           f"of the same resamples; written {doc['written']}", ""]
    trends = {(c["benchmark"], c["measure"], c["quality_measure"]): c for c in doc["curves"]}
    for key, points in curves_of(doc):
        first = points[0]
        out += [f"## {key[0]}: {first['label']} against {first['quality_label']}", "",
                markdown_table(_table_rows(points)), ""]
        if _empty(points):
            out += [f"- **No valid item at any {doc['option']}:** {first['measure']} has no "
                    "value anywhere on this curve, so there is no curve to draw; each run's "
                    "report.md says why its items were invalid.", ""]
        curve = trends.get(key, {})
        out += [f"- trend with {doc['option']}: {first['measure']} "
                f"{_trend_text(curve.get('trend'))}; {first['quality_measure']} "
                f"{_trend_text(curve.get('quality_trend'))} (Spearman over items)",
                ""]
    if doc.get("missing"):
        out += ["## Not scored yet", "", *[f"- {m}" for m in doc["missing"]], ""]
    if not doc["points"]:
        out += ["No run of this sweep has been scored yet.", ""]
    return "\n".join(out)


def _figure() -> tuple[Any, Any]:
    from creval.report.plots import _matplotlib

    return _matplotlib()


def _svg(fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _bars(points: list[dict[str, Any]], key: str, low: str, high: str) -> tuple[list[float], list[list[float]]]:
    ys = [float("nan") if p[key] is None else p[key] for p in points]
    err = [[0.0 if p[low] is None or p[key] is None else p[key] - p[low] for p in points],
           [0.0 if p[high] is None or p[key] is None else p[high] - p[key] for p in points]]
    return ys, err


def curve_svg(points: list[dict[str, Any]], option: str, *, salt: str = "sweep") -> str:
    """One curve as an inline SVG: the two measures against the option value, and the
    trade-off, with the intervals as error bars."""
    figure_class, rc_context = _figure()
    xs = [p["value"] for p in points]
    d, d_err = _bars(points, "estimate", "low", "high")
    q, q_err = _bars(points, "quality", "quality_low", "quality_high")
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9,
                     "axes.spines.top": False}):
        fig = figure_class(figsize=(9.0, 3.4))
        left, right = fig.subplots(1, 2)
        left.errorbar(xs, d, yerr=d_err, marker="o", capsize=3, color="#2f5fb3",
                      label=points[0]["measure"])
        left.set_xlabel(option)
        left.set_ylabel(str(points[0]["measure"]), color="#2f5fb3")
        twin = left.twinx()
        twin.errorbar(xs, q, yerr=q_err, marker="s", capsize=3, color="#c44e52",
                      linestyle="--", label=points[0]["quality_measure"])
        twin.set_ylabel(str(points[0]["quality_measure"]), color="#c44e52")
        left.grid(alpha=0.3)
        right.errorbar(q, d, xerr=q_err, yerr=d_err, marker="o", capsize=3, color="#2f5fb3")
        for x, y, v in zip(q, d, xs, strict=True):
            right.annotate(f"{option}={v:g}", (x, y), textcoords="offset points",
                           xytext=(5, 5), fontsize=8)
        right.set_xlabel(str(points[0]["quality_measure"]))
        right.set_ylabel(str(points[0]["measure"]))
        right.grid(alpha=0.3)
        fig.tight_layout()
        return _svg(fig)


def _figure_html(render: Any, caption: str) -> str:
    try:
        svg = render()
    except PlottingUnavailable as exc:
        return f"<div class=note>No plot: {_e(exc)}</div>"
    return f"<figure class=plot><figcaption>{_e(caption)}</figcaption>{svg}</figure>"


def _table_html(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "<p class=muted>(none)</p>"
    cols = list(dict.fromkeys(k for r in rows for k in r))
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{_e(fmt(r.get(c)))}</td>" for c in cols) + "</tr>"
                   for r in rows)
    return f"<div class=scroll><table><tr>{head}</tr>{body}</table></div>"


def _page(title: str, subtitle: str, body: str) -> str:
    return ("<!doctype html><html lang=en><head><meta charset=utf-8>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body><header>"
            f"<h1>{_e(title)}</h1><p>{_e(subtitle)}</p></header><main>{body}</main></body></html>")


def render_sweep_html(doc: dict[str, Any]) -> str:
    """``sweep.html``: self-contained (inline CSS and SVG, no script, no network)."""
    trends = {(c["benchmark"], c["measure"], c["quality_measure"]): c for c in doc["curves"]}
    sections = []
    for i, (key, points) in enumerate(curves_of(doc)):
        first, curve = points[0], trends.get(key, {})
        caption = f"{key[0]}: {first['label']} against {first['quality_label']}"
        figure = (f"<div class='note empty'>No valid item at any {_e(doc['option'])}: "
                  f"{_e(first['measure'])} has no value anywhere on this curve, so nothing is "
                  "drawn; each run's report says why its items were invalid.</div>"
                  if _empty(points) else _figure_html(
                      lambda p=points, i=i: curve_svg(p, doc["option"], salt=f"sweep{i}"),
                      f"{first['measure']} and {first['quality_measure']} by {doc['option']}"))
        sections.append(
            f"<section class=curve data-benchmark='{_e(key[0])}' data-measure='{_e(key[1])}'>"
            f"<h2>{_e(caption)}</h2>" + figure
            + _table_html(_table_rows(points))
            + f"<p class=note>Trend with {_e(doc['option'])} (Spearman over items): "
              f"{_e(first['measure'])} {_e(_trend_text(curve.get('trend')))}; "
              f"{_e(first['quality_measure'])} {_e(_trend_text(curve.get('quality_trend')))}</p>"
              "</section>")
    if doc.get("missing"):
        sections.append("<section><h2>Not scored yet</h2><ul>"
                        + "".join(f"<li>{_e(m)}</li>" for m in doc["missing"]) + "</ul></section>")
    level = f"{round(doc['confidence'] * 100)}%"
    subtitle = (f"{doc['option']} = {', '.join(repr(v) for v in doc['values'])}; {level} "
                f"intervals over items (none from fewer than 10); written {doc['written']}")
    return _page(f"creval sweep: {doc['model']}", subtitle,
                 "".join(sections) or "<p>No run of this sweep has been scored yet.</p>")


def write_sweep_reports(out: Path, doc: dict[str, Any]) -> tuple[Path, Path]:
    """Write ``sweep.md`` and ``sweep.html`` into the sweep directory ``out``."""
    md, page = out / SWEEP_MD, out / SWEEP_HTML
    md.write_text(render_sweep_markdown(doc), encoding="utf-8")
    page.write_text(render_sweep_html(doc), encoding="utf-8")
    return md, page


# ---- two sweeps compared ----------------------------------------------------------------

def _matched_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for c in doc["comparisons"]:
        a, b = c.get("a") or {}, c.get("b") or {}
        rows.append({
            "benchmark": c["benchmark"], "measure": c["measure"],
            "at quality": f"{c['quality_measure']} = {fmt(c['target'])}",
            "A": f"{_ci(a.get('estimate'), a.get('low'), a.get('high'))} at {doc['option']} "
                 f"{fmt(a.get('value'))}",
            "B": f"{_ci(b.get('estimate'), b.get('low'), b.get('high'))} at {doc['option']} "
                 f"{fmt(b.get('value'))}",
            "A - B": _ci(c.get("difference"), c.get("low"), c.get("high")),
            "resamples reaching it": fmt(c.get("reached")) if "reached" in c else c.get("note"),
        })
    return rows


def _fixed_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"benchmark": c["benchmark"], "measure": c["measure"], doc["option"]: r["value"],
             "A": r["a"], "B": r["b"],
             "A - B": _ci(r["difference"], r["low"], r["high"], r.get("interval")),
             "A quality": r["a_quality"], "B quality": r["b_quality"]}
            for c in doc["comparisons"] for r in c["fixed"]]


def render_compare_markdown(doc: dict[str, Any]) -> str:
    """``compare.md``: A against B at matched quality, then at each shared value."""
    return "\n".join([
        f"# creval sweep compare: A = {doc['a']['model']}, B = {doc['b']['model']}", "",
        f"- A: {doc['a']['dir']}; B: {doc['b']['dir']}; option {doc['option']}; "
        f"{round(doc['confidence'] * 100)}% intervals (matched: bootstrap; same value: Welch t, "
        "none from fewer than 30 items a side)", "",
        "## At matched quality", "",
        "Each model's divergent measure where its quality curve reaches the same quality "
        "(interpolated between the values it ran).", "",
        markdown_table(_matched_rows(doc)), "",
        f"## At the same {doc['option']}", "", markdown_table(_fixed_rows(doc)), ""])


def compare_svg(doc: dict[str, Any], comparison: dict[str, Any],
                curves: tuple[list[dict[str, Any]], list[dict[str, Any]]], *, salt: str) -> str:
    """Both models' trade-offs on one plot, the target quality and the matched points."""
    figure_class, rc_context = _figure()
    with rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "font.size": 9,
                     "axes.spines.top": False, "axes.spines.right": False}):
        fig = figure_class(figsize=(5.8, 3.6))
        ax = fig.subplots()
        for side, points, colour in (("A", curves[0], "#2f5fb3"), ("B", curves[1], "#c44e52")):
            d, d_err = _bars(points, "estimate", "low", "high")
            q, q_err = _bars(points, "quality", "quality_low", "quality_high")
            ax.errorbar(q, d, xerr=q_err, yerr=d_err, marker="o", capsize=3, color=colour,
                        label=f"{side}: {doc[side.lower()]['model']}"[:60])
            matched = comparison.get(side.lower()) or {}
            if matched.get("estimate") is not None:
                ax.plot([comparison["target"]], [matched["estimate"]], marker="*",
                        markersize=12, color=colour, linestyle="none")
        if comparison.get("target") is not None:
            ax.axvline(comparison["target"], color="#5b6475", linestyle=":", linewidth=1)
        ax.set_xlabel(str(comparison["quality_measure"]))
        ax.set_ylabel(str(comparison["measure"]))
        ax.legend(fontsize=8, frameon=False)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        return _svg(fig)


def write_compare_reports(out: Path, doc: dict[str, Any],
                          sweeps: tuple[dict[str, Any], dict[str, Any]]) -> tuple[Path, Path]:
    """Write ``compare.md`` and ``compare.html`` (with each shared curve's plot) into ``out``."""
    md, page = out / "compare.md", out / "compare.html"
    md.write_text(render_compare_markdown(doc), encoding="utf-8")
    figures = []
    for i, c in enumerate(doc["comparisons"]):
        key = (c["benchmark"], c["measure"], c["quality_measure"])
        pair = tuple(next((pts for k, pts in curves_of(s) if k == key), []) for s in sweeps)
        figures.append(_figure_html(
            lambda c=c, pair=pair, i=i: compare_svg(doc, c, pair, salt=f"compare{i}"),
            f"{c['benchmark']}: {c['measure']} against {c['quality_measure']} "
            "(stars: at the matched quality)"))
    body = ("<section><h2>At matched quality</h2>" + _table_html(_matched_rows(doc))
            + f"<div class=plots>{''.join(figures)}</div></section>"
            f"<section><h2>At the same {_e(doc['option'])}</h2>{_table_html(_fixed_rows(doc))}"
            "</section>")
    page.write_text(_page(f"creval sweep compare: {doc['a']['model']} vs {doc['b']['model']}",
                          f"A = {doc['a']['dir']}, B = {doc['b']['dir']}", body), encoding="utf-8")
    return md, page
