"""The HTML report: built from real runs against a scripted OpenAI-compatible server, opened
in real headless Chromium, its plots and sample view checked, its search typed into."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from typer.testing import CliRunner

from creval.records import Record, latest_records, read_records
from creval.report.html import write_html_report

from ._browser import Browser, chromium_or_skip

WORDS = ["cat", "galaxy", "spoon", "democracy", "volcano", "violin", "tractor", "oxygen",
         "pillow", "justice", "shark", "umbrella", "zebra", "kettle", "glacier"]
PAYLOAD = ("<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\"> "
           "</script><script>document.body.setAttribute('data-pwned','script')</script>")
TRIALS = 25

#: Why the runs of the test benchmark ``toy`` are not verified at the session's end.
TOY = ("runs of a benchmark registered only while the test runs, so the session's verify "
       "cannot re-score them")


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    """DAT: ten seeded nouns (every 7th trial a refusal, so it is excluded); SAT: a rewrite
    that tries to inject markup and script into the report."""
    text = body["messages"][-1]["content"]
    seed = int(body.get("seed") or 0)
    if "nouns" in text:
        if seed % 7 == 3:
            return 200, "I would rather not."
        words = random.Random(seed).sample(WORDS, 10)
        return 200, "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words))
    return 200, f"In a glass city, a tale retold (seed {seed}). {PAYLOAD}"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``creval run dat sat`` against the scripted server; the first request fails (HTTP 400),
    so one DAT unit is an error record."""
    server = ChatServer(script=[400], reply=_reply)
    out = tmp_path_factory.mktemp("runs")
    try:
        done = creval("run", "dat", "sat", "--model", "openai:m", "--base-url", server.url,
                      "--trials", str(TRIALS), "--concurrency", "1", "--no-progress",
                      "--no-cache", "--out", str(out))
    finally:
        server.close()
    assert done.returncode == 1, done.stderr  # 1: a unit failed
    assert (out / "dat" / "report.html").is_file() and (out / "sat" / "report.html").is_file()
    yield out


def _latest(run: Path) -> dict[str, Record]:
    return latest_records(read_records(run / "records.jsonl"))


