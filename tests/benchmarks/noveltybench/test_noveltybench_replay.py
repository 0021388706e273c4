"""NoveltyBench through the command line, served by a loopback endpoint that replays GPT-4o's
published generations and judged by a loopback judge that answers as the published partitions
and scores: the run gives GPT-4o's published per-prompt distinct and utility exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests_paths import shared_data_path

from creval.records import Scores
from tests._cli import creval
from tests._servers import ChatServer
from tests.benchmarks.scores_contract import assert_per_item_means

GPT4O = ("eval", "03-27-2025", "curated", "openai", "gpt-4o-2024-11-20", "scores.jsonl")
PROMPTS = 5
_PAIR = re.compile(r"Request:\n(.*)\n\nAnswer A:\n(.*)\n\nAnswer B:\n(.*)\n\nAre Answer A", re.S)
_ONE = re.compile(r"Request:\n(.*)\n\nAnswer:\n(.*)\n\nReply with the number only", re.S)


def published() -> dict[str, dict[str, Any]]:
    path = shared_data_path("noveltybench", "site", *GPT4O)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {row["prompt"].strip(): row for row in rows}


class Replay:
    """The tested model (GPT-4o's answers, sample i by seed i) and the judge (same iff the
    published classes are equal; the published score of a class's first answer)."""

    def __init__(self, rows: dict[str, dict[str, Any]], changed: str | None = None) -> None:
        self.rows, self.changed = rows, changed

    def generations(self, prompt: str) -> list[str]:
        row = self.rows[prompt.strip()]
        if row["id"] == self.changed:  # this prompt's model always says the same thing
            return [row["generations"][0]] * len(row["generations"])
        return list(row["generations"])

    def index(self, prompt: str, text: str) -> int:
        gens = [g.strip() for g in self.generations(prompt)]
        return gens.index(text.strip())

    def __call__(self, body: dict[str, Any]) -> tuple[int, str]:
        text = body["messages"][-1]["content"]
        pair, one = _PAIR.search(text), _ONE.search(text)
        if pair:
            prompt, a, b = pair.groups()
            part = self.partition(prompt)
            return 200, "same" if part[self.index(prompt, a)] == part[self.index(prompt, b)] else "different"
        if one:
            prompt, answer = one.groups()
            i = self.index(prompt, answer)
            return 200, str(self.rows[prompt.strip()]["generation_scores"][i] or 1)
        return 200, self.generations(text)[int(body.get("seed", 0))]

    def partition(self, prompt: str) -> list[int]:
        row = self.rows[prompt.strip()]
        return [0] * 10 if row["id"] == self.changed else list(row["partition"])


def run(tmp: Path, name: str, replay: Replay) -> dict[str, Any]:
    data = shared_data_path("noveltybench", "data")
    server = ChatServer(reply=replay)
    try:
        done = creval("run", "noveltybench", "--model", f"openai:{name}", "--base-url", server.url,
                      "--judge", "openai:judge", "--judge-base-url", server.url, "--api-key", "x",
                      "--data", str(data), "--subset", "curated", "--limit", str(PROMPTS),
                      "--no-progress", "--out", str(tmp / name))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr + done.stdout
    return dict(json.loads((tmp / name / "scores.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("nb")
    return tmp, run(tmp, "gpt-4o-replay", Replay(published()))


def test_published_distinct_and_utility_exactly(replayed: tuple[Path, dict[str, Any]]) -> None:
    _, scores = replayed
    rows = {row["prompt"].strip(): row for row in published().values()}
    by_id = {row["id"]: row for row in rows.values()}
    table = scores["table"]
    assert len(table) == PROMPTS
    for row in table:
        theirs = by_id[row["id"]]
        assert row["partition"] == theirs["partition"]
        assert row["distinct_paper"] == theirs["distinct"]  # the paper stores max(partition)
        assert row["distinct"] == theirs["distinct"] + 1
        assert row["utility"] == pytest.approx(theirs["utility"], abs=1e-12)
    assert scores["headline"]["distinct_mean"] == pytest.approx(
        sum(by_id[r["id"]]["distinct"] + 1 for r in table) / PROMPTS)
    assert scores["headline"]["unparsed"] == 0
    assert_per_item_means(Scores.model_validate(scores))


def test_changing_one_prompt_moves_exactly_that_prompt(
        replayed: tuple[Path, dict[str, Any]]) -> None:
    tmp, scores = replayed
    before = {row["id"]: row for row in scores["table"]}
    changed = sorted(before)[2]
    assert before[changed]["distinct"] > 1  # so that one class is a change
    after = {row["id"]: row for row in run(tmp, "gpt-4o-changed", Replay(published(), changed))["table"]}
    moved = [i for i in before if (before[i]["distinct"], before[i]["utility"])
             != (after[i]["distinct"], after[i]["utility"])]
    assert moved == [changed]
    assert after[changed]["distinct"] == 1


def compare_rows(run_dir: Path) -> list[dict[str, Any]]:
    done = creval("compare", str(run_dir), "--published", "--json")
    assert done.returncode == 0, done.stderr + done.stdout
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_compare_published_against_gpt4o_is_zero(replayed: tuple[Path, dict[str, Any]]) -> None:
    tmp, _ = replayed
    rows = compare_rows(tmp / "gpt-4o-replay")
    mine = {r["measure"]: r for r in rows if r["subject"] == "gpt-4o-2024-11-20"}
    assert set(mine) == {"distinct", "utility"}
    for row in mine.values():
        assert row["n"] == PROMPTS and row["difference"] == 0 and row["p"] == 1
    others = [r for r in rows if r["subject"] != "gpt-4o-2024-11-20"]
    assert len({r["subject"] for r in others}) == 7  # every other published model, paired too
    assert any(r["difference"] != 0 for r in others)


def test_a_run_of_other_k_is_not_placed(tmp_path: Path) -> None:
    data = shared_data_path("noveltybench", "data")
    server = ChatServer(reply=Replay(published()))
    try:
        done = creval("run", "noveltybench", "--model", "openai:gpt-4o-k3", "--base-url",
                      server.url, "--api-key", "x", "--partitioner", "judge", "--quality", "none",
                      "--data", str(data), "--subset", "curated", "--limit", "2", "--k", "3",
                      "--no-progress", "--out", str(tmp_path / "k3"))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    compared = creval("compare", str(tmp_path / "k3"), "--published")
    assert compared.returncode == 2
    assert "k=3, the paper used 10" in compared.stderr + compared.stdout
    assert "quality=none" in compared.stderr + compared.stdout


def test_homogeneity_places_the_published_generations(replayed: tuple[Path, dict[str, Any]]) -> None:
    """GPT-4o's replayed answers are nearest to GPT-4o's published ones on the same prompts."""
    tmp, _ = replayed
    done = creval("compare", str(tmp / "gpt-4o-replay"), "--homogeneity", "--json",
                  "--permutations", "0")
    assert done.returncode == 0, done.stderr + done.stdout
    [doc] = json.loads(done.stdout)
    models = {m["model"]: m for m in doc["models"]}
    assert len([m for m in models.values() if m["kind"] == "published"]) == 8
    [run] = [m for m in models.values() if m["kind"] == "run"]
    assert run["nearest"] == "published:gpt-4o-2024-11-20"
    # the same texts: above GPT-4o's own within-model similarity (that leaves out each
    # answer's similarity to itself, the pair across the two groups keeps it)
    assert run["nearest_similarity"] > models[run["nearest"]]["within"]
