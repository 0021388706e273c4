"""What every analysis returns and how it is saved into a run directory.

An analysis function computes a pandas frame from runs (the Python API); its ``*_analysis``
companion wraps the frame with the paper's name for it, further tables, plot specs and
notes in an :class:`AnalysisResult`, which :func:`save_analysis` writes as
``analyses/NAME.json`` (+ ``NAME.csv``) and shows in the run's reports.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval._util.redact import redact_text
from creval.errors import CrevalError
from creval.records import ANALYSES, Analysis, AnalysisTable

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class AnalysisResult:
    """An analysis's frame (its main table) with what the report shows beside it."""

    name: str
    title: str
    frame: pd.DataFrame
    seed_paper: str = ""
    reproduces: str = ""
    #: Further tables, title -> frame, shown after the main one.
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    plots: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)

    def to_analysis(self, inputs: list[str]) -> Analysis:
        """The typed, JSON-ready form saved into a run directory."""
        tables = [AnalysisTable(title=self.title, rows=frame_rows(self.frame),
                                columns=[str(c) for c in self.frame.columns])]
        tables += [AnalysisTable(title=title, rows=frame_rows(frame), columns=[str(c) for c in frame.columns])
                   for title, frame in self.tables.items()]
        return Analysis(
            name=self.name, title=self.title, seed_paper=self.seed_paper, reproduces=self.reproduces,
            created=datetime.now(UTC).isoformat(timespec="seconds"),
            inputs=[redact_text(str(i)) for i in inputs], options=plain(self.options), tables=tables,
            plots=plain(self.plots), notes=list(self.notes),
        )


def plain(value: Any) -> Any:
    """``value`` with numpy scalars as Python numbers and NaN/inf as None (JSON-safe).

    >>> import numpy as np
    >>> plain({"a": np.float64(0.5), "b": [float("nan"), np.int64(2)], "c": (1, "x")})
    {'a': 0.5, 'b': [None, 2], 'c': [1, 'x']}
    """
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Path):
        return str(value)
    return value


def frame_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as JSON-ready dicts (missing values as None)."""
    return [plain(row) for row in frame.astype(object).where(frame.notna(), None).to_dict("records")]


def save_analysis(result: AnalysisResult, out: Path | str, inputs: list[str]) -> Path:
    """Write ``out/analyses/NAME.json`` and ``NAME.csv``; when ``out`` is a scored run
    directory, write its ``report.md`` and ``report.html`` again so they show the analysis.
    Returns the JSON file's path."""
    root = Path(out)
    folder = root / ANALYSES
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CrevalError(f"Cannot write the analysis into {root} ({exc}); pass a writable --out.") from None
    record = result.to_analysis(inputs)
    path = folder / f"{result.name}.json"
    tmp = folder / f".{result.name}.{os.getpid()}.tmp"
    tmp.write_text(record.model_dump_json(indent=2), encoding="utf-8")
    os.replace(tmp, path)
    result.frame.to_csv(folder / f"{result.name}.csv", index=False)
    if (root / "scores.json").is_file() and (root / "manifest.json").is_file():
        rerender_reports(root)
    return path


def rerender_reports(run_dir: Path) -> None:
    """``report.md`` and ``report.html`` of a run, written again from its files."""
    from creval.reader import read_run
    from creval.report.html import write_html_report
    from creval.report.markdown import write_report

    run = read_run(run_dir)
    if run.scores is None:
        return
    write_report(run_dir, run.manifest.model_dump(mode="json"), run.scores)
    write_html_report(run_dir)
