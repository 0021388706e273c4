"""``creval rank`` end to end through the CLI: three ttct runs of scripted models, a loopback
judge with a known position bias and one model it always prefers.

The judge's design: when the answer of ``fixed`` is one of the two, it picks that answer in
whichever position it is shown (a model truly better, whatever the order); otherwise it picks
the answer shown *first*, except on every fourth item (4 of the 14), where it picks the
second. Between two ordinary models each item is asked in both orders and the same
position wins both times, so their strengths are equal and every one of those judgements
says only where the judge looks: the share of first-position wins among them, p, is the
judge's bias, and its true size on the logit scale is log(p / (1 - p)) (p = 10/14: 0.92).
A judge that always picks the first would make that size infinite, hence the exceptions.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

JUDGE_RUBRIC = "Fluency: 3\nFlexibility: 3\nOriginality: 3\nElaboration: 3"
ANSWER = re.compile(r"Answer by (\w+) to item (\w+)")
LIMIT = "14"


def _answers(body: dict[str, Any]) -> tuple[int, str]:
    """The tested models' server: an answer naming the model and the item; the rubric judge of
    the ttct run itself gets a fixed rubric."""
    content = body["messages"][-1]["content"]
    if "[Question]" in content:
        return 200, JUDGE_RUBRIC
    return 200, f"Answer by {body['model']} to item {hashlib.sha256(content.encode()).hexdigest()[:8]}"


def _items(run: Path) -> list[str]:
    """The item digests in a run's answers, sorted."""
    return sorted(ANSWER.findall((run / "records.jsonl").read_text())[i][1] for i in range(int(LIMIT)))


class Judge:
    """The rank judge; ``second``: the items on which it picks the second position."""

    def __init__(self, run: Path) -> None:
        self.second = set(_items(run)[::4])
        self.first_won: list[bool] = []
        self.server = ChatServer(reply=self.reply)

    def verdict(self, content: str) -> tuple[str, bool | None]:
        """The choice, and whether the first position won a judgement between two ordinary
        models (None when ``fixed`` was in it)."""
        (m1, item), (m2, _) = ANSWER.findall(content)
        if "fixed" in (m1, m2):
            return ("A" if m1 == "fixed" else "B"), None
        first = item not in self.second
        return ("A" if first else "B"), first

    def reply(self, body: dict[str, Any]) -> tuple[int, str]:
        winner, first = self.verdict(body["messages"][-1]["content"])
        if first is not None:
            self.first_won.append(first)
        return 200, f"Both answers are short. Winner: {winner}"


def _run(root: Path, server: ChatServer, name: str, *extra: str) -> Path:
    out = root / name
    done = creval("run", "ttct", "--model", f"openai:{name}", "--base-url", server.url,
                  "--judge", "openai:rubric", "--judge-base-url", server.url, "--limit", LIMIT,
                  "--answers", "1", "--max-tokens", "16", "--no-progress", "--out", str(out), *extra)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("rank-runs")
    server = ChatServer(reply=_answers)
    try:
        made = {name: _run(root, server, name) for name in ("alpha", "beta", "fixed", "delta", "gpt-4o-mini")}
        questions = root / "other.jsonl"
        questions.write_text(json.dumps({"id": 901, "task": "unusual uses",
                                         "question": "List unusual uses for a teaspoon."}) + "\n")
        made["other"] = _run(root, server, "other", "--questions", str(questions))
    finally:
        server.close()
    return made


def _rank(runs: list[Path], out: Path, judge: Judge, *extra: str) -> dict[str, Any]:
    done = creval("rank", *map(str, runs), "--judge", "openai:judge", "--judge-base-url", judge.server.url,
                  "--out", str(out), "--anchors", "openai:alpha,openai:fixed", "--resamples", "200", "--no-cache",
                  "--json", *extra)
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_bias_is_found_the_preferred_model_ranks_first_and_anchors_hold(runs: dict[str, Path], tmp_path: Path) -> None:
    judge = Judge(runs["alpha"])
    try:
        three = [runs["alpha"], runs["beta"], runs["fixed"]]
        plan = creval("rank", *map(str, three), "--judge", "openai:judge", "--plan")
        assert plan.returncode == 0, plan.stderr
        assert "3 pairs x 14 items x 2 orders x 1 judge(s) = 84 judge requests" in plan.stdout
        assert judge.server.seen == 0  # --plan asks nothing

        doc = _rank(three, tmp_path / "rank", judge, "--html")
        assert judge.server.seen == 84 and doc["judgements"] == 84 and doc["failed_parses"] == 0
        p = sum(judge.first_won) / len(judge.first_won)
        true_gamma = math.log(p / (1 - p))
        bias = doc["position_bias"]
        assert bias["low"] < true_gamma < bias["high"]
        assert len(judge.second) == 4 and p == pytest.approx(10 / 14)
        assert abs(bias["gamma"] - true_gamma) < 0.2  # shrunk a little by the prior's ties
        ratings = {r["model"].removeprefix("openai:"): r for r in doc["ratings"]}
        assert doc["ratings"][0]["model"] == "openai:fixed"
        assert ratings["fixed"]["low"] > max(ratings[m]["high"] for m in ("alpha", "beta"))
        assert ratings["fixed"]["win_rate"] == 1.0 and ratings["alpha"]["comparisons"] == 56
        assert ratings["alpha"]["rating"] + ratings["fixed"]["rating"] == pytest.approx(0, abs=1e-6)
        assert set(ratings["alpha"]["scores"]) >= {"fluency"}  # the run's own scores beside
        assert doc["triads"]["models"]["cyclic"] == 0
        page = (tmp_path / "rank" / "ratings.html").read_text()
        assert "pairwise ratings" in page and not re.search(r"<script|<link|src=", page)  # self-contained
        assert (tmp_path / "rank" / "records.jsonl").read_text().count("\n") == 84

        # a fourth model: only its pairs are asked; the anchors stay within their intervals
        doc4 = _rank([*three, runs["delta"]], tmp_path / "rank", judge)
        assert judge.server.seen == 84 + 3 * 14 * 2
        after = {r["model"].removeprefix("openai:"): r for r in doc4["ratings"]}
        for anchor in ("alpha", "fixed"):
            assert ratings[anchor]["low"] <= after[anchor]["rating"] <= ratings[anchor]["high"]
        assert doc4["ratings"][0]["model"] == "openai:fixed"

        # the Python API reads the same judgements back: nothing asked, the same ratings
        from creval.evaluation.rank.ranking import rank

        again = rank([*three, runs["delta"]], judge="openai:judge", judge_base_url=judge.server.url,
                     out=tmp_path / "rank", anchors=["openai:alpha", "openai:fixed"], resamples=200,
                     use_cache=False)
        assert judge.server.seen == 84 + 3 * 14 * 2 and again["ratings"] == doc4["ratings"]
    finally:
        judge.server.close()


