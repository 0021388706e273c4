"""What a run prints is as sure as its items allow (issue 36): no interval from too few items,
the interval and n of every headline measure in the console and the report, a run that
produced nothing says which measure, why and what to try, and exits 3 (``--allow-no-score``:
0); a profile exits 3 only when none of its measures has a value."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _cli import creval
from _servers import ChatServer, scripted_dat_run

UNRELATED = "1. volcano\n2. spoon\n3. justice\n4. violin\n5. tomato\n6. glacier\n7. pencil"
OTHER = "1. harbor\n2. algebra\n3. velvet\n4. giraffe\n5. pepper\n6. umbrella\n7. saxophone"


def _scores_row(report: str, metric: str) -> list[str]:
    line = next(r for r in report.splitlines() if r.startswith(f"| {metric} |"))
    return [c.strip() for c in line.strip("|").split("|")]


def test_dat_with_two_valid_trials_prints_no_interval(tmp_path: Path) -> None:
    run = scripted_dat_run(tmp_path, "two", [UNRELATED, OTHER], trials=2)
    report = (run / "report.md").read_text()
    assert "| metric | value | 95% interval | n |" in report
    assert _scores_row(report, "dat_mean")[2:] == [
        "n=2: too few items for an interval (needs 10)", "2"]
    # the console: value, why there is no interval, and n
    done = creval("run", "dat", "--model", f"replay:{run}", "--out", str(tmp_path / "again"),
                  "--no-progress")
    assert done.returncode == 0, done.stderr
    line = next(r for r in done.stdout.splitlines() if "dat_mean" in r)
    assert "n=2: too few items" in line and line.rstrip().endswith("2 │")
    assert "[77" not in done.stdout  # the interval the bootstrap used to print


def test_dat_with_twelve_trials_prints_its_interval_and_n(tmp_path: Path) -> None:
    run = scripted_dat_run(tmp_path, "twelve", [UNRELATED, OTHER], trials=12)
    row = _scores_row((run / "report.md").read_text(), "dat_mean")
    assert row[2].startswith("[") and row[3] == "12"
    low, high = (float(v) for v in row[2].strip("[]").split(","))
    assert low < float(row[1]) < high


def test_dat_with_no_valid_trial_says_so_and_exits_3(tmp_path: Path) -> None:
    run = scripted_dat_run(tmp_path, "none", ["I would rather not answer."], trials=3,
                           exit_codes=(3,))  # finished without a score
    report = (run / "report.md").read_text()
    assert "dat produced no score: dat_mean has no valid item (3 of 3 trials invalid" in report
    assert "--constrain-answers" in report
    done = creval("run", "dat", "--model", f"replay:{run}", "--out", str(tmp_path / "again"),
                  "--no-progress")
    assert done.returncode == 3
    assert "dat_mean has no valid item" in done.stderr and "--constrain-answers" in done.stderr


def _never_parses(body: dict[str, Any]) -> tuple[int, str]:
    """The tested model answers, the judge answers in prose (no verdict parses); DAT prompts
    get seven unrelated words."""
    prompt = str(body["messages"][-1]["content"]).lower()
    if "come up with 10 nouns" in prompt:
        return 200, UNRELATED
    return 200, "I liked it a lot." if "fluency" in prompt else "Use it as a doorstop."


def _ttct(out: Path, *flags: str) -> Any:
    server = ChatServer(reply=_never_parses)
    try:
        return creval("run", "ttct", "--model", "openai:m", "--judge", "openai:judge",
                      "--base-url", server.url, "--limit", "2", "--answers", "1",
                      "--no-progress", "--out", str(out), *flags)
    finally:
        server.close()


def test_ttct_whose_judge_never_parses_says_so_and_exits_3(tmp_path: Path) -> None:
    done = _ttct(tmp_path / "ttct")  # exit 3 is the default, no flag asks for it
    assert done.returncode == 3, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert "ttct produced no score:" in said and "mean" in said
    assert "2 of 2 judgements did not parse" in said
    assert "--structured-output auto" in said and "a stronger --judge" in said
    assert "ttct produced no score" in (tmp_path / "ttct" / "report.md").read_text()
    scores = json.loads((tmp_path / "ttct" / "scores.json").read_text())
    assert scores["headline"]["parse_failures"] == 2
    # the opt-out: the same warning, exit 0
    again = _ttct(tmp_path / "allowed", "--allow-no-score")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 of 2 judgements did not parse" in " ".join(again.stderr.split())


def _profile(out: Path, reply: Any, *flags: str) -> Any:
    server = ChatServer(reply=reply)
    try:
        return creval("profile", "--model", "openai:m", "--base-url", server.url,
                      "--size", "smoke", "--family", "ttct", "--no-progress",
                      "--out", str(out), *flags)
    finally:
        server.close()


def test_profile_exits_3_only_when_no_measure_has_a_value(tmp_path: Path) -> None:
    # DAT scored, TTCT's judge never parsed: a profile with unscored measures is normal
    some = _profile(tmp_path / "some", _never_parses, "--only", "dat", "--only", "ttct",
                    "--set", "dat.trials=2", "--set", "ttct.limit=1", "--set", "ttct.answers=1",
                    "--judge", "openai:judge")
    assert some.returncode == 0, some.stdout + some.stderr
    doc = json.loads((tmp_path / "some" / "profile.json").read_text())
    values = {m["benchmark"]: m["value"] for f in doc["families"] for m in f["measurements"]}
    assert values["dat"] is not None and values["ttct"] is None, values
    assert "finished without a score" not in some.stderr
    # no measure has a value: exit 3, and why
    none = _profile(tmp_path / "none", lambda body: (200, "No words today."), "--only", "dat",
                    "--set", "dat.trials=2")
    assert none.returncode == 3, none.stdout + none.stderr
    said = " ".join(none.stderr.split())
    assert "dat_mean has no valid item" in said and "profile finished without a score" in said
    allowed = _profile(tmp_path / "allowed", lambda body: (200, "No words today."), "--only", "dat",
                       "--set", "dat.trials=2", "--allow-no-score")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "profile finished without a score" in " ".join(allowed.stderr.split())


def _one_trial_profile(tmp_path: Path, name: str, words: str) -> Path:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        return 200, words

    server = ChatServer(reply=reply)
    out = tmp_path / name
    try:
        done = creval("profile", "--model", f"openai:{name}", "--base-url", server.url,
                      "--size", "smoke", "--family", "ttct", "--only", "dat",
                      "--set", "dat.trials=1", "--no-progress", "--out", str(out))
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_profile_of_one_item_has_no_interval_and_compare_ranks_nothing_for_sure(
    tmp_path: Path,
) -> None:
    a = _one_trial_profile(tmp_path, "a", UNRELATED)
    b = _one_trial_profile(tmp_path, "b", "1. cat\n2. dog\n3. mouse\n4. rat\n5. hamster\n"
                                          "6. gerbil\n7. ferret")
    page = (a / "profile.md").read_text()
    assert "(n=1: too few items for an interval (needs 10))" in page
    assert "bootstrap of the mean over 1 items" not in page
    done = creval("compare", str(a), str(b))
    assert done.returncode == 0, done.stderr
    rows = [r for r in done.stdout.splitlines() if "openai:" in r and "dat" not in r.split("|")[1]]
    assert len(rows) == 2, done.stdout
    for row in rows:  # neither value has an interval: each may take either rank, tied
        assert "(1-2, tied)" in row and "any rank" in row


def test_all_invalid_sweep_says_so_instead_of_drawing_and_exits_3(tmp_path: Path) -> None:
    server = ChatServer(reply=lambda body: (200, "No words today."))
    out = tmp_path / "sweep"
    try:
        done = creval("sweep", "dat", "--model", "openai:m", "--base-url", server.url,
                      "--values", "temperature=0.2,1.0", "--trials", "2", "--no-progress",
                      "--out", str(out), "--no-cache")
    finally:
        server.close()
    assert done.returncode == 3, done.stdout + done.stderr
    page = (out / "sweep.md").read_text()
    assert "No valid item at any temperature" in page
    assert "2 values swept: too few for a trend (needs 3)" in page
    html = (out / "sweep.html").read_text()
    assert "No valid item at any temperature" in html and "<svg" not in html
    assert "dat_mean has no valid item" in done.stderr


def test_sweep_trend_reports_interval_and_test_from_the_same_resamples(tmp_path: Path) -> None:
    turn = {"i": 0}
    lists = [UNRELATED, OTHER, "1. cat\n2. dog\n3. mouse\n4. rat\n5. hamster\n6. gerbil\n7. ferret"]

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        turn["i"] += 1
        return 200, lists[turn["i"] % 3]

    server = ChatServer(reply=reply)
    out = tmp_path / "sweep"
    try:
        done = creval("sweep", "dat", "--model", "openai:m", "--base-url", server.url,
                      "--values", "temperature=0.2,0.6,1.0", "--trials", "10", "--no-progress",
                      "--out", str(out), "--no-cache", "--resamples", "400")
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads((out / "sweep.json").read_text())
    trend = doc["curves"][0]["trend"]
    assert trend["n"] == 30 and trend["values"] == 3 and trend["note"] is None
    level = 1 - doc["confidence"]
    assert (trend["low"] > 0 or trend["high"] < 0) == (trend["p"] < level)
    assert "(bootstrap)" in (out / "sweep.md").read_text()
