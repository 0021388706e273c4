"""A self-contained HTML report of one run directory: ``report.html`` beside ``report.md``.

One file that opens without a network: inline CSS and script, plots as inline SVG (drawn
with matplotlib when the ``plot`` extra is installed; without it the report has its tables
and says why the plots are missing), artifacts embedded as data URIs. It shows the
benchmark's headline, sections, notes and warnings, the plots (:mod:`creval.report.figures`
and the benchmark's own ``scores["plots"]``, see :mod:`creval.report.plots`), the counters,
the model and judge specs, identities and capabilities, the configuration, the errors, and
a searchable, paged view of every sample (:mod:`creval.report.samples`).

Read-only: it reads ``manifest.json``, ``scores.json`` and ``records.jsonl`` through
:func:`creval.reader.read_run` and writes only ``report.html``. Every text from the run (model output above all) is escaped.
"""

from __future__ import annotations

import base64
import json
import os
from html import escape
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.records import Analysis, Scores
from creval.report.html_assets import CSS, JS
from creval.report.markdown import where_notes

REPORT_HTML = "report.html"
MAX_TABLE_ROWS = 500
MAX_ARTIFACT_BYTES = 2_000_000
IMAGE_TYPES = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def _e(value: Any) -> str:
    return escape(str(value), quote=True)


def cell(value: Any) -> str:
    """One table cell's text, escaped: floats to 4 places, None as a dash.

    >>> cell(0.123456), cell(None), cell("<b>"), cell({"a": 1})
    ('0.1235', '-', '&lt;b&gt;', '{&quot;a&quot;: 1}')
    """
    if value is None:
        return "-"
    if isinstance(value, float):
        tiny_or_huge = value != 0 and not 1e-3 <= abs(value) < 1e5
        return f"{value:.4g}" if tiny_or_huge else f"{value:.4f}"
    if isinstance(value, (dict, list)):
        return _e(json.dumps(value, ensure_ascii=False, default=str))
    return _e(value)


def html_table(rows: list[Any], columns: list[str] | None = None, *, limit: int = MAX_TABLE_ROWS) -> str:
    """Rows of dicts as an escaped HTML table (the columns of every row), at most ``limit`` rows.

    >>> html_table([{"a": 1, "b": "<x>"}])
    '<div class="scroll"><table><tr><th>a</th><th>b</th></tr><tr><td class="num">1</td><td>&lt;x&gt;</td></tr></table></div>'
    """
    rows = [r for r in rows if isinstance(r, dict)]
    if not rows:
        return '<p class="muted">(none)</p>'
    cols = columns or list(dict.fromkeys(k for row in rows for k in row))
    out = ['<div class="scroll"><table><tr>', *(f"<th>{_e(c)}</th>" for c in cols), "</tr>"]
    for row in rows[:limit]:
        out.append("<tr>")
        for c in cols:
            value = row.get(c)
            numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
            out.append(f'<td class="num">{cell(value)}</td>' if numeric else f"<td>{cell(value)}</td>")
        out.append("</tr>")
    out.append("</table></div>")
    if len(rows) > limit:
        out.append(f'<p class="note">{limit} of {len(rows)} rows shown; all are in scores.json.</p>')
    return "".join(out)


def _kv(mapping: dict[str, Any] | None, key: str = "name") -> str:
    return html_table([{key: k, "value": v} for k, v in (mapping or {}).items()])


def _section(anchor: str, title: str, body: str) -> str:
    return f'<section id="{anchor}"><h2>{_e(title)}</h2>{body}</section>'


def render_plots(scores: Scores) -> tuple[str, int]:
    """The plots section's body and the number of plots drawn: the built-in plots of what the
    scores hold (read from the scores.json document) and the benchmark's own ``plots``."""
    from creval.report.figures import builtin_plots

    declared: Any = scores.extra("plots", [])
    problems: list[str] = []
    if not isinstance(declared, list):
        problems.append("scores['plots'] is not a list of plot specs; it is left out.")
        declared = []
    return render_specs([*builtin_plots(scores.model_dump(mode="json")), *declared], problems)


