"""``creval verify`` by replay (issue 42): every unit runs again against the answers its run
recorded, each request and output compared with the records. Each edit below is made as
someone gaming a leaderboard would: the digest chain computed again and the invocation log
and scores.json made to match, so that only the replay can find it; verify names the unit,
the field and both values. The numbers are the cases of the issue."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer, novelty_same, scripted_dat_run

from creval.records import CHAIN, chain_digest

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
JUDGEMENT = "Fluency: 3\nFlexibility: 4\nOriginality: 2\nElaboration: 5"
WORDS = ["cat", "bridge", "ocean", "pencil", "galaxy", "violin", "tractor", "honey", "glacier",
         "democracy", "spoon", "thunder"]


def _text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


def reply(body: dict[str, Any]) -> tuple[int, str]:
    """One loopback stand-in for every benchmark's target and judges."""
    text = _text(body)
    if (verdict := novelty_same(text)) is not None:
        return 200, verdict
    if "Fluency" in json.dumps(body):
        return 200, JUDGEMENT
    if body["model"] == "j":
        return 200, "Yes, it does."
    if "Plot:" in text:
        return 200, "A Title\nThe keeper wrote letters to passing ships."
    if body["model"] == "s":
        return 200, "A modern tale of a fox and a phone."
    return 200, f"1. a hat\n2. a boat {body.get('seed', 0)}\n3. a drum"


