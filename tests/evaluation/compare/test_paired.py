"""Item by item against published results, end to end through the command line.

JCQ: a loopback "writer" answers each question five times with answers naming their slot,
and a loopback judge answers with the judgement GPT-4o actually wrote for that slot in
JCQ-judge's released files (as in test_profile_placement.py). The run is then the released
model itself, so against its own published judgements the difference is 0 with p = 1, and
against every other released model the difference is what the released files give.

NeoCoder: a loopback model answers every (problem, state) with GPT-4's released code; judged
by the compat judge it is GPT-4 itself (difference 0, p = 1). A second model breaks some of
the codes that pass: the difference is found, positive (GPT-4 ahead), and counts them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._cli import creval
from tests.evaluation.profile.test_profile_placement import MODEL, Server, jcq_servers
from tests.tests_paths import shared_data_path

CRITERIA = ("fluency", "flexibility", "originality", "elaboration")


# --- JCQ ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def jcq_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A profile (standard size: 140 questions, 5 answers) of the released model, judged by
    its released GPT-4o judgements."""
    questions = shared_data_path("jcq", "test.jsonl")
    judged = shared_data_path("jcq", "judgements_gpt-4o-2024-08-06", f"{MODEL}.jsonl")
    lines = [json.loads(x) for x in judged.read_text(encoding="utf-8").splitlines() if x.strip()]
    judgements = {int(x["answer_id"]): x["judgement"] for x in lines}
    writer, judge_server = jcq_servers(questions, judgements)
    out = tmp_path_factory.mktemp("paired") / "profile"
    done = creval("profile", "--model", "openai:swallow-8b", "--base-url", writer.url,
                  "--judge", "openai:gpt-4o-2024-08-06", "--judge-base-url", judge_server.url,
                  "--size", "standard", "--lang", "ja", "--only", "jcq", "--no-progress",
                  "--set", f"jcq.questions={questions}", "--set", "jcq.parser=upstream",
                  "--set", "jcq.structured_judge=false",  # the paper's free-text verdicts
                  "--concurrency", "32", "--out", str(out))
    writer.close()
    judge_server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    yield out