def render_specs(specs: list[Any], problems: list[str] | None = None, *, salt: str = "creval") -> tuple[str, int]:
    """Plot specs drawn as figures (a bad spec is a warning, not a lost report), and the count."""
    from creval.report.plots import PlottingUnavailable, check_plot, render_svg

    problems = list(problems or [])
    figures: list[str] = []
    for number, spec in enumerate(specs):
        problem = check_plot(spec)
        title = spec.get("title", f"plot {number + 1}") if isinstance(spec, dict) else f"plot {number + 1}"
        if problem:
            problems.append(f"Plot {title!r} not drawn: {problem}.")
            continue
        try:
            svg = render_svg(spec, salt=f"{salt}-{number}")
        except PlottingUnavailable as exc:
            problems.append(f"No plots: {exc}")
            break
        except Exception as exc:  # one bad plot must not cost the whole report
            problems.append(f"Plot {title!r} could not be drawn: {type(exc).__name__}: {exc}")
            continue
        note = f'<div class="note">{_e(spec["note"])}</div>' if spec.get("note") else ""
        figures.append(f'<figure class="plot" data-kind="{_e(spec["kind"])}"><figcaption>'
                       f"{_e(spec['title'])}{note}</figcaption>{svg}</figure>")
    body = "".join(f'<div class="warning">{_e(p)}</div>' for p in problems)
    body += f'<div class="plots">{"".join(figures)}</div>' if figures else ""
    return body or '<p class="muted">This run has no data to plot.</p>', len(figures)


def _usage(usage: dict[str, Any]) -> str:
    from creval.runner.counters import totals

    if not usage:
        return '<p class="muted">No counters recorded.</p>'
    rows = [
        {"invocations": label, **totals(usage.get(key) or {}),
         "seconds": (usage.get(key) or {}).get("seconds"), "cost": None}
        for label, key in (("this one", "this_invocation"),
                           (f"all {usage.get('invocations', 0)}", "all_invocations"))
    ]
    per_model = [{"model": m, **row} for m, row in
                 ((usage.get("all_invocations") or {}).get("models") or {}).items()]
    return (html_table(rows) + '<p class="note">ok / failed / not_run are units of work; requests '
            "as the server saw them (retries and top-up calls included); cost is shown where "
            "prices are configured.</p><h3>Per model, all invocations</h3>" + html_table(per_model)
            + "".join(f'<p class="note">{_e(note)}</p>' for note in where_notes(usage)))


def _models(manifest: dict[str, Any]) -> str:
    out = []
    for role in ("model", "judge"):
        described = manifest.get(role)
        if not isinstance(described, dict):
            continue
        out.append(f"<h3>{'Target model' if role == 'model' else 'Judge'}: "
                   f"<code>{_e(described.get('spec'))}</code></h3>")
        out.append('<div class="plots"><div><div class="label">Identity</div>'
                   + _kv(described.get("identity"), "field") + '</div><div><div class="label">'
                   "Capabilities</div>" + _kv(described.get("capabilities"), "capability")
                   + "</div></div>")
    found = manifest.get("roles")
    roles: dict[str, Any] = found if isinstance(found, dict) else {}
    for role, described in roles.items():
        if not isinstance(described, dict):
            continue
        out.append(f"<h3>Role {_e(role)}: <code>{_e(described.get('spec'))}</code></h3>"
                   f"<p>{_e(described.get('does'))} (chosen by {_e(described.get('chosen_by'))})</p>"
                   '<div class="plots"><div><div class="label">Identity</div>'
                   + _kv(described.get("identity"), "field") + '</div><div><div class="label">'
                   "Capabilities</div>" + _kv(described.get("capabilities"), "capability")
                   + "</div></div>")
    if not isinstance(manifest.get("judge"), dict) and not roles:
        out.append('<p class="muted">No separate judge in this run.</p>')
    return "".join(out)


def _configuration(manifest: dict[str, Any]) -> str:
    about = {k: manifest.get(k) for k in ("benchmark", "seed_paper", "created", "git_revision",
                                          "python", "platform")}
    about["command"] = " ".join(manifest.get("command") or [])
    blocks = (("Options", manifest.get("options"), "option"),
              ("Generation fingerprint", manifest.get("generation"), "field"),
              ("Seeds", manifest.get("seeds"), "field"), ("Run", about, "field"),
              ("Packages", manifest.get("packages"), "package"))
    return '<div class="plots">' + "".join(
        f"<div><h3>{title}</h3>{_kv(mapping, key)}</div>" for title, mapping, key in blocks) + "</div>"


