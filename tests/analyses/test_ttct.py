"""Seed 004's SAT analyses (Tables 23-24, Figure 1) on three scripted SAT runs and a rankings file.

The models m1, m2, m3 answer every story with ``alpha ...``, ``beta ...`` and ``gamma ...``;
the judge rates alpha 5, beta 3 and answers gamma with words (unparsed). The rankings rank
m1 > m2 > m3, m2 > m1 > m3 and m1 > m3 > m2 on the three stories, so by hand the human
scores are m1 (1 + 0.5 + 1) / 3 = 5/6, m2 (0.5 + 1 + 0) / 3 = 1/2, m3 (0 + 0 + 0.5) / 3 = 1/6.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _cli import creval
from _servers import ChatServer

from creval.analyses.ttct import embedder_correlations, sat_reliability, sat_scores
from creval.benchmarks.sat.stories import load_stories
from creval.errors import CrevalError
from creval.reader import read_run

MODELS = {"m1": "alpha", "m2": "beta", "m3": "gamma"}
RATINGS = {"alpha": "5", "beta": "3", "gamma": "Quite creative, I think."}
STORIES = [s.id for s in load_stories(None, "en")[:3]]
RANKINGS = [["m1", "m2", "m3"], ["m2", "m1", "m3"], ["m1", "m3", "m2"]]


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    text = body["messages"][-1]["content"]
    if "# Modern version" in text:
        rewrite = text.rsplit("# Modern version", 1)[1].strip()
        return 200, RATINGS[rewrite.split()[0]]
    return 200, f"{MODELS[body['model']]} in a glass city, a tale retold for today."


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[Path], Path, ChatServer]]:
    """Three scored SAT runs (runs/m1, runs/m2, runs/m3), the rankings file, the server."""
    root = tmp_path_factory.mktemp("sat")
    server = ChatServer(reply=_reply)
    try:
        runs = []
        for model in MODELS:
            done = creval("run", "sat", "--model", f"openai:{model}", "--base-url", server.url,
                          "--limit", "3", "--no-progress", "--no-cache", "--out", str(root / model))
            assert done.returncode == 0, done.stderr
            runs.append(root / model)
        labels = root / "rankings.jsonl"
        labels.write_text("# one worker\n" + "".join(
            json.dumps({"story": s, "ranking": r, "annotator": "w1"}) + "\n"
            for s, r in zip(STORIES, RANKINGS, strict=True)))
        yield runs, labels, server
    finally:
        server.close()


class FakeEmbedder:
    """Originals and alpha along x, beta along y, gamma at 60 degrees: distances 0, 1, 0.5."""

    spec = "fake"

    def __init__(self) -> None:
        self.originals = {s.story for s in load_stories(None, "en")}

    def identity(self) -> dict[str, Any]:
        return {"model": "fake"}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        table = {"alpha": [1.0, 0.0], "beta": [0.0, 1.0], "gamma": [0.5, math.sqrt(0.75)]}
        return np.array([[1.0, 0.0] if t in self.originals else table[t.split()[0]] for t in texts])


def test_human_and_judge_scores_match_the_hand_calculation(setup: tuple[list[Path], Path, ChatServer]) -> None:
    runs, labels, server = setup
    frame = sat_scores(runs, labels, judge="openai:judge", base_url=server.url).set_index("model")
    asked = server.seen
    again = sat_scores(runs, labels, judge="openai:judge", base_url=server.url).set_index("model")
    assert server.seen == asked, "the judge's answers were not served from the cache"
    assert again["judge"].tolist()[:2] == frame["judge"].tolist()[:2]
    assert frame.loc["openai:m1", "human"] == pytest.approx(5 / 6)
    assert frame.loc["openai:m2", "human"] == pytest.approx(1 / 2)
    assert frame.loc["openai:m3", "human"] == pytest.approx(1 / 6)
    assert frame.loc["openai:m1", "rankings"] == 3
    assert frame.loc["openai:m1", "judge"] == pytest.approx(5 / 5)
    assert frame.loc["openai:m2", "judge"] == pytest.approx(3 / 5)
    assert frame.loc["openai:m3", "judge"] is None or math.isnan(frame.loc["openai:m3", "judge"])
    assert frame.loc["openai:m3", "judge_unparsed"] == 3
    sat_mean = read_run(runs[0]).scores.headline["sat_mean"]  # type: ignore[union-attr]
    assert frame.loc["openai:m1", "embedding"] == sat_mean


def test_embedder_correlation_and_reliability_match_the_hand_calculation(
        setup: tuple[list[Path], Path, ChatServer]) -> None:
    # scores x = (0, 1, 0.5) against human y = (5/6, 1/2, 1/6): deviations (-1/2, 1/2, 0) and
    # (1/3, 0, -1/3), r = (-1/6) / sqrt(1/2 * 2/9) = -0.5
    runs, labels, _ = setup
    table = embedder_correlations(runs, labels, [FakeEmbedder()])
    assert table.loc[0, "embedder"] == "fake" and table.loc[0, "models"] == 3
    assert table.loc[0, "pearson_r"] == pytest.approx(-0.5)
    assert table.attrs["scores"]["fake"].tolist() == pytest.approx([0.0, 1.0, 0.5])
    curve = sat_reliability(runs, labels, embedder=FakeEmbedder(), repeats=5).set_index("stories")
    assert curve.loc[3, "draws"] == 1 and curve.loc[3, "mean_r"] == pytest.approx(-0.5)
    # every story gives each model the same distance, so any one story gives the same r
    assert curve.loc[1, "draws"] == 5 and curve.loc[1, "p5_r"] == pytest.approx(-0.5)


def test_commands_write_tables_into_every_runs_reports(setup: tuple[list[Path], Path, ChatServer]) -> None:
    from creval.embed import get_embedder
    from creval.metrics.distance import paired_cosine_distances

    runs, labels, server = setup
    url = server.url
    paths = [str(r) for r in runs]
    done = creval("analyze", "sat-scores", *paths, "--labels", str(labels), "--judge", "openai:judge",
                  "--base-url", url)
    assert done.returncode == 0, done.stderr
    report = (runs[2] / "report.md").read_text()
    assert "(Table 23 of seed 004)" in report and "0.8333" in report

    done = creval("analyze", "sat-embedders", *paths, "--labels", str(labels), "--embedder", "minilm")
    assert done.returncode == 0, done.stderr
    [saved] = [a for a in read_run(runs[0]).analyses if a.name == "sat-embedders"]
    # the same r from the embeddings computed here, with numpy's correlation
    embedder = get_embedder("minilm")
    originals = {s.id: s.story for s in load_stories(None, "en")}
    means = []
    for run in runs:
        pairs = [(originals[r.unit["id"]], r.output["text"]) for r in read_run(run).records]
        means.append(float(np.mean(paired_cosine_distances(embedder.embed([a for a, _ in pairs]),
                                                           embedder.embed([b for _, b in pairs])))))
    expected = float(np.corrcoef(means, [5 / 6, 1 / 2, 1 / 6])[0, 1])
    assert saved.tables[0].rows[0]["pearson_r"] == pytest.approx(expected, abs=1e-6)
    assert 'id="analysis-sat-embedders"' in (runs[1] / "report.html").read_text()

    done = creval("analyze", "sat-reliability", *paths, "--labels", str(labels), "--repeats", "4")
    assert done.returncode == 0, done.stderr
    [curve] = [a for a in read_run(runs[0]).analyses if a.name == "sat-reliability"]
    assert [row["stories"] for row in curve.tables[0].rows] == [1, 2, 3]
    assert curve.tables[0].rows[2]["mean_r"] == pytest.approx(expected, abs=1e-6)
    assert "(Figure 1 of seed 004)" in (runs[0] / "report.md").read_text()


def test_bad_rankings_say_what_to_fix(setup: tuple[list[Path], Path, ChatServer], tmp_path: Path) -> None:
    runs, _, _ = setup
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"story": "x", "ranking": ["m1"]}\n')
    with pytest.raises(CrevalError, match="bad.jsonl:1 must rank at least two models"):
        sat_scores(runs, bad)
    bad.write_text('{"story": "x", "ranking": ["m1", "m2"]}\n')
    with pytest.raises(CrevalError, match="No ranking names the run"):
        sat_scores(runs, bad)
    done = creval("analyze", "sat-scores", str(runs[0]), "--labels", str(tmp_path / "none.jsonl"))
    assert done.returncode == 2 and "does not exist" in done.stderr
