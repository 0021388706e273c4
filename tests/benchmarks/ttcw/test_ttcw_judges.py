"""``ttcw-judges`` through the command line, with loopback judges replaying released verdicts.

Done when (issue 35): a judge that replays GPT-4's released verdicts reproduces GPT-4's
agreement with the experts, computed here independently from the released files (sklearn's
kappa, the majority counted by hand), and ``compare --published`` against GPT-4 gives
difference 0, p = 1; a judge that answers "No" to everything has kappa near 0 and is flagged.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from _cli import creval
from tests_paths import shared_data_path

from creval.records import Scores
from tests.benchmarks.scores_contract import assert_per_item_means

sys.path.insert(0, str(Path(__file__).parent))
from _replay import released_answers, replay_server  # noqa: E402

STORIES = "1_GPT4,2_Claude,3_GPT3.5,5_GPT4"  # 4 stories x 14 tests = 56 items


@pytest.fixture(scope="module")
def folder() -> Path:
    return shared_data_path("ttcw")


def expected(folder: Path, stem: str, stories: list[str]) -> tuple[float, float, int]:
    """(kappa, accuracy, n) of a released judge against the experts' majority, from the files."""
    from sklearn.metrics import cohen_kappa_score

    votes: dict[tuple[str, int], list[str]] = {}
    for row in json.loads((folder / "annotations" / "ttcw_annotations.json").read_text()):
        votes.setdefault((row["story_id"], row["ttcw_idx"]), []).append(row["binary_verdict"])
    answers = released_answers(folder, stem)
    judge, truth = [], []
    for (story, test), said in sorted(answers.items()):
        first = said.strip().split()[0].strip(".,*").lower() if said.strip() else ""
        if story in stories and first in ("yes", "no"):
            judge.append(first == "yes")
            truth.append(Counter(votes[(story, test)]).most_common(1)[0][0] == "Yes")
    accuracy = sum(a == b for a, b in zip(judge, truth, strict=True)) / len(judge)
    return float(cohen_kappa_score(judge, truth)), accuracy, len(judge)


def run(folder: Path, out: Path, stem: str | None, *extra: str) -> dict:
    server = replay_server(folder, stem)
    try:
        done = creval("run", "ttcw-judges", "--model", f"openai:{stem or 'always-no'}",
                      "--base-url", server.url, "--data", str(folder), "--out", str(out), *extra,
                      env={"OPENAI_API_KEY": "x"})
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((out / "scores.json").read_text())


def test_replaying_gpt4_reproduces_its_agreement_and_compares_equal(folder: Path, tmp_path: Path) -> None:
    scores = run(folder, tmp_path / "gpt4", "gpt4", "--stories", STORIES)
    kappa, accuracy, n = expected(folder, "gpt4", STORIES.split(","))
    head = scores["headline"]
    assert (head["items"], head["unparsed"]) == (n, 0) == (56, 0)
    assert head["kappa"] == pytest.approx(kappa, abs=1e-12)
    assert head["accuracy"] == pytest.approx(accuracy, abs=1e-12)
    contract = Scores.model_validate(scores)
    assert_per_item_means(contract)
    # 4 stories: no interval, and why (a bootstrap over 5 stories covered 83-85%)
    assert head["kappa_low"] is None and head["accuracy_low"] is None
    assert head["kappa_interval"] == "4 stories: too few for an interval (needs 5)"
    released = {r["judge"]: r for r in scores["released_judges"]}
    assert released["GPT-4"]["kappa"] == pytest.approx(kappa, abs=1e-12)
    claude3 = expected(folder, "claude3-opus", STORIES.split(","))
    assert released["Claude 3 Opus"]["kappa"] == pytest.approx(claude3[0], abs=1e-12)

    done = creval("compare", str(tmp_path / "gpt4"), "--published", "--json")
    assert done.returncode == 0, done.stdout
    rows = {r["subject"]: r for r in map(json.loads, done.stdout.splitlines()) if r.get("subject")}
    assert set(rows) == {"GPT-3.5", "GPT-4", "Gemini Pro", "Claude 1.3", "Claude 2", "Claude 2.1",
                         "Claude 3 Opus"}
    gpt4 = rows["GPT-4"]
    assert (gpt4["n"], gpt4["difference"], gpt4["p"]) == (56, 0.0, 1.0)
    assert gpt4["verdict"] == "not distinguishable"
    other = rows["GPT-3.5"]
    gpt35 = expected(folder, "cgpt", STORIES.split(","))
    assert other["difference"] == pytest.approx(gpt35[1] - accuracy, abs=1e-12)


def test_a_judge_that_always_says_no_is_flagged(folder: Path, tmp_path: Path) -> None:
    scores = run(folder, tmp_path / "no", None, "--stories", STORIES, "--tests", "1,5,9,12")
    head = scores["headline"]
    assert head["items"] == 16 and head["judge_yes_rate"] == 0.0
    assert head["kappa"] is None or abs(head["kappa"]) < 0.05
    (check,) = scores["judge_checks"]
    assert check["check"] == "no_variance" and "on all 16 judgements" in check["detail"]
    report = (tmp_path / "no" / "report.md").read_text()
    assert "on all 16 judgements" in report


def test_bad_options_say_what_to_fix(folder: Path, tmp_path: Path) -> None:
    done = creval("run", "ttcw-judges", "--model", "openai:x", "--base-url", "http://127.0.0.1:9",
                  "--data", str(folder), "--tests", "15", "--out", str(tmp_path / "r"),
                  env={"OPENAI_API_KEY": "x"})
    assert done.returncode == 2 and "tests are numbered 1-14" in done.stdout + done.stderr
    done = creval("run", "ttcw-judges", "--model", "openai:x", "--base-url", "http://127.0.0.1:9",
                  "--data", str(folder), "--stories", "GPT5", "--out", str(tmp_path / "r2"),
                  env={"OPENAI_API_KEY": "x"})
    assert done.returncode == 2 and "no story GPT5" in done.stdout + done.stderr


def test_the_published_wording_fills_the_papers_template(folder: Path) -> None:
    from creval.benchmarks.ttcw.data import load_ttcw, parse_verdict
    from creval.benchmarks.ttcw.judges import TTCWJudgeOptions, judge_request, judge_template

    data = load_ttcw(folder)
    story, test = data.written_by_llms()[0], data.test(7)
    ours = TTCWJudgeOptions(data=str(folder))
    paper = TTCWJudgeOptions(data=str(folder), wording="published")
    text = judge_request(judge_template(paper, data), story.content or "", test, paper).messages[-1].text()
    template = (folder / "prompts" / "with_background.txt").read_text()
    expected = (template.replace("[STORY]", (story.content or "").strip())
                .replace("[BACKGROUND]", test.full_prompt.strip()).replace("[QUESTION]", test.question))
    assert text == expected
    own = judge_request(judge_template(ours, data), story.content or "", test, ours).messages[-1].text()
    assert "[STORY]" not in own and test.question in own and own != text
    assert (parse_verdict("Answer: yes"), parse_verdict("I think so.\nNo")) == (True, False)
