"""`creval correlate`'s tables (seed 004, Tables 9 and 10) from hand-made run directories."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from creval.analyses.ttct_correlations import CRITERIA, compare_runs

MODELS = {  # model -> (JCQ criterion means over tasks (Table 3), DAT, SAT)
    "a": ({"fluency": 3.0, "flexibility": 2.0, "originality": 2.5, "elaboration": 3.5}, 70.0, 0.50),
    "b": ({"fluency": 4.0, "flexibility": 2.5, "originality": 2.0, "elaboration": 3.0}, 78.0, 0.60),
    "c": ({"fluency": 4.5, "flexibility": 3.5, "originality": 3.0, "elaboration": 2.0}, 75.0, 0.65),
}


def write_run(path: Path, benchmark: str, scores: dict[str, object]) -> Path:
    path.mkdir(parents=True)
    (path / "manifest.json").write_text(json.dumps({"benchmark": benchmark, "model_spec": "x"}))
    (path / "scores.json").write_text(json.dumps(scores))
    return path


def runs(tmp_path: Path) -> list[Path]:
    out = []
    for model, (crits, dat, sat) in MODELS.items():
        mean = statistics.fmean(crits.values())
        # two tasks whose values differ from the all-task means, so the All row is its own
        tasks = {"unusual uses": {c: v + 0.5 for c, v in crits.items()} | {"mean": mean + 0.5},
                 "consequences": {c: v - 0.5 for c, v in crits.items()} | {"mean": mean - 0.5}}
        out.append(write_run(tmp_path / model / "jcq", "jcq",
                             {"headline": crits | {"mean": mean}, "rubric": {"tasks": tasks}}))
        out.append(write_run(tmp_path / model / "dat", "dat", {"headline": {"dat_mean": dat}}))
        out.append(write_run(tmp_path / model / "sat", "sat", {"headline": {"sat_mean": sat}}))
    return out


@pytest.mark.unverified_runs("hand-made profiles: scores.json written directly, no records")
def test_the_all_row_correlates_the_all_task_means_with_dat_and_sat(tmp_path: Path) -> None:
    result = compare_runs(runs(tmp_path))
    dat = {m: MODELS[m][1] for m in MODELS}
    sat = {m: MODELS[m][2] for m in MODELS}
    for vs, scores in (("dat", dat), ("sat", sat)):
        rows = [r for r in result["correlations"] if r["benchmark"] == "jcq" and r["vs"] == vs]
        all_rows = {r["criterion"]: r for r in rows if r["task"] == "All"}
        assert list(all_rows) == [*CRITERIA, "mean"]  # Table 9/10: four criteria and Mean
        assert rows[-5:] == list(all_rows.values())  # the last row, after every task
        other = [scores[m] for m in sorted(MODELS)]
        for crit in CRITERIA:
            xs = [MODELS[m][0][crit] for m in sorted(MODELS)]
            assert all_rows[crit]["pearson_r"] == pytest.approx(statistics.correlation(xs, other))
            assert all_rows[crit]["n"] == 3
        means = [statistics.fmean(MODELS[m][0].values()) for m in sorted(MODELS)]
        assert all_rows["mean"]["pearson_r"] == pytest.approx(statistics.correlation(means, other))
