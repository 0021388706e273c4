"""The stylesheet and script inlined in every HTML report (no network needed to open it).

The script renders the sample view from the JSON data island ``#creval-samples``: it
inserts every text with ``textContent`` (never as HTML), filters by the words in the
search box (all must occur, case-insensitive) and by status, and shows 20 samples a page.
The search, status and page live in the URL fragment (``report.html#q=WORD&status=error&page=2``),
so a view can be linked and a test can open the page already filtered.
"""

CSS = r"""
:root { --fg: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #f6f7f9; --accent: #2f5fb3;
        --ok: #2e7d32; --err: #c62828; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: var(--fg); background: var(--bg); }
header { background: #1d2330; color: #fff; padding: 14px 24px; }
header h1 { margin: 0; font-size: 20px; }
header p { margin: 4px 0 0; color: #c7cdd8; }
nav { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid var(--line);
      padding: 6px 24px; }
nav a { margin-right: 14px; color: var(--accent); text-decoration: none; }
main { padding: 8px 24px 40px; max-width: 1280px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 16px;
          margin: 14px 0; }
h2 { font-size: 17px; margin: 4px 0 10px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; margin: 4px 0 8px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top;
         max-width: 520px; overflow-wrap: anywhere; }
th { background: #eef1f6; white-space: nowrap; overflow-wrap: normal; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.note, .muted { color: var(--muted); }
.warning { border-left: 4px solid var(--warn); background: #fff8e1; padding: 6px 10px; margin: 6px 0; }
.error-box { border-left: 4px solid var(--err); background: #ffebee; padding: 6px 10px; margin: 6px 0; }
.plots { display: flex; flex-wrap: wrap; gap: 14px; }
figure.plot { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 6px; background: #fff; }
figure.plot figcaption { font-weight: 600; margin-bottom: 4px; }
figure.plot svg { display: block; max-width: 100%; height: auto; }
figure.plot .note { font-weight: normal; font-size: 12px; max-width: 540px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f3f4f7; border: 1px solid var(--line);
      border-radius: 4px; padding: 6px 8px; margin: 4px 0; max-height: 420px; overflow-y: auto;
      font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.controls { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.controls input[type=search] { flex: 1; min-width: 240px; padding: 6px 8px; font-size: 14px;
                                border: 1px solid var(--line); border-radius: 4px; }
.controls button, .controls select { padding: 5px 10px; }
details.sample { border: 1px solid var(--line); border-radius: 5px; margin: 6px 0; background: #fff; }
details.sample > summary { cursor: pointer; padding: 6px 10px; display: flex; gap: 8px; align-items: baseline; }
details.sample > summary .snippet { color: var(--muted); white-space: nowrap; overflow: hidden;
                                    text-overflow: ellipsis; flex: 1; }
details.sample > div { padding: 4px 12px 10px; }
.badge { font-size: 11px; padding: 1px 6px; border-radius: 9px; color: #fff; background: var(--muted); }
.badge.ok { background: var(--ok); } .badge.error { background: var(--err); }
.badge.excluded { background: var(--warn); } .badge.judge { background: #6a3fb5; }
.call { border-left: 3px solid var(--accent); padding-left: 8px; margin: 8px 0; }
.call.judge { border-left-color: #6a3fb5; }
.label { font-size: 12px; font-weight: 600; color: var(--muted); margin-top: 4px; }
"""

