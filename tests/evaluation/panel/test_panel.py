"""Judge panels through the command line: three loopback judges, each reporting its own
snapshot, one of the tested model's family; the panel's numbers held against values computed
here from what the judges answered."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from scipy.stats import spearmanr

TESTED = "gpt-4o-mini-2024-07-18"
SNAPSHOTS = {"a": "gpt-4o-2024-08-06", "b": "claude-3-5-sonnet-20241022",
             "c": "llama-3.1-70b-instruct"}
ENV = {"OPENAI_API_KEY": "test"}


def _answer(body: dict[str, Any]) -> tuple[int, str]:
    question = body["messages"][-1]["content"]
    return 200, f"ANSWER-{sum(map(ord, question)) % 997}"


def _judge(index: int, given: dict[str, list[int]]) -> Any:
    """A judge whose four scores follow from the answer it rates; ``given`` keeps them."""
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        h = int(re.search(r"ANSWER-(\d+)", body["messages"][-1]["content"]).group(1))  # type: ignore[union-attr]
        scores = [1 + (h * (index + 2) + c * (index + 1)) % 5 for c in range(4)]
        given[f"ANSWER-{h}"] = scores
        return 200, "\n".join(f"{n}: {s}" for n, s in
                              zip(("Fluency", "Flexibility", "Originality", "Elaboration"), scores, strict=True))
    return reply


@pytest.fixture
def servers() -> Any:
    tested = ChatServer(reply=_answer)
    tested.reports = TESTED
    given: dict[str, dict[str, list[int]]] = {k: {} for k in SNAPSHOTS}
    judges = {}
    for i, (name, snapshot) in enumerate(SNAPSHOTS.items()):
        judges[name] = ChatServer(reply=_judge(i, given[name]))
        judges[name].reports = snapshot
    yield tested, judges, given
    for server in [tested, *judges.values()]:
        server.close()


def _panel(out: Path, tested: ChatServer, judges: dict[str, ChatServer], *extra: str) -> Any:
    return creval("run", "ttct", "--model", "openai:tested", "--base-url", tested.url,
                  "--judge", ",".join(f"openai:judge-{k}" for k in judges),
                  "--judge-base-url", ",".join(s.url for s in judges.values()),
                  "--limit", "4", "--answers", "1", "--max-tokens", "8", "--no-progress",
                  "--out", str(out), *extra, env=ENV)


def _means(given: dict[str, list[int]]) -> dict[str, float]:
    return {answer: statistics.fmean(scores) for answer, scores in given.items()}


@pytest.mark.unverified_runs("edits the panel's scores.json on purpose after verify passed, to check that verify names the edit")
def test_a_judge_of_the_tested_family_is_left_out_and_the_panel_is_the_judges_mean(
        tmp_path: Path, servers: Any) -> None:
    tested, judges, given = servers
    done = _panel(tmp_path / "panel", tested, judges)
    assert done.returncode == 0, done.stderr
    assert tested.seen == 4  # asked once: the other judges' runs took its answers from the cache
    assert all(len(g) == 4 for g in given.values())  # every judge rated the 4 answers

    manifest = json.loads((tmp_path / "panel" / "manifest.json").read_text(encoding="utf-8"))
    members = {m["spec"]: m for m in manifest["panel"]["members"]}
    left = members["openai:judge-a"]
    assert not left["included"] and left["decided"].startswith("after its answers")
    assert "gpt-4o-2024-08-06 (openai family)" in left["excluded_because"]
    assert TESTED in left["excluded_because"]
    assert members["openai:judge-b"]["included"] and members["openai:judge-c"]["included"]
    assert members["openai:judge-b"]["reported"] == [SNAPSHOTS["b"]]
    assert "left out: openai:judge-a" in done.stdout and "openai family" in done.stdout
    assert "agreement matrix (mean, spearman)" in done.stdout

    scores = json.loads((tmp_path / "panel" / "scores.json").read_text(encoding="utf-8"))
    b, c = _means(given["b"]), _means(given["c"])
    assert scores["headline"]["judges"] == 2
    assert scores["headline"]["mean"] == pytest.approx(
        statistics.fmean([statistics.fmean(b.values()), statistics.fmean(c.values())]))
    answers = sorted(b)
    (pair,) = scores["panel"]["agreement"]["mean"]
    assert (pair["a"], pair["b"], pair["n"]) == ("judge-b", "judge-c", 4)
    assert pair["value"] == pytest.approx(
        spearmanr([b[x] for x in answers], [c[x] for x in answers]).statistic)
    assert scores["noise"]["mean"]["judge"] is not None  # the judges' share of the variance

    report = (tmp_path / "panel" / "report.md").read_text(encoding="utf-8")
    assert "Judge panel: agreement matrix" in report and "Judge panel: judges left out" in report
    assert creval("verify", str(tmp_path / "panel")).returncode == 0
    scores["headline"]["mean"] += 0.5  # a panel score that its judges' runs do not give
    (tmp_path / "panel" / "scores.json").write_text(json.dumps(scores), encoding="utf-8")
    checked = creval("verify", str(tmp_path / "panel"))
    assert checked.returncode == 1 and "headline mean" in checked.stdout


def test_allow_same_family_keeps_all_three(tmp_path: Path, servers: Any) -> None:
    tested, judges, given = servers
    done = _panel(tmp_path / "all", tested, judges, "--allow-same-family-judge",
                  "--panel-aggregate", "trimmed")
    assert done.returncode == 0, done.stderr
    scores = json.loads((tmp_path / "all" / "scores.json").read_text(encoding="utf-8"))
    assert scores["headline"]["judges"] == 3
    per = [_means(given[k]) for k in SNAPSHOTS]
    # trimmed over three judges: the middle value of each answer, averaged over answers
    expected = statistics.fmean(statistics.median(p[x] for p in per) for x in per[0])
    assert scores["headline"]["mean"] == pytest.approx(expected)
    assert len(scores["panel"]["agreement"]["mean"]) == 3

    # a panel and a single judge, two panels of other members: different conditions
    from creval.evaluation.compare.conditions import conditions_of
    from creval.evaluation.compare.run_groups import differences
    from creval.reader import read_run

    assert _panel(tmp_path / "two", tested, judges).returncode == 0  # every answer cached
    panel3, panel2 = read_run(tmp_path / "all"), read_run(tmp_path / "two")
    single = read_run(tmp_path / "all" / "judges" / "openai-judge-b")
    assert differences(panel3, single) == [
        "judged by one judge, the first run by a panel of 3 judges (gpt-4o-2024-08-06; "
        "claude-3-5-sonnet-20241022; llama-3.1-70b-instruct)"]
    assert differences(panel2, panel2) == []
    assert differences(panel3, panel2) == [
        "a judge panel of claude-3-5-sonnet-20241022; llama-3.1-70b-instruct, the first run's "
        "was gpt-4o-2024-08-06; claude-3-5-sonnet-20241022; llama-3.1-70b-instruct",
        "panel aggregate mean, the first run's was trimmed"]
    assert "not by one judge" in conditions_of(panel2).problems[0]


def test_a_judge_named_in_the_tested_family_is_never_asked(tmp_path: Path) -> None:
    done = creval("run", "ttct", "--model", "openai:gpt-4o-mini", "--base-url", "http://127.0.0.1:9/v1",
                  "--judge", "openai:gpt-4o,openai:claude-3-5-sonnet", "--limit", "1",
                  "--out", str(tmp_path / "p"), "--no-progress", env=ENV)
    assert done.returncode == 2
    assert "gpt-4o is of the openai family" in done.stderr + done.stdout
    assert not (tmp_path / "p").exists()  # stopped before anything was written
    alone = creval("run", "ttct", "--judge", "openai:gpt-4o", "--panel-aggregate", "trimmed",
                   "--out", str(tmp_path / "q"), env=ENV)
    assert alone.returncode == 2 and "combines the judges of a panel" in alone.stderr + alone.stdout
    two = creval("run", "ttct", "--judge", "openai:a,openai:b", "--panel-aggregate", "trimmed",
                 "--out", str(tmp_path / "r"), env=ENV)
    assert two.returncode == 2 and "at least 3 judges" in two.stderr + two.stdout


def test_the_python_api_runs_a_panel_with_the_majority(tmp_path: Path, servers: Any,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import creval

    tested, judges, given = servers
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    result = creval.evaluate(
        "ttct", model="openai:tested", base_url=tested.url,
        judge=",".join(f"openai:judge-{k}" for k in judges),
        judge_base_url=",".join(s.url for s in judges.values()), limit=4, answers=1,
        max_tokens=8, out=tmp_path / "api", panel_aggregate="majority")
    scores = result["ttct"].scores
    assert scores.headline["judges"] == 2
    b, c = given["b"], given["c"]
    # the majority of two judges: their common value where they agree, else none
    agreed = [b[x][0] for x in b if b[x][0] == c[x][0]]
    assert sorted(v for v in scores.per_item["fluency"] if v is not None) == sorted(agreed)


def test_a_profile_runs_its_judged_benchmark_as_a_panel(tmp_path: Path, servers: Any) -> None:
    tested, judges, given = servers
    done = creval("profile", "--model", "openai:tested", "--base-url", tested.url,
                  "--size", "smoke", "--only", "ttct", "--set", "ttct.limit=4",
                  "--set", "ttct.answers=1", "--set", "ttct.max_tokens=8",
                  "--judge", ",".join(f"openai:judge-{k}" for k in judges),
                  "--judge-base-url", ",".join(s.url for s in judges.values()),
                  "--out", str(tmp_path / "prof"), "--no-progress", env=ENV)
    assert done.returncode == 0, done.stderr + done.stdout
    scores = json.loads((tmp_path / "prof" / "ttct" / "scores.json").read_text(encoding="utf-8"))
    assert scores["headline"]["judges"] == 2  # judge-a, of the tested family, left out
    b, c = _means(given["b"]), _means(given["c"])
    assert scores["headline"]["mean"] == pytest.approx(
        statistics.fmean([statistics.fmean(b.values()), statistics.fmean(c.values())]))
    profile = json.loads((tmp_path / "prof" / "profile.json").read_text(encoding="utf-8"))
    # placed beside published values only where comparable: a panel is not one judge
    assert "not by one judge: a panel and a single judge are different conditions" in json.dumps(profile)


def test_a_sweep_runs_each_point_as_a_panel(tmp_path: Path, servers: Any) -> None:
    tested, judges, given = servers
    two = {k: judges[k] for k in ("b", "c")}  # two judges of other families: a small panel
    done = creval("sweep", "ttct", "--values", "temperature=0.5,1.0", "--model", "openai:tested",
                  "--base-url", tested.url, "--limit", "4", "--answers", "1", "--max-tokens", "8",
                  "--judge", ",".join(f"openai:judge-{k}" for k in two),
                  "--judge-base-url", ",".join(s.url for s in two.values()),
                  "--out", str(tmp_path / "sweep"), "--no-progress", env=ENV)
    assert done.returncode == 0, done.stderr + done.stdout
    panels = sorted((tmp_path / "sweep").rglob("scores.json"))
    heads = [json.loads(p.read_text(encoding="utf-8"))["headline"] for p in panels
             if "judges" not in p.parts]
    assert len(heads) == 2 and all(h["judges"] == 2 for h in heads)  # one panel per point