def _by_question(path: Path, questions: set[int]) -> dict[str, dict[int, float]]:
    """Per question, each criterion's and the mean's average over the parsed answers,
    straight from a released file (the repository's pattern, written out here again)."""
    import re

    pattern = re.compile(r"流暢性:\s*\[?([1-5])\]?\s*柔軟性:\s*\[?([1-5])\]?\s*"
                         r"独創性:\s*\[?([1-5])\]?\s*精緻性:\s*\[?([1-5])\]?")
    scores: dict[int, list[list[int]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        x = json.loads(line)
        q = (x["answer_id"] - 1) // 5 + 1
        if q in questions and (m := pattern.search(x["judgement"])):
            scores[q].append([int(v) for v in m.groups()])
    out: dict[str, dict[int, float]] = {c: {} for c in ("mean", *CRITERIA)}
    for q, rows in scores.items():
        for j, c in enumerate(CRITERIA):
            out[c][q] = sum(r[j] for r in rows) / len(rows)
        out["mean"][q] = sum(sum(r) / 4 for r in rows) / len(rows)
    return out


def test_jcq_run_against_every_released_model(jcq_run: Path) -> None:
    folder = shared_data_path("jcq", "judgements_gpt-4o-2024-08-06")
    models = sorted(p.stem for p in folder.glob("*.jsonl"))
    assert len(models) == 22
    done = creval("compare", str(jcq_run / "jcq"), "--published", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert {r["subject"] for r in rows} == set(models)
    assert len(rows) == 22 * 5
    for r in rows:
        assert {"subject", "measure", "n", "difference", "low", "high", "p", "p_holm",
                "mdd"} <= set(r)
        assert r["p"] <= r["p_holm"] <= 1
        if r["n"] < 10 or r["sd"] == 0:  # too few pairs, or nothing varied: no interval
            assert r["low"] is None and r["high"] is None and r["interval_note"]
        else:
            assert r["low"] <= r["difference"] <= r["high"]
    # against its own released judgements: nothing to find, and nothing varied
    for r in (r for r in rows if r["subject"] == MODEL):
        assert (r["difference"], r["low"], r["high"], r["p"], r["p_holm"]) == (0, None, None, 1, 1)
        assert r["n"] == 140 and r["verdict"] == "not distinguishable"
    # against another model: the mean difference over the same questions, computed directly
    asked = {json.loads(x)["unit"]["question_id"]
             for x in (jcq_run / "jcq" / "records.jsonl").read_text().splitlines()}
    ours = _by_question(folder / f"{MODEL}.jsonl", asked)
    gpt4o = _by_question(folder / "gpt-4o-2024-08-06.jsonl", asked)
    for measure in ("mean", "originality"):
        shared = sorted(set(ours[measure]) & set(gpt4o[measure]))
        expected = sum(gpt4o[measure][q] - ours[measure][q] for q in shared) / len(shared)
        row = next(r for r in rows if r["subject"] == "gpt-4o-2024-08-06" and r["measure"] == measure)
        assert row["n"] == len(shared) == 140
        assert row["difference"] == pytest.approx(expected, abs=1e-12)
    mean = next(r for r in rows if r["subject"] == "gpt-4o-2024-08-06" and r["measure"] == "mean")
    assert mean["difference"] > 0 and mean["verdict"] == "behind"  # GPT-4o is ahead of Swallow v0.1

    # the run's report, the profile's pages and the Python API say the same
    assert "Against published models, item by item" in (jcq_run / "jcq" / "report.html").read_text()
    page = (jcq_run / "profile.html").read_text()
    assert "gpt-4o-2024-08-06 minus this model: +" in page and "after Holm" in page
    standing = json.loads((jcq_run / "profile.json").read_text())["summary"]["standing"]
    line = next(x for x in standing if "item by item against 22 published models" in x)
    assert "behind " in line and f"not distinguishable from {MODEL}" in line
    import creval as api

    profile_df = api.read_profile(jcq_run).paired_df()
    assert set(profile_df["measure"]) == {"mean", "originality"}  # the profile's measures
    df = api.compare_published(jcq_run / "jcq")
    assert len(df) == 110 and df.loc[df["subject"] == MODEL, "difference"].eq(0).all()
    run_df = api.read_run(jcq_run / "jcq").paired_df()
    assert len(run_df) == 110


def test_jcq_with_another_judge_is_not_compared(jcq_run: Path, tmp_path: Path) -> None:
    """A run judged by another model is not paired with GPT-4o's judgements: it says why."""
    run = tmp_path / "other"
    # the same answers, judged by an endpoint that answers as another snapshot
    judge = Server(lambda body, index: "流暢性: 3\n柔軟性: 3\n独創性: 3\n精緻性: 3")
    judge.reports = "gpt-4o-2024-11-20"
    try:
        done = creval("run", "jcq", "--model", f"replay:{jcq_run / 'jcq'}", "--judge",
                      "openai:gpt-4o-2024-08-06", "--judge-base-url", judge.url,
                      "--questions", str(shared_data_path("jcq", "test.jsonl")), "--limit", "7",
                      "--answers", "5", "--parser", "upstream", "--no-progress", "--out", str(run),
                      env={"OPENAI_API_KEY": "sk-test"})
    finally:
        judge.close()
    assert done.returncode == 0, done.stdout + done.stderr
    other = "judge answered as gpt-4o-2024-11-20 (spec openai:gpt-4o-2024-08-06)"
    done = creval("compare", str(run), "--published")
    assert done.returncode == 2 and f"not comparable: {other}" in done.stderr, done.stderr
    assert f"not made (not comparable: {other}" in (run / "report.html").read_text()
    # nor paired with the GPT-4o-judged run, and bad requests say what to pass
    done = creval("compare", str(jcq_run / "jcq"), str(run), "--paired")
    assert done.returncode == 2 and f"{other}, the first run's was" in done.stderr, done.stderr
    done = creval("compare", str(jcq_run / "jcq"), str(run), "--published")
    assert done.returncode == 2 and "one run or profile directory" in done.stderr
    done = creval("compare", str(run), "--published", "--published-data", str(tmp_path))
    assert done.returncode == 2 and f"not comparable: {other}" in done.stderr


def test_a_replayed_judge_is_the_snapshot_that_answered_not_the_tested_model(
    jcq_run: Path, tmp_path: Path,
) -> None:
    """The tested model and the judge both replayed from one run: one model object, but the
    judgements are GPT-4o's (every answer reports it) and the answers the writer's, so the
    run is not self-judged and is compared with GPT-4o's released judgements."""
    run = tmp_path / "replayed"
    recorded = f"replay:{jcq_run / 'jcq'}"
    done = creval("run", "jcq", "--model", recorded, "--judge", recorded,
                  "--questions", str(shared_data_path("jcq", "test.jsonl")), "--limit", "7",
                  "--answers", "5", "--parser", "upstream", "--structured-judge", "false",
                  "--no-progress", "--out", str(run))
    assert done.returncode == 0, done.stdout + done.stderr
    done = creval("compare", str(run), "--published")
    assert done.returncode == 0, done.stdout + done.stderr
    assert MODEL in done.stdout


# --- NeoCoder -------------------------------------------------------------------------------

def _neocoder_server(broken: set[tuple[str, int]]) -> Server:
    """Answers every (problem, round) with GPT-4's code, or a wrong program where ``broken``."""
    problems = json.loads(shared_data_path("neocoder", "NeoCoder", "NeoCoder.json").read_text())
    by_statement = {s: (p["problem_id"], r, p["codes"][r]) for p in problems
                    for r, s in enumerate(p["problem_statements"])}

    def answer(body: dict[str, Any], index: int) -> str:
        pid, round_, code = by_statement[body["messages"][-1]["content"]]
        if (pid, round_) in broken:
            code = "def solve():\n    print('wrong')\nsolve()\n"
        return f"Here is my solution.\n```python\n{code}\n```\n"

    return Server(answer)


def _neocoder_run(out: Path, server: Server) -> Path:
    done = creval("run", "neocoder", "--model", "openai:gpt-4-1106-preview", "--base-url", server.url,
                  "--data", str(shared_data_path("neocoder", "NeoCoder")), "--limit", "22",
                  "--states", "0", "--detector", "static", "--judge-compat", "neocoder",
                  "--no-progress", "--out", str(out))
    server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_neocoder_replay_of_gpt4_against_itself_and_broken(tmp_path: Path) -> None:
    same = _neocoder_run(tmp_path / "gpt4", _neocoder_server(set()))
    rows = json.loads((same / "paired.json").read_text())["rows"]
    assert [r["measure"] for r in rows] == ["pass@1@0"]
    for r in rows:
        assert r["subject"].startswith("GPT-4") and r["n"] == 22
        assert (r["difference"], r["p"], r["p_holm"], r["verdict"]) == (0, 1, 1, "not distinguishable")
    table = json.loads((same / "scores.json").read_text())["table"]
    passed = sorted(row["problem"] for row in table if row["correct"])
    assert len(passed) == 3, passed  # 1884A, 1877A, 1873A: the repository judge's labels

    # break two of the three passing codes
    broken = {(p, 0) for p in passed[:2]}
    worse = _neocoder_run(tmp_path / "broken", _neocoder_server(broken))
    [r] = json.loads((worse / "paired.json").read_text())["rows"]
    assert r["difference"] > 0  # published (GPT-4) minus this run: GPT-4 is ahead
    assert r["difference"] * r["n"] == pytest.approx(2) and r["n"] == 22
    assert r["p"] == pytest.approx(0.5, abs=0.02)  # two items cannot tell: 2 of 4 sign patterns
    assert r["verdict"] == "not distinguishable"
    assert "Against published models, item by item" in (worse / "report.html").read_text()

    # the same difference between the user's two runs, the first minus the second
    done = creval("compare", str(same), str(worse), "--paired", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    [row] = map(json.loads, done.stdout.splitlines())
    assert row["measure"] == "pass@1@0" and row["difference"] * row["n"] == pytest.approx(2)
    done = creval("compare", str(same), str(worse), "--published", "--paired")
    assert done.returncode == 2 and "Choose one" in done.stdout + done.stderr
