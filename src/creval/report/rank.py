"""``creval rank`` ratings as Markdown (the console) and as one self-contained HTML page.

Takes the plain document of :func:`creval.evaluation.rank.fit.ratings_document`. Each model's
rating sits beside its run's own headline scores: the ratings say who beat whom on the same
items by one judge's (or panel's) eye, the scores what each run measured on its own.

>>> doc = {"benchmark": "ttct", "ratings": [{"model": "a", "rating": 0.4, "low": 0.1, "high": 0.7,
...        "comparisons": 8, "win_rate": 0.62, "anchor": False, "scores": {"originality": 3.1}}],
...        "position_bias": {"gamma": 1.2, "low": 0.8, "high": 1.6, "first_wins": 0.77},
...        "triads": {"models": {"cyclic": 0, "decided": 1, "rate": 0.0},
...                   "items": {"cyclic": 2, "decided": 10, "rate": 0.2}},
...        "win_matrix": {"models": ["a"], "shares": [[None]], "comparisons": [[0]]},
...        "judgements": 8, "failed_parses": 0, "failed_requests": 0, "missing": 0, "ties": 1,
...        "items": 4, "judges": ["openai:j"], "design": {"design": "all", "pairs": [], "requests": 8},
...        "interval": {"confidence": 0.95, "resamples": 100}, "centred_on": "all models"}
>>> print(rating_rows(doc)[0]["rating"])
0.40 [0.10, 0.70]
>>> "first position" in render_markdown(doc)
True
"""

from __future__ import annotations

from html import escape
from typing import Any

from creval.report.markdown import fmt, markdown_table


def _interval(value: float, low: float | None, high: float | None) -> str:
    """``value [low, high]`` to two decimals (no ``-0.00``); the value alone without one.

    >>> _interval(-1e-12, -0.004, 0.5), _interval(0.25, None, None)
    ('0.00 [0.00, 0.50]', '0.25')
    """
    if low is None or high is None:
        return f"{round(value, 2) + 0.0:.2f}"
    a, b, c = (round(v, 2) + 0.0 for v in (value, low, high))
    return f"{a:.2f} [{b:.2f}, {c:.2f}]"


def rating_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per model, best first: rating [interval], comparisons, win rate, its own scores."""
    rows = []
    for rank, r in enumerate(doc["ratings"], start=1):
        scores = ", ".join(f"{k} {fmt(v)}" for k, v in (r.get("scores") or {}).items()) or "(not scored)"
        rows.append({"rank": rank, "model": r["model"] + (" (anchor)" if r.get("anchor") else ""),
                     "rating": _interval(r["rating"], r["low"], r["high"]), "n": r["comparisons"],
                     "win_rate": "" if r["win_rate"] is None else f"{r['win_rate']:.0%}",
                     "run's own scores": scores})
    return rows


def summary_lines(doc: dict[str, Any]) -> list[str]:
    bias, triads = doc["position_bias"], doc["triads"]
    level = round(100 * doc["interval"]["confidence"])
    first = "" if bias.get("first_wins") is None else f"; the first shown won {bias['first_wins']:.0%} of decided judgements"
    lines = [
        f"Position bias (first position, logit): {_interval(bias['gamma'], bias['low'], bias['high'])}{first}. "
        "0 is none; the ratings are net of it (every pair asked in both orders).",
        f"Ratings: Bradley-Terry strengths (logit; a difference of 1 is a 73% chance to win), centred on "
        f"{doc['centred_on'] if isinstance(doc['centred_on'], str) else ', '.join(doc['centred_on'])}; "
        + (f"no intervals: {doc['interval']['note']}." if doc["interval"].get("note") else
           f"{level}% intervals from {doc['interval']['resamples']} bootstrap resamples of items and judges together."),
        f"Circular triads: {_rate(triads['models'])} of model triads, {_rate(triads['items'])} within items.",
        f"{doc['judgements']} judgements ({doc['ties']} ties) on {doc['items']} items by "
        f"{', '.join(doc['judges'])}; design {doc['design']['design']} ({len(doc['design']['pairs'])} pairs, "
        f"{doc['design']['requests']} requests).",
    ]
    lines += [f"Judge check: {c['judge']}: {c['detail']}: it chose by position, not by content; the "
              "ratings rest on its few other verdicts." for c in doc.get("judge_checks", [])]
    lines += [f"Same family: {s['judge']} does not decide the pairs of {s['model']} ({s['reason']}; decided "
              f"{s['decided']}); --allow-same-family-judge keeps them." for s in doc.get("same_family", [])]
    if doc["failed_parses"] or doc["failed_requests"] or doc["missing"]:
        lines.append(f"Left out: {doc['failed_parses']} answer(s) naming no winner, {doc['failed_requests']} "
                     f"failed request(s), {doc['missing']} not asked (run the same command again to finish).")
    return lines


def _rate(t: dict[str, Any]) -> str:
    return "none decided" if t["rate"] is None else f"{t['cyclic']} of {t['decided']} ({t['rate']:.0%})"


def matrix_rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The win-rate matrix: row model's share of wins against the column model (ties half)."""
    wm = doc["win_matrix"]
    return [{"": m, **{o: "" if s is None else f"{s:.0%} ({c})" for o, s, c in zip(wm["models"], shares, counts, strict=True)}}
            for m, shares, counts in zip(wm["models"], wm["shares"], wm["comparisons"], strict=True)]


