"""The profile report: ``profile.md`` and a self-contained ``profile.html`` from ``profile.json``.

One page per model: a one-screen summary (where the model stands, which measurements are
weak, what to run next), then per family the convergent and divergent measurements side by
side with their intervals, and a chart placing the model among published models and human
groups only where the comparison is valid; every other published value is listed as "not
comparable" with the reason, never drawn beside ours.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from creval.report.html_assets import CSS
from creval.report.markdown import fmt, markdown_table
from creval.report.noise import noise_sentence

PROFILE_MD = "profile.md"
PROFILE_HTML = "profile.html"
KINDS = ("convergent", "divergent", "evaluator")



def _placed(ref: dict[str, Any]) -> str:
    """The profile table's "placed" cell: yes (with the unpaired placement where there is
    one: English DAT among the released lists), or the reason it is not placed."""
    if not ref["comparable"]:
        return str(ref["reason"])
    if ref.get("placement"):
        from creval.report.paired import placement_text

        return "yes: " + placement_text(ref["placement"])
    return "yes"

def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _value(m: dict[str, Any]) -> str:
    """A measurement with its interval.

    >>> _value({"value": 0.5, "low": 0.4, "high": 0.6})
    '0.5000 [0.4000, 0.6000]'
    >>> _value({"value": None, "low": None, "high": None})
    '-'
    >>> _value({"value": 0.6667, "low": None, "high": None, "n": 1,
    ...         "interval": "n=1: too few items for an interval (needs 10)"})
    '0.6667 (n=1: too few items for an interval (needs 10))'
    """
    if m["value"] is None:
        return "-"
    if m["low"] is None or m["high"] is None:
        return f"{fmt(m['value'])} ({m.get('interval') or 'no interval'})"
    return f"{fmt(m['value'])} [{fmt(m['low'])}, {fmt(m['high'])}]"


def _self_judged_note(doc: dict[str, Any]) -> list[str]:
    """The benchmarks whose judge was the tested model itself."""
    return [r["benchmark"] for f in doc["families"] for r in f["runs"] if r.get("self_judged")]


def render_profile_markdown(doc: dict[str, Any]) -> str:
    """``profile.md`` of a profile document."""
    out = [f"# creval profile: {doc['model']}", "",
           f"- battery {doc['battery_version']}, size {doc['size']}, language {doc['lang']}, "
           f"preset {doc.get('preset') or '-'}, judge {doc.get('judge') or 'the model itself'}",
           f"- written {doc['written']}", "", "## Summary", ""]
    summary = doc["summary"]
    for title, key in (("Where the model stands", "standing"), ("Weak measurements", "weak"),
                       ("What to run next", "next")):
        out += [f"### {title}", ""]
        out += [f"- {line}" for line in summary[key]] or ["- (none)"]
        out.append("")
    for fam in doc["families"]:
        out += [f"## {fam['title']} (seed {fam['seed']})", ""]
        rows = [{"kind": m["kind"], "measure": m["label"], "benchmark": m["benchmark"],
                 "key": m["key"], "value [95% interval]": _value(m), "n": m["n"],
                 "items valid / finished / planned": _items(m),
                 "weak": "; ".join(m["weak"]) or "-"} for m in fam["measurements"]]
        out += [markdown_table(rows), ""]
        out += [f"- {m['label']}: {noise_sentence(m.get('noise'))}" for m in fam["measurements"]
                if m.get("noise")]  # --repeats
        for m in fam["measurements"]:
            if m.get("paired"):  # item by item against published models
                from creval.report.paired import paired_markdown

                out += [f"### Item by item: {m['label']} ({m['key']})", "", *paired_markdown(m["paired"])]
            if not m["references"]:
                continue
            out += [f"### Published: {m['label']} ({m['key']})", ""]
            out.append(markdown_table([
                {"subject": r["subject"], "kind": r["kind"],
                 "value": f"{r['value']:.4g} {r['unit']}" if r.get("unit") else r["value"],
                 "placed": _placed(r), "source": r["source"]}
                for r in m["references"]]))
            out.append("")
            if m.get("inferred"):
                out += ["Comparable under protocol values the paper does not print (inferred):", ""]
                out += [f"- {note}" for note in m["inferred"]] + [""]
        for run in fam["runs"]:
            if run.get("missing"):
                out.append(f"- {run['benchmark']}: not scored yet")
            else:
                out.append(f"- {run['benchmark']}: [report]({run['dir']}/report.md), "
                           f"judge {run['judge'] or '-'}"
                           + (" (self-judged)" if run["self_judged"] else ""))
        out.append("")
    return "\n".join(out)


# ---- HTML -------------------------------------------------------------------------------

PROFILE_CSS = """
.summary { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px; }
.summary div { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.summary ul { margin: 4px 0; padding-left: 18px; }
.sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); gap: 12px; }
.measure { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.measure .big { font-size: 20px; font-weight: 600; }
.weak { color: var(--warn); }
.notcomp { color: var(--muted); }
.tag { font-size: 11px; padding: 1px 6px; border-radius: 9px; background: #eef1f6; }
.tag.weak { background: #fff3cd; color: #7a5200; }
"""


def chart_svg(m: dict[str, Any], refs: list[dict[str, Any]], *, with_model: bool,
              width: int = 520) -> str:
    """A dot chart of published values ``refs``, with the model (and its interval) only when
    ``with_model``: callers pass it only for values measured the same way.

    >>> m = {"value": 0.5, "low": 0.4, "high": 0.6}
    >>> refs = [{"subject": "A", "kind": "model", "value": 0.3},
    ...         {"subject": "Humans", "kind": "human", "value": 0.9}]
    >>> svg = chart_svg(m, refs, with_model=True)
    >>> "A" in svg and "Humans" in svg and "this model" in svg
    True
    >>> "this model" in chart_svg(m, refs, with_model=False)
    False
    """
    if not refs:
        return ""
    model = [{"subject": "this model", "kind": "this", "value": m["value"]}] if with_model else []
    rows = sorted([*refs, *model], key=lambda r: -float(r["value"]))
    values = [float(r["value"]) for r in rows]
    if with_model:
        values += [v for v in (m["low"], m["high"]) if v is not None]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.08 or 0.05
    lo, hi = lo - pad, hi + pad
    left, right, row_h = 190, width - 20, 16

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (right - left)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{row_h * len(rows) + 30}" role="img">']
    for i, r in enumerate(rows):
        y = 14 + i * row_h
        colour = {"this": "#c62828", "human": "#2e7d32"}.get(
            r["kind"], "#2f5fb3" if with_model else "#8a93a3")
        if r["kind"] == "this" and m["low"] is not None and m["high"] is not None:
            parts.append(f'<line x1="{x(m["low"]):.1f}" x2="{x(m["high"]):.1f}" y1="{y}" y2="{y}" '
                         f'stroke="{colour}" stroke-width="2"/>')
        parts.append(f'<circle cx="{x(float(r["value"])):.1f}" cy="{y}" r="4" fill="{colour}"/>')
        weight = ' font-weight="bold"' if r["kind"] == "this" else ""
        parts.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end" font-size="11"'
                     f'{weight}>{_e(r["subject"])}</text>')
    base = 14 + len(rows) * row_h
    parts.append(f'<text x="{left}" y="{base + 8}" font-size="10">{lo:.3g}</text>')
    parts.append(f'<text x="{right}" y="{base + 8}" font-size="10" text-anchor="end">{hi:.3g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _largest_protocol(refs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for r in refs:
        counts[r["protocol"]] = counts.get(r["protocol"], 0) + 1
    best = max(counts, key=lambda p: counts[p])
    return [r for r in refs if r["protocol"] == best]


def _inferred_html(m: dict[str, Any]) -> str:
    notes = m.get("inferred") or []
    if not notes:
        return ""
    items = "".join(f"<li>{_e(n)}</li>" for n in notes)
    return (f"<details class=note><summary>{len(notes)} value(s) of the protocol the paper does "
            f"not print, taken as inferred</summary><ul>{items}</ul></details>")


def _items(m: dict[str, Any]) -> str:
    """The items behind a measurement: valid (what the value rests on), finished, planned.

    >>> _items({"items": {"valid": 350, "finished": 700, "planned": 700, "what": "questions"}})
    '350 / 700 / 700 (questions)'
    """
    items = m.get("items")
    if not items:
        return "-"
    return f"{items['valid']} / {items['finished']} / {items['planned']} ({items['what']})"


def _measure_html(m: dict[str, Any]) -> str:
    weak = "".join(f'<div class="weak">&#9888; {_e(w)}</div>' for w in m["weak"])
    interval = "" if m["low"] is None else f" <span class=muted>[{fmt(m['low'])}, {fmt(m['high'])}]</span>"
    refs = m["references"]
    # one protocol per paper stands (evaluation.profile_data.standing_protocols): the same
    # models under two protocols of one paper are drawn once
    placed = [r for r in refs if r.get("standing", r["comparable"])]
    others = [r for r in refs if not r["comparable"]]
    body = [f'<div class="measure" data-key="{_e(m["key"])}"><div><span class="tag">{_e(m["kind"])}'
            f'</span> {_e(m["label"])} <code>{_e(m["benchmark"])}.{_e(m["key"])}</code></div>',
            f'<div class="big">{fmt(m["value"])}{interval}</div>',
            f'<div class="muted">{_e(m["interval"])}</div>',
            f'<div class="muted">items behind the value (valid / finished / planned): {_e(_items(m))}</div>',
            weak]
    if m.get("noise"):  # --repeats
        body.append(f'<div class="muted noise">{_e(noise_sentence(m["noise"]))}</div>')
    if placed and m["value"] is not None:
        body.append(f"<figure class=plot><figcaption>Among published models measured the same "
                    f"way ({len(placed)}): {_e(placed[0]['described'])}</figcaption>"
                    f"{chart_svg(m, placed, with_model=True)}{_inferred_html(m)}</figure>")
    elif refs:
        shown = _largest_protocol(refs)
        why = str(shown[0]["reason"] or "no value").removeprefix("not comparable: ")
        body.append(f"<figure class='plot notcomp'><figcaption>Published ({len(shown)}), not "
                    f"comparable: {_e(why)}; this model is not drawn among them.</figcaption>"
                    f"{chart_svg(m, shown, with_model=False)}<div class=note>"
                    f"{_e(shown[0]['described'])}</div></figure>")
    from creval.report.paired import paired_html

    body.append(paired_html(m.get("paired", []), m.get("paired_reason")))
    if others:
        items = "".join(f"<li>{_e(r['subject'])} {fmt(r['value'])}: {_e(r['reason'])} "
                        f"<span class=muted>({_e(r['source'])})</span></li>" for r in others)
        body.append(f"<details class=notcomp><summary>{len(others)} published value(s) not "
                    f"comparable, with the reason</summary><ul>{items}</ul></details>")
    body.append("</div>")
    return "".join(body)


def _family_html(fam: dict[str, Any]) -> str:
    cols = []
    for kind in KINDS:
        ms = [m for m in fam["measurements"] if m["kind"] == kind]
        if ms:
            cols.append(f"<div><h3>{kind.capitalize()}</h3>{''.join(_measure_html(m) for m in ms)}</div>")
    runs = []
    for r in fam["runs"]:
        if r.get("missing"):
            runs.append(f"<li>{_e(r['benchmark'])}: not scored yet</li>")
            continue
        judged = " <span class='tag weak'>self-judged</span>" if r["self_judged"] else ""
        checks = "".join(f"<div class=weak>judge check: {_e(c['detail'])}</div>"
                         for c in r.get("judge_checks", []))
        runs.append(f"<li><a href='{_e(r['dir'])}/report.html'>{_e(r['benchmark'])}</a>: "
                    f"{r['units']['finished']} of {r['units']['total']} units, judge "
                    f"<code>{_e(r['judge'] or '-')}</code>{judged}{checks}</li>")
    return (f"<section id='family-{_e(fam['name'])}' class='family'><h2>{_e(fam['title'])} "
            f"<span class=muted>(seed {_e(fam['seed'])})</span></h2>"
            f"<div class=sides>{''.join(cols)}</div><h3>Runs</h3><ul>{''.join(runs)}</ul></section>")


def render_profile_html(doc: dict[str, Any]) -> str:
    """``profile.html``: self-contained (inline CSS and SVG, no script, no network)."""
    s = doc["summary"]

    def block(title: str, lines: list[str], cls: str = "") -> str:
        items = "".join(f"<li>{_e(x)}</li>" for x in lines) or "<li>(none)</li>"
        return f"<div class='{cls}'><h3>{title}</h3><ul>{items}</ul></div>"

    self_judged = _self_judged_note(doc)
    nav = "".join(f"<a href='#family-{_e(f['name'])}'>{_e(f['name'])}</a>" for f in doc["families"])
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>creval profile: {_e(doc['model'])}</title><style>{CSS}{PROFILE_CSS}</style></head>"
        f"<body><header><h1>creval profile: {_e(doc['model'])}</h1><p>battery "
        f"{_e(doc['battery_version'])}, size {_e(doc['size'])}, language {_e(doc['lang'])}, preset "
        f"{_e(doc.get('preset') or '-')}, judge {_e(doc.get('judge') or 'the model itself')}; "
        f"written {_e(doc['written'])}</p></header><nav><a href='#summary'>summary</a>{nav}</nav>"
        f"<main><section id=summary><h2>Summary</h2><div class=summary>"
        f"{block('Where the model stands', s['standing'])}"
        f"{block('Weak measurements', s['weak'], 'weak')}"
        f"{block('What to run next', s['next'])}</div>"
        + (f"<div class=warning>Self-judged (the tested model judged its own answers; "
           f"comparable with published numbers only where the paper did the same): {_e(', '.join(self_judged))}</div>"
           if self_judged else "")
        + "</section>" + "".join(_family_html(f) for f in doc["families"])
        + "</main></body></html>"
    )


def write_profile_reports(out: Path, doc: dict[str, Any]) -> tuple[Path, Path]:
    """Write ``profile.md`` and ``profile.html`` into the profile directory ``out``."""
    md, page = out / PROFILE_MD, out / PROFILE_HTML
    md.write_text(render_profile_markdown(doc), encoding="utf-8")
    page.write_text(render_profile_html(doc), encoding="utf-8")
    return md, page
