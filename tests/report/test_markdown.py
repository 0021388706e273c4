"""The Markdown and HTML reports of a scores.json written before the scores named their
benchmark: the manifest's name stands in."""

from __future__ import annotations

from pathlib import Path

from creval.records import Scores
from creval.report.html import render_html
from creval.report.markdown import render_report


def test_reports_fall_back_to_the_manifests_benchmark(tmp_path: Path) -> None:
    manifest = {"benchmark": "dat", "model_spec": "local"}
    scores = Scores.model_validate({"headline": {"dat_mean": 71.5}})
    assert render_report(manifest, scores).startswith("# creval run: dat\n")
    assert "creval run: dat" in render_html(manifest, scores, {"samples": [], "total": 0, "cut_texts": 0}, tmp_path)
    named = Scores.model_validate({"benchmark": "sat", "headline": {}})
    assert render_report(manifest, named).startswith("# creval run: sat\n")