def test_console_table_shows_ratings_bias_and_scores(runs: dict[str, Path], tmp_path: Path) -> None:
    judge = Judge(runs["alpha"])
    try:
        done = creval("rank", str(runs["alpha"]), str(runs["fixed"]), "--judge", "openai:judge",
                      "--judge-base-url", judge.server.url, "--out", str(tmp_path / "r"), "--resamples", "50",
                      "--no-cache")
    finally:
        judge.server.close()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    top = next(line for line in lines if line.startswith("| 1 "))
    assert "fixed" in top and "fluency" in top
    assert any(line.startswith("- Position bias (first position, logit):") for line in lines)


@pytest.mark.unverified_runs("writes a run without scores.json on purpose (rank needs only its answers)")
def test_a_run_without_common_items_and_mixed_benchmarks_are_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    done = creval("rank", str(runs["alpha"]), str(runs["beta"]), str(runs["other"]), "--judge", "openai:j", "--plan")
    assert done.returncode == 2
    assert "shares no item with the other runs" in done.stderr and "other" in done.stderr
    fake = tmp_path / "sat-run"
    fake.mkdir()
    (fake / "manifest.json").write_text(json.dumps({"benchmark": "sat", "model_spec": "openai:x"}))
    (fake / "records.jsonl").write_text("")
    done = creval("rank", str(runs["alpha"]), str(fake), "--judge", "openai:j", "--plan")
    assert done.returncode == 2 and "different benchmarks" in done.stderr


def test_a_judge_of_a_rated_models_family_does_not_decide_its_pairs(runs: dict[str, Path], tmp_path: Path) -> None:
    """By the specs before any call: gpt-4o never sees gpt-4o-mini's answers, the other judge
    rates it; with that judge alone gpt-4o-mini could not be rated, so the plan is refused."""
    three = [str(runs["alpha"]), str(runs["beta"]), str(runs["gpt-4o-mini"])]
    alone = creval("rank", *three, "--judge", "openai:gpt-4o", "--plan")
    assert alone.returncode == 2
    assert "No judge may decide the pairs of openai:gpt-4o-mini" in alone.stderr
    assert "--allow-same-family-judge" in alone.stderr
    seen: list[tuple[str, str]] = []

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        content = body["messages"][-1]["content"]
        seen.append((body["model"], content))
        return 200, "Winner: A"

    from _servers import ChatServer

    server = ChatServer(reply=reply)
    try:
        done = creval("rank", *three, "--judge", "openai:gpt-4o,openai:judge", "--judge-base-url", server.url,
                      "--out", str(tmp_path / "rank"), "--resamples", "50", "--no-cache", "--json")
        assert done.returncode == 0, done.stderr
        doc = json.loads(done.stdout)
        assert [(s["judge"], s["model"], s["decided"]) for s in doc["same_family"]] == [
            ("openai:gpt-4o", "openai:gpt-4o-mini", "before any call")]
        assert not [c for m, c in seen if m == "gpt-4o" and "gpt-4o-mini" in c]
        assert [c for m, c in seen if m == "gpt-4o"] and [c for m, c in seen if m == "judge" and "gpt-4o-mini" in c]
        assert doc["design"]["requests"] == len(seen) == 2 * 14 * (3 + 1)
        # after the judgements, by what the judge's answers reported
        server.reports = "gpt-4o-2024-08-06"
        out = tmp_path / "rank-reported"
        hidden = creval("rank", *three, "--judge", "openai:panel-judge", "--judge-base-url", server.url,
                        "--out", str(out), "--resamples", "50", "--no-cache", "--json")
        assert hidden.returncode == 2 and "No judgement of openai:gpt-4o-mini is left" in hidden.stderr
        assert "reported gpt-4o-2024-08-06 (openai family)" in hidden.stderr
        kept = creval("rank", *three, "--judge", "openai:panel-judge", "--judge-base-url", server.url,
                      "--out", str(out), "--resamples", "50", "--no-cache", "--json", "--allow-same-family-judge")
        assert kept.returncode == 0, kept.stderr
        assert json.loads(kept.stdout)["same_family"] == []
    finally:
        server.close()