COMMANDS: dict[str, list[str]] = {
    "ttct": ["ttct", "--model", "openai:w", "--judge", "openai:j", "--limit", "2", "--answers",
             "2", "--temperature", "0", "--structured-judge", "false"],
    "ttcw": ["ttcw", "--model", "openai:w", "--judge", "openai:j", "--limit", "2", "--tests",
             "1,2", "--max-tokens", "64"],
    "noveltybench": ["noveltybench", "--model", "openai:w", "--judge", "openai:j", "--quality",
                     "none", "--k", "3", "--limit", "2"],
    "aut": ["aut", "--model", "openai:w", "--max-tokens", "64", "--embedder", "glove-6b-50d",
            "--limit", "2"],
    "sat": ["sat", "--model", "openai:s", "--limit", "2"],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A clean run of each benchmark above (and DAT), answered by the loopback stand-in."""
    root = tmp_path_factory.mktemp("clean")
    server = ChatServer(reply=reply)
    out: dict[str, Path] = {}
    try:
        for name, args in COMMANDS.items():
            judged = ["--judge-base-url", server.url] if "--judge" in args else []
            done = creval("run", *args, "--base-url", server.url, *judged, "--no-progress",
                          "--no-cache", "--out", str(root / name), env=KEY)
            assert done.returncode == 0, name + done.stdout + done.stderr
            out[name] = root / name
    finally:
        server.close()
    lists = ["\n".join(WORDS[i:i + 10]) for i in range(3)]
    out["dat"] = scripted_dat_run(root, "dat-model", lists, "--no-cache", trials=3)
    return out


def verify(path: Path) -> tuple[int, list[str]]:
    done = creval("verify", str(path), "--json")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    found = json.loads(done.stdout)
    return done.returncode, [d for r in found for d in (*r["differences"], *r["unverified"])]


def forged(runs: dict[str, Path], name: str, tmp_path: Path,
           edit: Callable[[list[dict[str, Any]]], None]) -> Path:
    """A copy of the clean ``name`` run with its records edited by ``edit`` and everything
    the chain checks read made to agree."""
    run = tmp_path / name
    shutil.copytree(runs[name], run)
    rows = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    edit(rows)
    previous = ""
    for row in rows:
        row.pop(CHAIN, None)
        previous = row[CHAIN] = chain_digest(previous, row)
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    log = [json.loads(x) for x in (run / "invocations.jsonl").read_text().splitlines()]
    log[-1].update(records_head=previous, records_lines=len(rows))
    (run / "invocations.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    scores = json.loads((run / "scores.json").read_text())
    (run / "scores.json").write_text(json.dumps({**scores, "records_head": previous}))
    return run


def named(said: list[str], *parts: str) -> bool:
    return any(all(p in d for p in parts) for d in said)


def calls_of(row: dict[str, Any], role: str) -> list[dict[str, Any]]:
    return [c for c in row["calls"] if c["role"] == role]


def test_every_clean_run_verifies_by_replay(runs: dict[str, Path]) -> None:
    for name, run in runs.items():
        done = creval("verify", str(run))
        assert done.returncode == 0, name + done.stdout
        assert "verified: nothing differs" in done.stdout and "unit(s) replayed" in done.stdout


@pytest.mark.unverified_runs("edits one received answer of each run to see verify name it")
@pytest.mark.parametrize("name", ["ttct", "ttcw", "noveltybench", "aut", "sat", "dat"])
def test_an_edited_received_answer_is_named(runs: dict[str, Path], tmp_path: Path, name: str) -> None:
    def edit(rows: list[dict[str, Any]]) -> None:
        rows[0]["calls"][0]["completions"][0]["text"] = "An edited answer: glacier democracy."

    run = forged(runs, name, tmp_path, edit)
    code, said = verify(run)
    key = json.loads((run / "records.jsonl").read_text().splitlines()[0])["key"]
    assert code == 1 and any(d.startswith(f"{key}: ") for d in said), said


@pytest.mark.unverified_runs("edits the judge's received texts (case 1)")
def test_case_1_the_judges_received_text_changed(runs: dict[str, Path], tmp_path: Path) -> None:
    def edit(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            for call in calls_of(row, "judge"):
                call["completions"][0]["text"] = JUDGEMENT.replace("3", "5").replace("4", "5").replace("2", "5")

    code, said = verify(forged(runs, "ttct", tmp_path, edit))
    assert code == 1 and named(said, "output", "replayed", "the run recorded"), said


@pytest.mark.unverified_runs("edits the recorded judgements (cases 2 and 6)")
def test_cases_2_and_6_an_output_set_against_its_received_answers(runs: dict[str, Path], tmp_path: Path) -> None:
    def judgements(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            for name in row["output"]:
                if "judg" in name:
                    row["output"][name] = json.loads(json.dumps(row["output"][name]).replace("3", "5"))

    code, said = verify(forged(runs, "ttct", tmp_path / "a", judgements))
    assert code == 1 and named(said, ": output.judg", "replayed", "the run recorded"), said

    def no(rows: list[dict[str, Any]]) -> None:  # TTCW: Yes -> No under answers that say Yes
        rows[0]["output"]["answers"] = {k: "No, it does not." for k in rows[0]["output"]["answers"]}

    code, said = verify(forged(runs, "ttcw", tmp_path / "b", no))
    key = rows_key(runs["ttcw"])
    assert code == 1 and named(said, f"{key}: output.answers", '"Yes, it does."', '"No, it does not."'), said


def rows_key(run: Path) -> str:
    return str(json.loads((run / "records.jsonl").read_text().splitlines()[0])["key"])


@pytest.mark.unverified_runs("edits the tested model's answer under its judge (case 3)")
def test_case_3_an_answer_that_is_not_the_one_judged(runs: dict[str, Path], tmp_path: Path) -> None:
    def edit(rows: list[dict[str, Any]]) -> None:
        calls_of(rows[0], "target")[0]["completions"][0]["text"] = "Another story altogether."

    code, said = verify(forged(runs, "ttcw", tmp_path, edit))
    assert code == 1 and named(said, f"{rows_key(runs['ttcw'])}: call 2 (judge) request messages"), said


@pytest.mark.unverified_runs("sets NoveltyBench's partition to zeros (case 4)")
def test_case_4_noveltybench_partition(runs: dict[str, Path], tmp_path: Path) -> None:
    def edit(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["output"]["partition"] = [0] * len(row["output"]["partition"])

    code, said = verify(forged(runs, "noveltybench", tmp_path, edit))
    assert code == 1 and named(said, ": output.partition[1]: replayed 1, the run recorded 0"), said


@pytest.mark.unverified_runs("edits the manifests' temperature (case 5)")
@pytest.mark.parametrize("name", ["noveltybench", "ttcw"])
def test_case_5_a_manifest_temperature_the_requests_did_not_send(runs: dict[str, Path], tmp_path: Path, name: str) -> None:
    run = tmp_path / name
    shutil.copytree(runs[name], run)
    manifest = json.loads((run / "manifest.json").read_text())
    sent = manifest["options"]["temperature"]
    manifest["options"]["temperature"] = 0.3
    (run / "manifest.json").write_text(json.dumps(manifest))
    code, said = verify(run)
    assert code == 1 and named(said, "(target) request temperature: replay sends 0.3, the run "
                                     f"recorded {float(sent)}"), said


@pytest.mark.unverified_runs("empties the calls of ok units (case 8)")
def test_case_8_ok_units_without_calls(runs: dict[str, Path], tmp_path: Path) -> None:
    def edit(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            row["calls"] = []

    code, said = verify(forged(runs, "sat", tmp_path, edit))
    assert code == 1 and named(said, "call 1 (target): the unit asks for a generation the run did "
                                     "not record"), said
