"""`creval index build/info`, `creval score ci|templates` and `creval run metric-validity`
end to end as a user runs them, on a real index and the real spaCy tagger."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import creval
from tests_paths import write_jsonl_texts

from creval.records import Scores
from tests.benchmarks.scores_contract import assert_intervals

pytest.importorskip("infini_gram", reason="needs the 'index' extra")
pytest.importorskip("spacy", reason="needs the 'pos' extra")

CORPUS = [
    "Hold the jar firmly with one hand and twist the lid with the other hand.",
    "Take the bicycle to a repair shop or call a friend to pick you up.",
    "Cut off the frayed end of the rope with a sharp knife and wrap it with tape.",
]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mv")
    source = write_jsonl_texts(root / "corpus.jsonl", CORPUS)
    done = creval("index", "build", str(source), "--out", str(root / "index"))
    assert done.returncode == 0, done.stderr
    assert "Indexed 3 documents" in done.stdout
    return root / "index"


def test_index_info_and_bad_index(index_dir: Path, tmp_path: Path) -> None:
    done = creval("index", "info", str(index_dir))
    assert done.returncode == 0 and "id_width: u16" in done.stdout and "documents: 3" in done.stdout
    done = creval("index", "info", str(tmp_path))
    assert done.returncode == 2 and "missing" in done.stderr


def test_score_ci_one_line_per_text(index_dir: Path, tmp_path: Path) -> None:
    texts = tmp_path / "texts.jsonl"
    texts.write_text(
        '{"id": "copy", "text": "Hold the jar firmly with one hand and twist the lid with the other hand."}\n'
        '{"id": "new", "text": "Wrap a wide rubber band around the lid and tap its edge on the counter."}\n'
        '{"id": "short", "text": "Twist it."}\n', encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    done = creval("score", "ci", str(texts), "--index", str(index_dir), "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert rows["copy"]["l_uniqueness"] == {"5": 0.0, "6": 0.0, "7": 0.0}
    assert rows["new"]["creativity_index_mean"] > 0.5
    assert rows["short"]["excluded"].startswith("too short")
    assert "2 index queries" in done.stderr


def test_run_metric_validity_offline(index_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = creval("run", "metric-validity", "--domain", "problem-solving", "--metrics",
                  "ci,templates,diversity", "--index", str(index_dir), "--limit", "10",
                  "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stderr
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert len(scores["table"]) == 10 and len(scores["per_item"]["ci_mean"]) == 10  # one row per text
    assert {row["set"] for row in scores["table"]} == {"creative", "uncreative"}
    rows = {row["metric"]: row for row in scores["separation"]}
    assert set(rows) == {"ci_mean", "ci_sum", "tpt"}
    assert rows["ci_mean"]["n_creative"] == rows["ci_mean"]["n_uncreative"] == 5
    assert 0.0 <= rows["tpt"]["auroc"] <= 1.0
    assert_intervals(Scores.model_validate(scores), ["ci_mean_auroc", "ci_sum_auroc", "tpt_auroc"])
    # the scorer says what its AUROC interval is, so a profile prints it with its level and unit
    from creval.evaluation.profile.data import interval

    how = interval(Scores.model_validate(scores), "tpt_auroc")[3]
    if scores["headline"]["tpt_auroc_low"] is not None:  # DeLong gives none at AUROC 0 or 1
        assert how == "the scorer's 95% interval (DeLong, logit scale) over 10 texts", how
    assert scores["creativity_index"]["queries"] == 10  # one index query per text
    assert [r["range"] for r in scores["creativity_index"]["index_by_range"]] == ["5-5", "5-7", "5-9", "5-11"]
    assert (run / "ci_uniqueness_by_l.png").is_file() and (run / "metric_tpt.png").is_file()
    assert "Set-level metrics" in (run / "report.md").read_text(encoding="utf-8")
    creative = [r for r in scores["set_table"] if r["set"] == "creative"][0]
    assert creative["compression_ratio"] > 1.0 and 0.0 < creative["distinct_1"] <= 1.0


def test_run_rejects_bad_metrics(tmp_path: Path) -> None:
    done = creval("run", "metric-validity", "--metrics", "ci,vibes", "--out", str(tmp_path / "r"))
    assert done.returncode == 2 and "--metrics takes" in done.stderr


def test_near_verbatim_through_score_ci_and_the_run(index_dir: Path, tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers", reason="needs the 'embed' extra")
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"id": "para", "text": "Hold the jar tightly with one hand and turn the lid '
                     'with your other hand."}\n', encoding="utf-8")
    rows = {}
    for args in ((), ("--near-verbatim", "0.8")):
        out = tmp_path / f"scores{len(args)}.jsonl"
        done = creval("score", "ci", str(texts), "--index", str(index_dir), "--out", str(out), *args)
        assert done.returncode == 0, done.stderr
        rows[bool(args)] = json.loads(out.read_text(encoding="utf-8"))
    assert rows[True]["near_spans"] > 0 and "near_spans" not in rows[False]
    assert rows[True]["creativity_index_mean"] < rows[False]["creativity_index_mean"]
    run = tmp_path / "run"
    done = creval("run", "metric-validity", "--metrics", "ci", "--index", str(index_dir), "--limit", "4",
                  "--near-verbatim", "0.8", "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stderr
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert scores["creativity_index"]["matching"]["threshold"] == 0.8
    assert "Near-verbatim matches added" in (run / "report.md").read_text(encoding="utf-8")
    done = creval("run", "metric-validity", "--metrics", "ci", "--near-verbatim", "2",
                  "--out", str(tmp_path / "bad"), "--no-progress")
    assert done.returncode == 2 and "near_verbatim" in done.stderr.replace("-", "_")


def test_html_report_draws_every_plot_the_run_writes(index_dir: Path, tmp_path: Path) -> None:
    """The PNG figures the command line writes appear in report.html too (inline SVG)."""
    run = tmp_path / "run"
    done = creval("run", "metric-validity", "--domain", "problem-solving", "--metrics",
                  "ci,templates", "--index", str(index_dir), "--limit", "6", "--out", str(run),
                  "--no-progress")
    assert done.returncode == 0, done.stderr
    pngs = sorted(p.name for p in run.glob("*.png"))
    assert {"ci_uniqueness_by_l.png", "template_rate_by_n.png", "metric_ci_mean.png"} <= set(pngs)
    page = (run / "report.html").read_text(encoding="utf-8")
    assert "no data to plot" not in page
    assert page.count('<figure class="plot"') == len(pngs)
    for title in ("L-uniqueness by span length L", "Template rate by template length n",
                  "ci_mean: creative vs uncreative"):
        assert title in page