def render_markdown(doc: dict[str, Any]) -> str:
    parts = [f"## {doc['benchmark']}: pairwise ratings", "", markdown_table(rating_rows(doc)), ""]
    parts += [f"- {line}" for line in summary_lines(doc)]
    parts += ["", "Win rates (row against column, both orders, ties half; comparisons in brackets):", "",
              markdown_table(matrix_rows(doc)), ""]
    return "\n".join(parts)


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return ""
    columns = list(rows[0])
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(fmt(r.get(c)))}</td>" for c in columns) + "</tr>" for r in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def render_html(doc: dict[str, Any]) -> str:
    """One self-contained page (no script, no outside resource): ratings with their intervals
    drawn as bars, the summary, the win-rate matrix."""
    ratings = doc["ratings"]
    ends = [(r["rating"] if r["low"] is None else r["low"], r["rating"] if r["high"] is None else r["high"])
            for r in ratings]
    lo = min(e[0] for e in ends) if ratings else 0.0
    hi = max(e[1] for e in ends) if ratings else 1.0
    span = (hi - lo) or 1.0
    # the labels' column as wide as the longest label (at most 6.5 px a character at 12 px)
    left = 16 + 6.5 * max((len(str(r["model"])) for r in ratings), default=4)
    plot, bars = 420, []
    for n, (r, (low, high)) in enumerate(zip(ratings, ends, strict=True)):
        x0, x1, x = ((v - lo) / span * plot + left for v in (low, high, r["rating"]))
        y = 20 + 26 * n
        bars.append(f"<g class='model' data-model='{escape(r['model'])}'><text x='{left - 8}' y='{y + 4}' text-anchor='end'>"
                    f"{escape(r['model'])}</text><line x1='{x0:.1f}' x2='{x1:.1f}' y1='{y}' y2='{y}' stroke='#36c' "
                    f"stroke-width='4'/><circle cx='{x:.1f}' cy='{y}' r='5' fill='#124'/></g>")
    base = 30 + 26 * len(ratings)
    ticks = "".join(
        f"<line x1='{left + f * plot:.1f}' x2='{left + f * plot:.1f}' y1='{base - 6}' y2='{base}' stroke='#555'/>"
        f"<text x='{left + f * plot:.1f}' y='{base + 14}' text-anchor='middle'>{lo + f * span:.2f}</text>"
        for f in (0.0, 0.25, 0.5, 0.75, 1.0))
    axis = (f"<g class='axis'><line x1='{left}' x2='{left + plot}' y1='{base}' y2='{base}' stroke='#555'/>{ticks}"
            f"<text x='{left + plot / 2:.1f}' y='{base + 30}' text-anchor='middle'>rating (Bradley-Terry)</text></g>")
    width, height = left + plot + 30, base + 40
    svg = (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}' width='100%' "
           f"style='max-width:{width}px' font-size='12' font-family='sans-serif' role='img'>"
           f"{''.join(bars)}{axis}</svg>")
    summary = "".join(f"<li>{escape(line)}</li>" for line in summary_lines(doc))
    return "\n".join([
        "<!doctype html><meta charset='utf-8'><meta name='viewport' content='width=device-width, "
        "initial-scale=1'><title>creval rank</title>",
        "<style>body{font-family:system-ui,sans-serif;margin:2em auto;padding:0 1em;max-width:70em;"
        "color:#222;line-height:1.45}h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}"
        "table{border-collapse:collapse;margin:1em 0;display:block;overflow-x:auto}"
        "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}th{background:#f3f5f8}"
        "figure{margin:1em 0}figcaption{color:#555;font-size:.9em}</style>",
        f"<h1>{escape(doc['benchmark'])}: pairwise ratings</h1>",
        f"<section class='rank' data-benchmark='{escape(doc['benchmark'])}'>",
        f"<figure class='intervals'>{svg}<figcaption>Ratings with their intervals</figcaption></figure>",
        f"<h2>Ratings beside each run's own scores</h2>{_table(rating_rows(doc))}",
        f"<ul class='summary'>{summary}</ul>",
        f"<h2>Win rates</h2><p>Row against column, both orders pooled, ties half.</p>{_table(matrix_rows(doc))}",
        "</section>",
    ]) + "\n"
