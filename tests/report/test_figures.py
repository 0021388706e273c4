"""The built-in plots: each benchmark's scores give the plots it should, every spec is valid
and draws as SVG, and untrusted labels stay text."""

from __future__ import annotations

from typing import Any

import pytest

from creval.benchmarks.ttct.scoring import rubric_scores
from creval.metrics.rubric_agg import aggregate_rubric
from creval.report.figures import builtin_plots
from creval.report.plots import check_plot, render_svg

pytest.importorskip("matplotlib", reason="the plot extra draws the plots")


def _ttct() -> dict[str, Any]:
    rows = [{"question_id": q, "answer_index": i, "task": task, "fluency": 3 + i, "flexibility": 2,
             "originality": 4 - i, "elaboration": 3}
            for q, task in (("q1", "unusual uses"), ("q2", "consequences"), ("q3", "<b>task</b>"))
            for i in range(2)]
    agg = aggregate_rubric(rows, criteria=("fluency", "flexibility", "originality", "elaboration"))
    return {"benchmark": "ttct", **rubric_scores(agg, parsed=len(rows), failures=[], notes=[], lang="en")}


STEPS = [{"id": p, "step": s, "valid": 5, "clusters": 2, "discrete": 0.5 + s / 10 + j,
          "length_normalised": 0.4 + s / 10, "probability_weighted": 0.45}
         for j, p in enumerate(("p1", "p2")) for s in (1, 2, 3)] + [{"id": "p3", "step": 1, "valid": 1}]
CASES: list[tuple[dict[str, Any], list[tuple[str, str]]]] = [
    ({"benchmark": "dat", "table": [{"score": 80.5}, {"score": None}, {"score": 77.0}],
      "summary": {"invalid_reasons": {"too few valid words": 1}}},
     [("histogram", "DAT score distribution"), ("bar", "Why DAT trials were invalid")]),
    ({"benchmark": "sat", "table": [{"distance": 0.3}, {"distance": 0.5}]},
     [("histogram", "SAT distance distribution")]),
    (_ttct(), [("heatmap", "Judge scores: task x criterion")]),
    ({"benchmark": "macgyver", "sections": [
        {"title": "Judges", "rows": [
            {"judge": "single", "solutions": 2, "feasibility": 1.0, "safety": 0.5, "overall": 0.75,
             "parse_failures": 0, "tokens": 10, "tokens_by_role": "judge=10"},
            {"judge": "multiagent", "solutions": 2, "feasibility": 0.5, "safety": None,
             "overall": 0.5, "parse_failures": 1, "tokens": 30, "tokens_by_role": "judge=30"}]},
        {"title": "Steps", "rows": STEPS}]},
     [("line", "Semantic entropy per step"),
      ("histogram", "Semantic entropy distribution (length-normalised, per step)"),
      ("bar", "Judge verdicts per criterion")]),
    ({"benchmark": "neocoder", "states": [
        {"t": 0, "neogauge": 0.2, "cumulative_neogauge": 0.2, "convergent": 0.5, "divergent": 0.4},
        {"t": 1, "neogauge": None, "cumulative_neogauge": 0.3, "convergent": 0.4, "divergent": 0.1}]},
     [("line", "NeoGauge per state")]),
    ({"benchmark": "oogiri", "headline": {"acc_2T1": 0.5, "acc_3T1": None, "ndcg": 0.7}},
     [("bar", "Choice accuracy per question type")]),
    ({"benchmark": "lotbench", "sections": [{"title": "Rounds to DAESO", "rows": [
        {"round": 1, "games": 2}, {"round": "unsolved", "games": 1}]}]},
     [("bar", "Rounds to DAESO")]),
    ({"benchmark": "dat", "table": []}, []),
]


@pytest.mark.parametrize(("scores", "expected"), CASES, ids=[c[0]["benchmark"] for c in CASES])
def test_each_benchmark_gets_its_plots_and_they_draw(scores: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    specs = builtin_plots(scores)
    assert [(s["kind"], s["title"]) for s in specs] == expected
    for spec in specs:
        assert check_plot(spec) is None, spec
        svg = render_svg(spec)
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")


def test_semantic_entropy_per_step_is_the_mean_over_solutions() -> None:
    line = builtin_plots({"sections": [{"title": "Steps", "rows": STEPS}]})[0]
    assert line["data"]["x"] == [1, 2, 3]
    assert line["data"]["series"]["discrete"] == pytest.approx([1.1, 1.2, 1.3])  # (0.6 + 1.6) / 2 ...
    assert line["data"]["series"]["length-normalised"] == pytest.approx([0.5, 0.6, 0.7])


def test_heatmap_holds_the_task_means_and_labels_stay_text() -> None:
    (heat,) = builtin_plots(_ttct())
    data = heat["data"]
    assert data["columns"] == ["fluency", "flexibility", "originality", "elaboration", "mean"]
    row = data["values"][data["rows"].index("unusual uses")]
    assert row[:4] == pytest.approx([3.5, 2.0, 3.5, 3.0]) and row[4] == pytest.approx(3.0)
    svg = render_svg(heat)
    assert "<b>" not in svg and "&lt;b&gt;task&lt;/b&gt;" in svg