def _judge_checks(scores: Scores) -> str:
    """The "Judge checks" block (a warning box) when a judge does not discriminate."""
    from creval.judges.discrimination import ADVICE

    if not scores.judge_checks:
        return ""
    items = "".join(f"<li><strong>{_e(c.judge)}:</strong> {_e(c.detail)}.</li>" for c in scores.judge_checks)
    return (f'<div class="warning judge-checks" id="judge-checks"><h3>Judge checks</h3>'
            f"<p><strong>{_e(ADVICE)}</strong></p><ul>{items}</ul></div>")


def _scores(scores: Scores) -> str:
    from creval.report.headline import headline_rows

    out = [html_table(headline_rows(scores))]  # each measure with its interval and n
    if scores.resources:
        out.append("<h3>Scored with</h3>" + _kv(scores.resources, "resource"))
    notes = [n for n in scores.notes if n]
    if notes:
        out.append("<ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>")
    from creval.report.noise import noise_html

    out.append(noise_html(scores, html_table))  # --repeats: the variance split
    return "".join(out)


def _tables(scores: Scores) -> str:
    out = []
    for section in scores.sections:
        if isinstance(section, dict):
            out.append(f"<h3>{_e(section.get('title', ''))}</h3>")
            if section.get("text"):
                out.append(f"<p>{_e(section['text'])}</p>")
            out.append(html_table(section.get("rows") or [], section.get("columns")))
    return "".join(out)


def _analyses(analyses: list[Analysis]) -> str:
    out = []
    for number, analysis in enumerate(analyses):
        what = f" ({analysis.reproduces} of seed {analysis.seed_paper})" if analysis.reproduces else ""
        out.append(f'<h3 id="analysis-{_e(analysis.name)}">{_e(analysis.title)}{_e(what)}</h3>'
                   f'<p class="muted">inputs: {_e(", ".join(analysis.inputs) or "-")}</p>')
        out += [f'<p class="note">{_e(n)}</p>' for n in analysis.notes]
        if analysis.plots:
            out.append(render_specs(analysis.plots, salt=f"analysis-{number}")[0])
        for table in analysis.tables:
            out.append(f"<h4>{_e(table.title)}</h4>" + (f"<p>{_e(table.text)}</p>" if table.text else "")
                       + html_table(table.rows, table.columns))
    return "".join(out)


def _artifacts(run_dir: Path, names: list[Any], *, embed_images: bool = True) -> str:
    """The run's files; images are embedded unless the Plots section drew the same data."""
    out = []
    root = run_dir.resolve()
    for name in names:
        path = (run_dir / str(name)).resolve()
        kind = IMAGE_TYPES.get(path.suffix.lower())
        inside = path.is_relative_to(root) and path.is_file()
        if kind and inside and not embed_images:
            out.append(f"<p>file: <code>{_e(name)}</code> (the same data is drawn under Plots)</p>")
        elif kind and inside and path.stat().st_size <= MAX_ARTIFACT_BYTES:
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            out.append(f'<figure class="plot"><figcaption>{_e(name)}</figcaption>'
                       f'<img alt="{_e(name)}" src="data:{kind};base64,{data}" style="max-width:100%"></figure>')
        else:
            out.append(f'<p>file: <code>{_e(name)}</code>{"" if inside else " (missing)"}</p>')
    return "".join(out)


def _samples(view: dict[str, Any]) -> str:
    from creval.report.samples import embed_json

    shown, total = len(view["samples"]), view["total"]
    notes = []
    if shown < total:
        notes.append(f"The first {shown} of {total} units are shown.")
    if view["cut_texts"]:
        notes.append(f"{view['cut_texts']} long text(s) are cut to keep this file small; "
                     "the full texts are in records.jsonl.")
    return (
        '<div class="controls"><input type="search" id="sample-search" placeholder="Search keys, '
        'prompts, answers, judge transcripts, errors (all words must match)" aria-label="Search samples">'
        '<select id="sample-status" aria-label="Status"><option value="">any status</option>'
        '<option value="ok">ok</option><option value="error">error</option></select>'
        '<button id="sample-prev" type="button">previous</button>'
        '<button id="sample-next" type="button">next</button></div>'
        '<div id="sample-info" class="muted"></div>'
        + "".join(f'<p class="note">{_e(n)}</p>' for n in notes)
        + '<div id="samples"></div><noscript>The sample view needs JavaScript.</noscript>'
        f'<script type="application/json" id="creval-samples">{embed_json(view)}</script>'
    )


