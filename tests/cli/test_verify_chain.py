"""Records that cannot be edited quietly (issue 42): each line of ``records.jsonl`` carries a
digest chained to the line before, so running the same command again on a run whose records
were edited outside creval refuses with one line naming the first changed line, instead of
re-scoring the edit; an ``ok`` record without the calls its unit makes is not finished."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from creval.records import CHAIN, chain_digest, read_chain

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
STORY = "A modern tale of a fox and a phone."


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    chat = ChatServer(reply=lambda body: (200, STORY))
    yield chat
    chat.close()


URL: list[str] = []


def sat(out: Path) -> tuple[int, str]:
    """``creval run sat`` of two stories answered by the loopback stand-in (the same command
    each time): exit code and stderr."""
    done = creval("run", "sat", "--model", "openai:w", "--base-url", URL[0], "--limit",
                  "2", "--no-progress", "--no-cache", "--out", str(out), env=KEY)
    return done.returncode, done.stderr


@pytest.fixture(autouse=True)
def _url(server: ChatServer) -> Iterator[None]:
    URL[:] = [server.url]
    yield


def lines(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]


def write(run: Path, rows: list[dict[str, Any]]) -> None:
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def rechain(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows with their digests computed again, as someone who read the code would."""
    previous, out = "", []
    for row in rows:
        body = {k: v for k, v in row.items() if k != CHAIN}
        previous = chain_digest(previous, body)
        out.append({**body, CHAIN: previous})
    return out


def fresh(tmp_path: Path, name: str) -> Path:
    run = tmp_path / name
    code, err = sat(run)
    assert code == 0, err
    return run


@pytest.mark.unverified_runs("edits records.jsonl after the run to see a rerun refuse it")
def test_a_rerun_of_edited_records_refuses_naming_the_line(tmp_path: Path) -> None:
    run = fresh(tmp_path, "edited")
    rows = lines(run)
    assert all(CHAIN in r for r in rows) and len(rows) == 2
    assert read_chain(run / "records.jsonl").head == json.loads((run / "scores.json").read_text())["records_head"]
    logged = [json.loads(x) for x in (run / "invocations.jsonl").read_text().splitlines()]
    assert logged[-1]["records_head"] == rows[-1][CHAIN] and logged[-1]["records_lines"] == 2
    before = (run / "scores.json").read_text()

    # case 1: a received answer changed; the same command again refuses, scores.json untouched
    rows[1]["calls"][0]["completions"][0]["text"] = "An edited story."
    write(run, rows)
    code, err = sat(run)
    assert code != 0
    assert f"{run / 'records.jsonl'}:2: changed outside creval" in err, err
    assert len([x for x in err.splitlines() if x.startswith("error:")]) == 1, err  # one line
    assert (run / "scores.json").read_text() == before
    # nothing prints its numbers as verified: report and compare say so, --strict refuses
    for command in (["report", str(run)], ["compare", str(run)]):
        done = creval(*command)
        assert f"not verified: {run}: {run / 'records.jsonl'}:2: changed outside creval" in done.stdout, done.stdout
        done = creval(*command, "--strict")
        assert done.returncode == 2 and "--strict: not verified:" in done.stderr, done.stderr

    # the same edit with the digests computed again: the chain is not the one creval logged
    write(run, rechain(rows))
    code, err = sat(run)
    assert code != 0 and "lines 1-2 are not those the last creval invocation wrote" in err, err

    # a line removed
    run = fresh(tmp_path, "cut")
    write(run, lines(run)[:1])
    code, err = sat(run)
    assert code != 0 and "1 line(s), but the last creval invocation left 2" in err, err

    # newcomer: an appended {"key", "status": "ok"} without a digest
    run = fresh(tmp_path, "appended")
    with open(run / "records.jsonl", "a") as fh:
        fh.write(json.dumps({"key": lines(run)[0]["key"], "status": "ok"}) + "\n")
    code, err = sat(run)
    assert code != 0 and f"{run / 'records.jsonl'}:3: changed outside creval (carries no digest" in err, err


def test_report_and_compare_of_a_clean_run_say_nothing_of_verification(tmp_path: Path) -> None:
    run = fresh(tmp_path, "clean")
    for command in (["report", str(run), "--strict"], ["compare", str(run), "--strict"]):
        done = creval(*command)
        assert done.returncode == 0 and "not verified" not in done.stdout + done.stderr, done.stderr


@pytest.mark.unverified_runs("scores.json kept from before lines a killed invocation appended")
def test_scores_older_than_the_records_are_not_verified(tmp_path: Path) -> None:
    """Lines appended by creval after the scores (a later invocation killed before scoring):
    the chain holds, but the scores do not cover them."""
    run = fresh(tmp_path, "stale")
    rows = lines(run)
    body = {k: v for k, v in rows[-1].items() if k != CHAIN}
    extra = {**body, CHAIN: chain_digest(rows[-1][CHAIN], body)}
    with open(run / "records.jsonl", "a") as fh:
        fh.write(json.dumps(extra) + "\n")
    done = creval("report", str(run))
    assert (f"not verified: {run}: scores.json was computed from the first 2 line(s) of "
            "records.jsonl; 1 came after") in done.stdout, done.stdout


def test_an_ok_record_without_its_calls_is_not_finished(tmp_path: Path) -> None:
    """Case 8: an ``ok`` record whose calls are empty (chained as creval would, the invocation
    log rewritten to match): the same command runs that unit again, and its new record holds
    the calls."""
    run = fresh(tmp_path, "callless")
    rows = lines(run)
    forged = {**{k: v for k, v in rows[0].items() if k != CHAIN}, "calls": [],
              "output": {**rows[0]["output"], "text": "a story no model wrote"}}
    rows = rechain([*rows, forged])
    write(run, rows)
    log = [json.loads(x) for x in (run / "invocations.jsonl").read_text().splitlines()]
    log[-1].update(records_head=rows[-1][CHAIN], records_lines=3)
    (run / "invocations.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    scores = json.loads((run / "scores.json").read_text())
    (run / "scores.json").write_text(json.dumps({**scores, "records_head": rows[-1][CHAIN]}))
    code, err = sat(run)
    assert code == 0, err
    now = lines(run)
    assert len(now) == 4 and now[-1]["key"] == forged["key"] and now[-1]["calls"], now[-1]
    assert now[-1]["output"]["text"] == STORY
    scores = json.loads((run / "scores.json").read_text())
    assert scores["units"]["finished"] == 2 and scores["records_head"] == now[-1][CHAIN]