JS = r"""
(function () {
  "use strict";
  var island = document.getElementById("creval-samples");
  if (!island) { return; }
  var data = JSON.parse(island.textContent);
  var texts = data.texts, samples = data.samples, PAGE = 20;
  var box = document.getElementById("sample-search");
  var statusSel = document.getElementById("sample-status");
  var list = document.getElementById("samples");
  var info = document.getElementById("sample-info");
  var prev = document.getElementById("sample-prev"), next = document.getElementById("sample-next");
  var page = 0, matches = [];

  function t(i) { return i === undefined || i === null ? "" : texts[i]; }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }
  var hay = samples.map(function (s) {
    var parts = [s.key, s.status, s.excluded || "", t(s.answer), t(s.error)];
    Object.keys(s.meta).forEach(function (k) { parts.push(k + " " + s.meta[k]); });
    s.calls.forEach(function (c) { parts.push(c.role, t(c.prompt)); c.answers.forEach(function (a) { parts.push(t(a)); }); });
    s.scores.forEach(function (r) { Object.keys(r).forEach(function (k) { parts.push(r[k]); }); });
    return parts.join("\n").toLowerCase();
  });

  function table(rows) {
    var cols = [];
    rows.forEach(function (r) { Object.keys(r).forEach(function (k) { if (cols.indexOf(k) < 0) { cols.push(k); } }); });
    var tab = el("table"), head = el("tr");
    cols.forEach(function (c) { head.appendChild(el("th", null, c)); });
    tab.appendChild(head);
    rows.forEach(function (r) {
      var tr = el("tr");
      cols.forEach(function (c) { tr.appendChild(el("td", null, r[c] === undefined ? "" : r[c])); });
      tab.appendChild(tr);
    });
    var wrap = el("div", "scroll"); wrap.appendChild(tab); return wrap;
  }
  function firstAnswer(s) {
    for (var i = 0; i < s.calls.length; i++) {
      if (s.calls[i].role === "target" && s.calls[i].answers.length) { return t(s.calls[i].answers[0]); }
    }
    return s.error !== undefined ? t(s.error) : t(s.answer);
  }
  function card(s, open) {
    var d = el("details", "sample " + s.status);
    d.setAttribute("data-key", s.key);
    d.open = open;
    var sum = el("summary");
    sum.appendChild(el("span", "badge " + s.status, s.status));
    if (s.excluded) { sum.appendChild(el("span", "badge excluded", "excluded")); }
    sum.appendChild(el("code", null, s.key));
    sum.appendChild(el("span", "snippet", firstAnswer(s).slice(0, 160)));
    d.appendChild(sum);
    var body = el("div");
    var meta = Object.keys(s.meta).map(function (k) { return k + "=" + s.meta[k]; }).join("  ");
    body.appendChild(el("div", "muted", (meta ? meta + "  " : "") + "(" + s.seconds + " s)"));
    if (s.excluded) { body.appendChild(el("div", "warning", "Excluded from the score: " + s.excluded)); }
    if (s.error !== undefined) {
      body.appendChild(el("div", "label", "Error"));
      body.appendChild(el("pre", "error-box", t(s.error)));
    }
    s.calls.forEach(function (c, n) {
      var judge = c.role !== "target";  // the judge, evaluators and other instruments
      var box = el("div", "call" + (judge ? " judge" : ""));
      var prompt = t(c.prompt), fold = el("details", "prompt");
      fold.open = prompt.length <= 300;
      fold.appendChild(el("summary", "label", (judge ? "Judge call " : "Call ") + (n + 1) + " (" + c.role +
        ", " + c.model + "): prompt, " + prompt.length + " characters"));
      fold.appendChild(el("pre", "prompt", prompt));
      box.appendChild(fold);
      c.answers.forEach(function (a, j) {
        box.appendChild(el("div", "label", (judge ? "Judge answer" : "Answer") + (c.answers.length > 1 ? " " + (j + 1) : "")));
        box.appendChild(el("pre", "answer", t(a)));
      });
      body.appendChild(box);
    });
    if (s.more_calls) { body.appendChild(el("div", "note", s.more_calls + " more call(s) not shown; see records.jsonl.")); }
    if (s.answer !== undefined) { body.appendChild(el("div", "label", "Answer")); body.appendChild(el("pre", "answer", t(s.answer))); }
    if (s.scores.length) { body.appendChild(el("div", "label", "Scores of this sample")); body.appendChild(table(s.scores)); }
    if (s.output !== undefined) {
      var more = el("details"); more.appendChild(el("summary", "label", "Other output fields"));
      more.appendChild(el("pre", null, t(s.output))); body.appendChild(more);
    }
    d.appendChild(body);
    return d;
  }
  function readHash() {
    var p = new URLSearchParams(location.hash.slice(1));
    box.value = p.get("q") || "";
    statusSel.value = p.get("status") || "";
    page = Math.max(0, (parseInt(p.get("page") || "1", 10) || 1) - 1);
  }
  function writeHash() {
    var p = new URLSearchParams();
    if (box.value) { p.set("q", box.value); }
    if (statusSel.value) { p.set("status", statusSel.value); }
    if (page) { p.set("page", String(page + 1)); }
    try { history.replaceState(null, "", "#" + p.toString()); } catch (e) { /* file: URLs in some browsers */ }
  }
  function filter() {
    var terms = box.value.toLowerCase().split(/\s+/).filter(Boolean), st = statusSel.value;
    matches = [];
    samples.forEach(function (s, i) {
      if (st && s.status !== st) { return; }
      if (terms.every(function (w) { return hay[i].indexOf(w) >= 0; })) { matches.push(i); }
    });
  }
  function render() {
    var pages = Math.max(1, Math.ceil(matches.length / PAGE));
    page = Math.min(page, pages - 1);
    var start = page * PAGE, shown = matches.slice(start, start + PAGE);
    list.replaceChildren();
    shown.forEach(function (i, n) { list.appendChild(card(samples[i], n === 0)); });
    list.setAttribute("data-matches", String(matches.length));
    list.setAttribute("data-shown", String(shown.length));
    info.textContent = matches.length
      ? "Samples " + (start + 1) + "-" + (start + shown.length) + " of " + matches.length +
        (matches.length < samples.length ? " matching (of " + samples.length + ")" : "") +
        "; page " + (page + 1) + " of " + pages
      : "No sample matches.";
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }
  function update(resetPage) { if (resetPage) { page = 0; } filter(); render(); writeHash(); }
  box.addEventListener("input", function () { update(true); });
  statusSel.addEventListener("change", function () { update(true); });
  prev.addEventListener("click", function () { page -= 1; render(); writeHash(); });
  next.addEventListener("click", function () { page += 1; render(); writeHash(); });
  window.addEventListener("hashchange", function () { readHash(); filter(); render(); });
  readHash(); filter(); render();
  document.body.setAttribute("data-samples-ready", "1");
}());
"""