def render_html(manifest: dict[str, Any], scores: Scores, view: dict[str, Any],
                run_dir: Path, analyses: list[Analysis] | None = None) -> str:
    """The report page of one run, with the analyses saved into it."""
    name = scores.benchmark or manifest.get("benchmark", "?")
    units = scores.units
    plots, drawn = render_plots(scores)
    warnings = [*scores.warnings, *scores.run_warnings]
    parts = [
        _section("scores", "Scores", "".join(f'<div class="warning">{_e(w)}</div>' for w in warnings)
                 + _judge_checks(scores) + _scores(scores)),
        _section("plots", "Plots", plots),
    ]
    from creval.report.paired import paired_section

    if paired := paired_section(run_dir):  # item by item against published models
        parts.append(_section("paired", "Against published models, item by item", paired))
    if tables := _tables(scores):
        parts.append(_section("tables", "Tables", tables))
    if analyses:
        parts.append(_section("analyses", "Analyses", _analyses(analyses)))
    parts += [_section("counters", "Counters", _usage(scores.usage)),
              _section("models", "Models", _models(manifest))]
    if scores.errors or scores.error_causes:
        causes = [c.model_dump() for c in scores.error_causes]
        failed = [e.model_dump() for e in scores.errors]
        parts.append(_section("errors", "Errors", "<h3>Causes</h3>" + html_table(causes)
                              + "<h3>Failed units</h3>" + html_table(failed)))
    parts += [_section("samples-section", "Samples", _samples(view)),
              _section("items", "Items", html_table(scores.table)),
              _section("configuration", "Configuration", _configuration(manifest))]
    if scores.artifacts:
        parts.append(_section("artifacts", "Artifacts", _artifacts(run_dir, scores.artifacts,
                                                                 embed_images=not drawn)))
    nav = "".join(f'<a href="#{a}">{t}</a>' for a, t in (
        ("scores", "Scores"), ("plots", "Plots"), ("tables", "Tables"), *((("analyses", "Analyses"),) if analyses else ()),
        ("counters", "Counters"),
        ("models", "Models"), ("samples-section", "Samples"), ("items", "Items"),
        ("configuration", "Configuration")))
    summary = (f"model <code>{_e(manifest.get('model_spec'))}</code>"
               + (f" &middot; judge <code>{_e(manifest['judge'].get('spec'))}</code>"
                  if isinstance(manifest.get("judge"), dict) else "")
               + "".join(f" &middot; {_e(role)} <code>{_e(d.get('spec'))}</code>"
                         for role, d in (manifest.get("roles") or {}).items() if isinstance(d, dict))
               + f" &middot; {_e(units.finished)} of {_e(units.total)} units "
               f"finished, {_e(units.errors)} errors, {_e(units.missing)} not run"
               f" &middot; created {_e(manifest.get('created'))}")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>creval run: {_e(name)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>creval run: {_e(name)}</h1><p>{summary}</p></header><nav>{nav}</nav>"
        f"<main>{''.join(parts)}</main><script>{JS}</script></body></html>\n"
    )


def write_html_report(run_dir: Path | str) -> Path:
    """Write ``report.html`` into the run directory ``run_dir`` and return its path.

    Reads the run through the read-only reader (the report file aside, nothing is written),
    so it is safe beside a live run.
    """
    from creval.reader import read_run
    from creval.report.samples import sample_view

    run = read_run(run_dir)
    scores = run.scores
    if scores is None:
        raise CrevalError(f"{run.path} has no scores.json yet: run `creval run` with this --out.")
    manifest = run.manifest.model_dump(mode="json")
    view = sample_view({r.key: r for r in run.records}, scores.table)
    page = render_html(manifest, scores, view, run.path, run.analyses)
    path = run.path / REPORT_HTML
    tmp = run.path / f".{REPORT_HTML}.{os.getpid()}.tmp"  # the umask's mode, like the run's files
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, path)
    return path