@pytest.mark.slow
def test_every_run_writes_a_self_contained_escaped_report(runs: Path) -> None:
    for name in ("dat", "sat"):
        page = (runs / name / "report.html").read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>") and f"creval run: {name}" in page
        # nothing to fetch: no external stylesheet, script, image or font
        assert not re.search(r"""(?:src|href)\s*=\s*["'](?!#|data:)""", page)
        assert "<link" not in page and "@import" not in page and "url(http" not in page
        assert page.count("<script") == 2  # the sample data and the page script
        assert "<img src=x" not in page and "</script><script>document" not in page
    sat = (runs / "sat" / "report.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=" in sat  # the items table shows the payload as text


@pytest.mark.slow
def test_dat_report_renders_plots_and_a_searchable_paged_sample_view(runs: Path, tmp_path: Path) -> None:
    binary = chromium_or_skip()
    run = runs / "dat"
    latest = _latest(run)
    assert len(latest) == TRIALS and sum(r.status == "error" for r in latest.values()) == 1
    with_zebra = sum("zebra" in str(r.output.get("text", "")).lower() for r in latest.values())
    assert 0 < with_zebra < TRIALS
    browser = Browser(binary, (run / "report.html").as_uri(), tmp_path / "profile")
    try:
        browser.wait_for("document.body && document.body.dataset.samplesReady === '1'")
        plots = browser.js("""Array.from(document.querySelectorAll('figure.plot')).map(f => {
            const r = f.querySelector('svg').getBoundingClientRect();
            return [f.dataset.kind, f.querySelector('figcaption').textContent, r.width, r.height]; })""")
        titles = [p[1] for p in plots]
        assert any(t.startswith("DAT score distribution") for t in titles), titles
        assert any(t.startswith("Why DAT trials were invalid") for t in titles), titles
        assert all(w > 200 and h > 100 for _, _, w, h in plots), plots
        assert browser.js("document.querySelectorAll('figure.plot svg rect, figure.plot svg path').length") > 10

        def state() -> tuple[int, int]:
            return (int(browser.js("document.getElementById('samples').dataset.matches")),
                    int(browser.js("document.querySelectorAll('#samples details.sample').length")))

        assert state() == (TRIALS, 20)  # page 1 of 2
        first = browser.js("""(() => { const d = document.querySelector('#samples details.sample');
            return [d.open, d.querySelector('pre').checkVisibility()]; })()""")
        assert first == [True, True]  # the first card of a page is open
        card = "document.querySelector('#samples details.sample.ok')"
        browser.js(f"{card}.querySelector('summary').click()")  # open a trial's card
        assert browser.js(f"{card}.open && {card}.querySelector('pre.answer').checkVisibility()")
        assert not browser.js(f"{card}.querySelector('pre.prompt').checkVisibility()")  # long: folded
        browser.js(f"{card}.querySelector('details.prompt > summary').click()")
        prompt = browser.js(f"[{card}.querySelector('pre.prompt').checkVisibility(), "
                            f"{card}.querySelector('pre.prompt').textContent]")
        assert prompt[0] is True and prompt[1].startswith("Come up with 10 nouns")
        browser.js("document.getElementById('sample-next').click()")
        assert state() == (TRIALS, TRIALS - 20)

        browser.js("document.getElementById('sample-search').focus()")
        browser.type_text("ZEBRA")
        assert state() == (with_zebra, min(with_zebra, 20))
        texts = browser.js("Array.from(document.querySelectorAll('#samples details.sample'))"
                           ".map(d => d.textContent.toLowerCase())")
        assert all("zebra" in t for t in texts)
        assert "q=ZEBRA" in browser.js("location.hash")

        browser.js("""(() => { const s = document.getElementById('sample-search'); s.value = '';
            s.dispatchEvent(new Event('input')); const st = document.getElementById('sample-status');
            st.value = 'error'; st.dispatchEvent(new Event('change')); })()""")
        assert state() == (1, 1)
        assert "scripted 400" in browser.js("document.querySelector('#samples pre.error-box').textContent")

        excluded = browser.js("document.querySelectorAll('.badge.excluded').length")
        browser.send("Page.navigate", url=(run / "report.html").as_uri() + "#q=would%20rather")
        browser.wait_for("document.body && document.body.dataset.samplesReady === '1' && "
                         "document.getElementById('sample-search').value === 'would rather'")
        refusals = sum(str(r.output.get("text", "")).startswith("I would") for r in latest.values())
        assert state()[0] == refusals > 0
        assert browser.js("document.querySelectorAll('.badge.excluded').length") == refusals
        assert excluded == 0  # the error page showed no excluded trial

        browser.send("Page.navigate", url=(run / "report.html").as_uri())
        browser.wait_for("document.body && document.body.dataset.samplesReady === '1'")
        shot = browser.screenshot(tmp_path / "dat_report.png")
    finally:
        browser.close()
    print(f"screenshot of the DAT report: {shot}")
    from PIL import Image

    with Image.open(shot) as image:
        assert image.width >= 1200 and image.height > 2000
        assert len(image.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 50


@pytest.mark.slow
def test_sat_report_shows_untrusted_output_as_text(runs: Path, tmp_path: Path) -> None:
    binary = chromium_or_skip()
    run = runs / "sat"
    browser = Browser(binary, (run / "report.html").as_uri() + "#q=onerror", tmp_path / "profile")
    try:
        browser.wait_for("document.body && document.body.dataset.samplesReady === '1'")
        assert browser.js("document.body.getAttribute('data-pwned')") is None
        assert browser.js("document.querySelectorAll('main img, main script:not(#creval-samples)').length") == 0
        stories = len(_latest(run))
        assert int(browser.js("document.getElementById('samples').dataset.matches")) == stories
        answer = browser.js("document.querySelector('#samples pre.answer').textContent")
        assert "<img src=x onerror=" in answer and "</script><script>" in answer
        kinds = browser.js("Array.from(document.querySelectorAll('figure.plot figcaption'))"
                           ".map(f => f.textContent)")
        assert any(k.startswith("SAT distance distribution") for k in kinds), kinds
    finally:
        browser.close()


# -- without a browser: hand-written run directories ---------------------------------------

def _run_dir(root: Path, scores: dict[str, Any], records: list[Record]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    manifest = {"benchmark": "toy", "model_spec": "openai:m",
                "model": {"spec": "openai:m", "identity": {"provider": "openai"},
                          "capabilities": {"logprobs": False}},
                "options": {"trials": len(records)}, "created": "2026-01-01T00:00:00"}
    (root / "manifest.json").write_text(json.dumps(manifest))
    (root / "scores.json").write_text(json.dumps({"benchmark": "toy", **scores}))
    (root / "records.jsonl").write_text("".join(r.model_dump_json() + "\n" for r in records))
    return root


DECLARED = [
    {"title": "A histogram", "kind": "histogram", "data": {"values": [1, 2, 2, 3, None]}},
    {"title": "Bars", "kind": "bar", "data": {"labels": ["a", "b"], "series": {"x": [1, 2], "y": [2, None]}}},
    {"title": "Heat", "kind": "heatmap", "data": {"rows": ["r1", "r2"], "columns": ["c1"], "values": [[1.0], [None]]}},
    {"title": "Lines", "kind": "line", "data": {"x": [0, 1, 2], "series": {"s": [0.1, 0.3, 0.2]}}},
    {"title": "Broken", "kind": "bar", "data": {"labels": ["a"], "values": [1, 2]}},
]


@pytest.mark.unverified_runs(TOY)
def test_declared_plots_are_drawn_and_a_bad_one_is_named(tmp_path: Path) -> None:
    run = _run_dir(tmp_path / "run", {"headline": {"x": 1.5}, "plots": DECLARED},
                   [Record(key="k", status="ok", output={"text": "hi"})])
    page = write_html_report(run).read_text(encoding="utf-8")
    kinds = re.findall(r'<figure class="plot" data-kind="(\w+)">', page)
    assert kinds == ["histogram", "bar", "heatmap", "line"]
    assert page.count("<svg") == 4
    assert "Plot &#x27;Broken&#x27; not drawn: data.values has 2 values for 1 labels." in page


@pytest.mark.unverified_runs(TOY)
def test_without_matplotlib_the_report_keeps_its_tables(tmp_path: Path) -> None:
    run = _run_dir(tmp_path / "run", {"headline": {"x": 1.5}, "plots": DECLARED[:1],
                                      "table": [{"key": "k", "score": 0.25}]},
                   [Record(key="k", status="ok", output={"text": "hi"})])
    blocked = ("import sys; sys.modules['matplotlib'] = None\n"  # as if it were not installed
               "from creval.report.html import write_html_report\n"
               f"write_html_report({str(run)!r})")
    subprocess.run([sys.executable, "-c", blocked], check=True, timeout=120)
    page = (run / "report.html").read_text(encoding="utf-8")
    assert "<svg" not in page and "matplotlib is not installed" in page
    assert "<td class=\"num\">0.2500</td>" in page


def _judged_run(root: Path, long_answer: str) -> Path:
    return _run_dir(root, {"headline": {"x": 1.5}}, [
        Record(key="k", status="ok", output={"text": long_answer}, calls=[
            {"role": "target", "model": "openai:m",
             "request": {"messages": [{"role": "user", "content": "Say words."}]},
             "completions": [{"text": long_answer}]},
            {"role": "judge", "model": "openai:j",
             "request": {"messages": [{"role": "user", "content": "Judge this."}]},
             "completions": [{"text": "yes"}]}]),
        Record(key="e", status="error", error="ModelError: 404"),
    ])


@pytest.mark.unverified_runs(TOY)
def test_report_command_writes_html_and_prints_its_path(tmp_path: Path) -> None:
    from creval.cli import app

    long_answer = "word " * 5000
    run = _judged_run(tmp_path / "run", long_answer)
    result = CliRunner().invoke(app, ["report", str(run), "--html"])
    assert result.exit_code == 0, result.output
    assert f"HTML report: {run / 'report.html'}" in result.output
    page = (run / "report.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="creval-samples">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    sample = data["samples"][0]
    assert [c["role"] for c in sample["calls"]] == ["target", "judge"]
    answer = data["texts"][sample["calls"][0]["answers"][0]]
    assert len(answer) < len(long_answer) and "more characters not shown" in answer
    assert data["texts"][data["samples"][1]["error"]] == "ModelError: 404"
    assert data["cut_texts"] == 1


@pytest.mark.unverified_runs(TOY)
def test_a_large_run_gives_a_bounded_page(tmp_path: Path) -> None:
    records = [Record(key=f"k{i}", status="ok", output={"text": f"{i} " + "lorem ipsum " * 250})
               for i in range(6000)]
    run = _run_dir(tmp_path / "run", {"headline": {"x": 1.0},
                                      "table": [{"key": r.key, "score": 0.5} for r in records]},
                   records)
    page = write_html_report(run).read_text(encoding="utf-8")
    assert len(page.encode()) < 6_000_000  # 18 MB of answers in records.jsonl
    assert "The first 5000 of 6000 units are shown." in page
    assert "500 of 6000 rows shown; all are in scores.json." in page
    data = json.loads(re.search(r'id="creval-samples">(.*?)</script>', page, re.S).group(1))  # type: ignore[union-attr]
    assert len(data["samples"]) == 5000 and data["cut_texts"] == 5000
    assert all("more characters not shown" in t for t in data["texts"])


@pytest.mark.slow
@pytest.mark.unverified_runs(TOY)
def test_judge_calls_and_cut_texts_show_in_chromium(tmp_path: Path) -> None:
    binary = chromium_or_skip()
    run = _judged_run(tmp_path / "run", "word " * 5000)
    browser = Browser(binary, write_html_report(run).as_uri(), tmp_path / "profile")
    try:
        browser.wait_for("document.body.dataset.samplesReady === '1'")
        calls = browser.js("Array.from(document.querySelectorAll('#samples .call')).map(c => "
                           "[c.className, c.querySelector('summary').textContent, "
                           "Array.from(c.querySelectorAll('pre.answer')).map(p => p.textContent)])")
        assert [c[0] for c in calls] == ["call", "call judge"]
        assert calls[1][1].startswith("Judge call 2 (judge, openai:j)") and calls[1][2] == ["yes"]
        assert "more characters not shown" in calls[0][2][0]
        assert browser.js("document.querySelector('#samples details.sample').open")
    finally:
        browser.close()


def test_models_section_shows_each_role_of_the_run() -> None:
    from creval.report.html import _models

    manifest = {"model": {"spec": "openai:player", "identity": {}, "capabilities": {}},
                "roles": {"e1": {"spec": "openai:daeso", "does": "evaluator E1", "chosen_by": "--e1",
                                 "identity": {"model": "daeso"}, "capabilities": {"images": False}}}}
    html = _models(manifest)
    assert "Role e1: <code>openai:daeso</code>" in html and "chosen by --e1" in html
    assert "daeso" in html and "No separate judge" not in html
    assert "No separate judge" in _models({"model": manifest["model"]})
