"""Seed 001 analyses from the command line over real offline runs.

Two ``creval run macgyver`` runs (temperatures 0.5 and 1.0) against a scripted model with
log-probabilities (:mod:`_openended_model`), judged by the one-shot judge; every ``creval
analyze`` command of the seed then reads them, and its table must appear in both reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import creval

from creval.models import register_provider
from creval.reader import read_run

pytestmark = pytest.mark.unverified_runs("hand-made or deliberately incomplete runs the analyses must refuse")

ANALYSES = ("naive_entropy", "se_diversity", "se_convergent", "se_temperature", "judge_accuracy",
            "entailment_models")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    register_provider("scripted", "_openended_model:create")
    root = tmp_path_factory.mktemp("openended")
    out = []
    for temperature in ("0.5", "1.0"):
        run = root / f"t{temperature}"
        done = creval("run", "macgyver", "--model", "scripted:a", "--limit", "3", "--n", "4",
                      "--max-steps", "3", "--temperature", temperature, "--judges", "oneshot",
                      "--entailment", "embedding:0.95", "--no-cache", "--no-progress", "--out", str(run))
        assert done.returncode == 0, done.stderr
        out.append(run)
    yield out[0], out[1]


def test_every_analysis_runs_and_shows_in_both_reports(runs: tuple[Path, Path], tmp_path: Path) -> None:
    cold, hot = runs
    ids = [r.unit["id"] for r in read_run(cold).records]
    novelty = tmp_path / "novelty.csv"
    novelty.write_text("id,rank\n" + "".join(f"{i},{n}\n" for n, i in enumerate(ids, start=1)))
    # the judge's own verdicts as the annotators' labels, but with the first one flipped
    judged = [(r.unit["id"], c, v) for r in read_run(cold).records
              for c, v in r.output["verdicts"]["oneshot"]["verdicts"].items()]
    labels = tmp_path / "judge.csv"
    rows = [f"{i},{c},{'no' if (k == 0) == v else 'yes'},{'no' if (k == 0) == v else 'yes'}\n"
            for k, (i, c, v) in enumerate(judged)]
    labels.write_text("id,criterion,annotator_1,annotator_2\n" + "".join(rows))
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("text_a,text_b,annotator_1\nTie the rope.,Tie the rope.,yes\n"
                     "Tie the rope.,Melt the ice with salt before dawn.,no\n")
    commands = [
        ["naive-entropy", str(cold), "--novelty", str(novelty)],
        ["se-diversity", str(cold), str(hot)],
        ["se-convergent", str(cold), str(hot), "--bin-size", "2"],
        ["se-temperature", str(cold), str(hot)],
        ["judge-accuracy", str(cold), "--labels", str(labels)],
        ["entailment", "--labels", str(pairs), "--model", "embedding:0.9", "--out", str(cold)],
    ]
    for command in commands:
        done = creval("analyze", *command)
        assert done.returncode == 0, (command, done.stderr)
    saved = {a.name: a for a in read_run(cold).analyses}
    assert set(ANALYSES) <= set(saved)
    report, page = (cold / "report.md").read_text(), (cold / "report.html").read_text()
    for name in ANALYSES:
        assert f"## Analysis: {saved[name].title}" in report
        assert f'id="analysis-{name}"' in page
    # 3 solutions x 3 criteria; the labels disagree with the judge on one item: 8 / 9
    judge = saved["judge_accuracy"].tables[0].rows[0]
    assert judge["items"] == 9 and judge["accuracy"] == pytest.approx(8 / 9)
    temps = saved["se_temperature"].tables[0].rows
    assert [r["temperature"] for r in temps] == [0.5, 1.0]
    # the scripted model spreads its candidates over more ideas when hotter
    assert temps[1]["mean_step_entropy"] > temps[0]["mean_step_entropy"]
    entail = saved["entailment_models"].tables[0].rows[0]
    assert entail["accuracy"] == 1.0 and entail["approximate"] is True
    assert json.loads((cold / "analyses" / "se_diversity.json").read_text())["seed_paper"] == "001"


def test_analyses_refuse_what_they_cannot_read(runs: tuple[Path, Path], tmp_path: Path) -> None:
    cold, _ = runs
    other = tmp_path / "dat"
    other.mkdir()
    (other / "manifest.json").write_text(json.dumps({"benchmark": "dat", "model_spec": "m"}))
    done = creval("analyze", "se-diversity", str(other))
    assert done.returncode == 2 and "macgyver, hypogen, bookmia" in done.stderr
    done = creval("analyze", "se-convergent", str(cold), "--judge", "chateval")
    assert done.returncode == 2 and "has oneshot" in done.stderr
    done = creval("analyze", "se-temperature", str(cold), "--estimator", "mean")
    assert done.returncode == 2 and "--estimator takes" in done.stderr
