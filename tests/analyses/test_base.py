"""Saving an analysis into a run directory: the typed file, its CSV and both reports."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from creval.analyses.base import AnalysisResult, save_analysis
from creval.errors import CrevalError
from creval.reader import read_run
from creval.records import ANALYSES

pytestmark = pytest.mark.unverified_runs("hand-made runs: scores and analysis files written by the tests")


def _scored_run(root: Path) -> Path:
    root.mkdir()
    (root / "manifest.json").write_text(json.dumps({"benchmark": "dat", "model_spec": "local"}))
    (root / "records.jsonl").write_text("")
    (root / "scores.json").write_text(json.dumps({"benchmark": "dat", "headline": {"dat": 80.0}}))
    return root


def _result() -> AnalysisResult:
    frame = pd.DataFrame({"state": [0, 1], "share": [0.25, float("nan")]})
    return AnalysisResult(
        name="techniques", title="Technique share per state", frame=frame, seed_paper="000",
        reproduces="Figure 2", notes=["one note"],
        plots=[{"title": "share", "kind": "bar", "data": {"labels": ["0", "1"], "values": [0.25, None]}}],
        tables={"Counts": pd.DataFrame({"state": [0], "n": [4]})},
    )


def test_saved_analysis_is_read_back_and_shown_in_both_reports(tmp_path: Path) -> None:
    run_dir = _scored_run(tmp_path / "run")
    path = save_analysis(_result(), run_dir, inputs=[str(run_dir)])
    assert path == run_dir / ANALYSES / "techniques.json"
    assert (run_dir / ANALYSES / "techniques.csv").read_text().splitlines()[0] == "state,share"
    [analysis] = read_run(run_dir).analyses
    assert analysis.tables[0].rows == [{"state": 0, "share": 0.25}, {"state": 1, "share": None}]
    assert analysis.tables[1].title == "Counts" and analysis.reproduces == "Figure 2"
    report = (run_dir / "report.md").read_text()
    assert "## Analysis: Technique share per state (Figure 2 of seed 000)" in report
    assert "| 0 | 0.2500 |" in report and "- one note" in report
    page = (run_dir / "report.html").read_text()
    assert 'id="analysis-techniques"' in page and "<svg" in page and "Counts" in page


def test_an_analysis_file_that_is_not_one_is_named(tmp_path: Path) -> None:
    run_dir = _scored_run(tmp_path / "run")
    (run_dir / ANALYSES).mkdir()
    (run_dir / ANALYSES / "broken.json").write_text('{"title": 3}')
    with pytest.raises(CrevalError, match="broken.json is not a creval analysis"):
        _ = read_run(run_dir).analyses


def test_save_outside_a_run_writes_files_without_reports(tmp_path: Path) -> None:
    save_analysis(_result(), tmp_path / "labels-only", inputs=["labels.csv"])
    assert (tmp_path / "labels-only" / ANALYSES / "techniques.json").is_file()
    assert not (tmp_path / "labels-only" / "report.md").exists()
