"""What a sweep reads from its runs, without a model: each benchmark's pair of measures item by
item, the points of sweep.json against a direct computation, and two sweeps compared."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from creval.evaluation.sweep.data import (
    assemble_sweep,
    compare_documents,
    measure_pairs,
    point_dir,
)
from creval.metrics.curves import matched_quality
from creval.reader import read_run
from creval.records import Scores

# The runs here are hand-made: a scores.json written from a Scores object over records that do
# not hold what it says (the "valid_trials null but re-scored 0" that the session's verify found
# is theirs: no scorer wrote them, so neither verify nor the scorer is wrong).
pytestmark = pytest.mark.unverified_runs("hand-made runs: scores.json is written directly, "
                                         "with no records behind its values")

def _run(folder: Path, benchmark: str, scores: Scores, records: list[dict] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps({"benchmark": benchmark, "model_spec": "m"}))
    (folder / "scores.json").write_text(scores.model_dump_json())
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records or []))
    return folder


def test_pairs_of_each_kind(tmp_path: Path) -> None:
    ttct = _run(tmp_path / "ttct", "ttct", Scores(per_item={
        "originality": [3.0, None, 4.0], "mean": [2.5, None, 3.5], "fluency": [1.0, None, 2.0]}))
    [pair] = measure_pairs(read_run(ttct))
    assert (pair.measure, pair.quality_measure) == ("originality", "mean")
    assert pair.divergent == [3.0, None, 4.0] and pair.quality == [2.5, None, 3.5]
    neo = _run(tmp_path / "neo", "neocoder", Scores(per_item={
        "divergent@0": [0.5, None], "convergent@0": [1.0, 0.0], "divergent@1": [0.2, 0.1],
        "convergent@1": [0.0, 1.0], "pass@1@0": [1.0, 0.0]}))
    assert [(p.measure, p.quality_measure) for p in measure_pairs(read_run(neo))] == [
        ("divergent@0", "convergent@0"), ("divergent@1", "convergent@1")]
    open_ended = _run(tmp_path / "mac", "macgyver", Scores(per_item={
        "semantic_entropy": [0.3, 0.7], "multiagent_overall": [1.0, 0.5]}))
    [pair] = measure_pairs(read_run(open_ended))
    assert pair.quality_measure == "multiagent_overall" and pair.quality == [1.0, 0.5]
    dat = _run(tmp_path / "dat", "dat", Scores(
        table=[{"key": "t0", "score": 80.1235}, {"key": "t1", "score": None},
               {"key": "t2", "score": 70.0}],
        per_item={"dat_mean": [80.123456, 70.0]}))
    [pair] = measure_pairs(read_run(dat))
    assert pair.divergent == [80.123456, None, 70.0]  # the exact values, not the table's rounding
    assert pair.quality == [1.0, 0.0, 1.0]
    sat = _run(tmp_path / "sat", "sat", Scores(
        table=[{"id": "a", "distance": 0.3}], per_item={"sat_mean": [0.30004]}),
        [{"key": "story-a", "status": "ok", "unit": {"id": "a"},
          "output": {"text": "A new tale.", "finish_reason": "stop"}},
         {"key": "story-b", "status": "ok", "unit": {"id": "b"},
          "output": {"text": " ", "finish_reason": "stop"}},
         {"key": "story-c", "status": "error", "unit": {"id": "c"}}])
    [pair] = measure_pairs(read_run(sat))
    assert pair.divergent == [0.30004, None] and pair.quality == [1.0, 0.0]
    assert measure_pairs(read_run(_run(tmp_path / "oo", "oogiri", Scores()))) == []


def _dat_sweep(root: Path, curve: dict[float, list[float | None]]) -> dict:
    """A DAT sweep whose trials at each temperature score as given (None: invalid)."""
    for value, scores in curve.items():
        rows = [{"key": f"t{i}", "score": s} for i, s in enumerate(scores)]
        _run(point_dir(root, "temperature", value) / "dat", "dat",
             Scores(table=rows, per_item={"dat_mean": [s for s in scores if s is not None]}))
    header = {"option": "temperature", "values": sorted(curve), "model": root.name,
              "benchmarks": ["dat"], "profile": None}
    return assemble_sweep(root, header, resamples=200)


def test_points_match_a_direct_computation(tmp_path: Path) -> None:
    curve = {0.2: [60.0, 62.0, 61.0, 63.0], 0.7: [70.0, None, 72.0, 71.0],
             1.0: [80.0, None, None, 84.0]}
    doc = _dat_sweep(tmp_path / "a", curve)
    assert [p["value"] for p in doc["points"]] == [0.2, 0.7, 1.0] and doc["missing"] == []
    for p in doc["points"]:
        scores = curve[p["value"]]
        valid = [s for s in scores if s is not None]
        assert p["estimate"] == pytest.approx(statistics.fmean(valid)) and p["n"] == len(valid)
        assert p["quality"] == pytest.approx(len(valid) / len(scores))
        # 4 trials a point: too few for an interval, and the point says so
        assert p["quality_low"] is None and p["low"] is None
        assert p["quality_interval"] == "n=4: too few items for an interval (needs 10)"
        assert p["interval"] == f"n={len(valid)}: too few items for an interval (needs 10)"
        assert p["run"] == f"temperature-{p['value']!r}/dat"
    [curve_doc] = doc["curves"]
    assert curve_doc["trend"]["rho"] > 0.8 and curve_doc["quality_trend"]["rho"] < 0
    # 9 valid trials over 3 values: rho, but neither interval nor test (both need 30 pairs)
    assert curve_doc["trend"]["p"] is None and curve_doc["trend"]["low"] is None
    assert curve_doc["trend"]["note"] == "n=9: too few pairs for a trend interval and test (needs 30)"


def test_two_sweeps_compared(tmp_path: Path) -> None:
    a = {0.2: [60.0, 62.0, 61.0, 63.0], 0.7: [70.0, None, 72.0, 71.0], 1.0: [80.0, None, None, 84.0]}
    b = {0.2: [50.0, 52.0, 51.0, 53.0], 0.7: [55.0, 57.0, 56.0, None], 1.0: [60.0, None, 62.0, 61.0]}
    doc_a, doc_b = _dat_sweep(tmp_path / "a", a), _dat_sweep(tmp_path / "b", b)
    result = compare_documents((tmp_path / "a", doc_a), (tmp_path / "b", doc_b), resamples=200)
    [row] = result["comparisons"]
    # quality: A 1.0, 0.75, 0.5; B 1.0, 0.75, 0.75: both span [0.75, 1.0], target 0.875
    assert row["target"] == pytest.approx(0.875)
    direct = matched_quality([0.2, 0.7, 1.0], [a[v] for v in (0.2, 0.7, 1.0)],
                             [[0.0 if s is None else 1.0 for s in a[v]] for v in (0.2, 0.7, 1.0)],
                             target=0.875, resamples=200)
    assert row["a"]["estimate"] == pytest.approx(direct.estimate)  # 61.5 + 0.5 * (71 - 61.5)
    assert row["a"]["estimate"] == pytest.approx(66.25) and row["a"]["value"] == pytest.approx(0.45)
    # B stays at 0.75 from 0.7 to 1.0 and crosses 0.875 halfway from 0.2 to 0.7
    assert row["b"]["estimate"] == pytest.approx((51.5 + 56.0) / 2)
    assert row["difference"] == pytest.approx(66.25 - 53.75)
    assert [f["value"] for f in row["fixed"]] == [0.2, 0.7, 1.0]
    assert row["fixed"][0]["difference"] == pytest.approx(10.0)
