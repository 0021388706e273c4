"""``creval verify``: clean on the runs creval writes (DAT, SAT, JCQ with a stand-in judge,
NeoCoder), and every difference named on a run whose files were edited afterwards: the
manifest, scores.json, a truncated records.jsonl, a prompt file changed since the run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer, scripted_dat_run

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
JUDGEMENT = "Fluency: 3\nFlexibility: 4\nOriginality: 2\nElaboration: 5"
WORDS = ["cat", "bridge", "ocean", "pencil", "galaxy", "violin", "tractor", "honey", "glacier",
         "democracy", "spoon", "thunder"]


def verify(path: Path) -> tuple[int, list[dict[str, Any]]]:
    done = creval("verify", str(path), "--json")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return done.returncode, json.loads(done.stdout)


def differences(path: Path) -> list[str]:
    code, found = verify(path)
    said = [d for r in found for d in (*r["differences"], *r["changed_since"])]
    assert (code == 0) == (not said)
    return said


def ttct_run(out: Path, *extra: str) -> Path:
    """A two-question TTCT run, the answers and the judge from a loopback stand-in."""
    server = ChatServer(reply=lambda body: (200, JUDGEMENT if "Fluency" in json.dumps(body)
                                            else "Use it as a hat."))
    try:
        done = creval("run", "ttct", "--model", "openai:w", "--base-url", server.url, "--judge",
                      "openai:j", "--judge-base-url", server.url, "--limit", "2", "--answers", "2",
                      "--temperature", "0", "--structured-judge", "false", "--no-progress", "--out", str(out), *extra, env=KEY)
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.mark.unverified_runs("checks verify clean on each run first, then edits the manifest, "
                             "scores.json, records.jsonl and the prompt file to see it named")
def test_verify_is_clean_on_dat_sat_and_ttct_runs_and_names_each_edit(tmp_path: Path) -> None:
    lists = ["\n".join(WORDS[i:i + 10]) for i in range(3)]
    dat = scripted_dat_run(tmp_path, "dat-model", lists, trials=3)
    server = ChatServer(reply=lambda body: (200, "A modern tale of a fox and a phone."))
    try:
        done = creval("run", "sat", "--model", "openai:w", "--base-url", server.url, "--limit",
                      "2", "--no-progress", "--out", str(tmp_path / "sat"), env=KEY)
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    prompt = tmp_path / "judge.txt"
    prompt.write_text("Rate it. Fluency Flexibility Originality Elaboration\n{question}\n{answer}\n",
                      encoding="utf-8")
    ttct = ttct_run(tmp_path / "ttct", "--judge-prompt-file", str(prompt))
    for run in (dat, tmp_path / "sat", ttct):
        assert differences(run) == [], run
    text = creval("verify", str(ttct)).stdout
    assert "verified: nothing differs" in text and "which scores it the same" in text

    # the manifest edited by hand: the requests say temperature 0
    manifest = json.loads((ttct / "manifest.json").read_text())
    manifest["options"]["temperature"] = 1.0
    (ttct / "manifest.json").write_text(json.dumps(manifest))
    said = differences(ttct)
    # replay builds the units again from the manifest: their requests say 1.0 (issue 42)
    assert "q-1: call 1 (target) request temperature: replay sends 1.0, the run recorded 0.0" in said, said
    assert any("scores.json was computed from other records, units or options" in d for d in said)
    manifest["options"]["temperature"] = 0.0
    (ttct / "manifest.json").write_text(json.dumps(manifest))
    assert differences(ttct) == []

    # the prompt file changed after the run
    prompt.write_text("Another rubric.\n{question}\n{answer}\n", encoding="utf-8")
    said = differences(ttct)
    assert any(d.startswith(f"{prompt.resolve()} (--judge-prompt-file) changed since the run "
                            "read it: sha256 ") for d in said), said

    # scores.json edited: the headline does not follow from the records
    scores = json.loads((dat / "scores.json").read_text())
    real = scores["headline"]["dat_mean"]
    scores["headline"]["dat_mean"] = real + 5
    (dat / "scores.json").write_text(json.dumps(scores))
    said = differences(dat)
    assert any(d.startswith(f"headline dat_mean: scores.json {real + 5}, re-scored from "
                            "records.jsonl") for d in said), said

    # records.jsonl truncated: at a line, and in the middle of one
    records = (tmp_path / "sat" / "records.jsonl").read_bytes()
    first = records.split(b"\n")[0] + b"\n"
    (tmp_path / "sat" / "records.jsonl").write_bytes(first)
    said = differences(tmp_path / "sat")
    assert "scores.json counts finished=2 unit(s); records.jsonl gives 1" in said, said
    (tmp_path / "sat" / "records.jsonl").write_bytes(first + records.split(b"\n")[1][:40])
    assert "records.jsonl ends in a partial line (cut while written, or truncated)" in differences(
        tmp_path / "sat")


def test_verify_is_clean_on_a_neocoder_run(tmp_path: Path) -> None:
    program = "```python\nprint(input())\n```"
    server = ChatServer(reply=lambda body: (200, program if body["model"] == "w" else "[]"))
    try:
        done = creval("run", "neocoder", "--model", "openai:w", "--base-url", server.url,
                      "--judge", "openai:j", "--judge-base-url", server.url, "--limit", "1",
                      "--states", "0", "--no-progress", "--out", str(tmp_path / "neo"), env=KEY)
    finally:
        server.close()
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert differences(tmp_path / "neo") == []


def jcq_run(out: Path) -> Path:
    """A one-question JCQ run on the starter set, answered and judged by a stand-in."""
    judgement = "流暢性: 3\n柔軟性: 4\n独創性: 2\n精緻性: 5"
    server = ChatServer(reply=lambda body: (200, judgement if body["model"] == "j" else "帽子"))
    try:
        done = creval("run", "jcq", "--model", "openai:w", "--base-url", server.url, "--judge",
                      "openai:j", "--judge-base-url", server.url, "--limit", "1", "--answers", "1",
                      "--no-progress", "--out", str(out), env=KEY)
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    return out


@pytest.mark.unverified_runs("corrupts one run's records and names an unknown benchmark in the "
                             "other, to see both refused")
def test_verify_and_references_check_refuse_bad_runs_and_go_on(tmp_path: Path) -> None:
    good = jcq_run(tmp_path / "profile" / "good")
    bad = jcq_run(tmp_path / "profile" / "bad")
    (bad / "records.jsonl").write_text("not a record\n", encoding="utf-8")
    done = creval("references", "check", str(tmp_path / "profile"))
    assert done.returncode == 2
    assert f"{bad}: not compared: its files do not agree" in done.stderr.replace("\n", "")
    assert f"{good}: jcq mean = " in done.stdout  # the other run was checked
    done = creval("compare", str(bad), "--published")
    assert done.returncode == 2 and "not compared: its files do not agree" in done.stderr, done.stderr
    assert "Traceback" not in done.stdout + done.stderr

    # a file, not a directory: says what to pass, as compare does
    done = creval("references", "check", str(good / "manifest.json"))
    assert done.returncode == 2
    assert "is not a directory: pass a run or profile directory." in done.stderr

    # no scores.json: refused, not "no measure has a published value"
    (good / "scores.json").rename(tmp_path / "scores.json")
    done = creval("references", "check", str(good))
    assert done.returncode == 2 and "scores.json is missing" in done.stderr, done.stderr
    assert "has a published value" not in done.stdout
    (tmp_path / "scores.json").rename(good / "scores.json")

    # an unknown benchmark: refused with the reason
    manifest = json.loads((good / "manifest.json").read_text())
    (good / "manifest.json").write_text(json.dumps({**manifest, "benchmark": "nosuch"}))
    done = creval("references", "check", str(good))
    assert done.returncode == 2 and "Unknown benchmark 'nosuch'" in done.stderr, done.stderr
    code, found = verify(good)
    assert code == 1 and any("Unknown benchmark 'nosuch'" in d for d in found[0]["differences"])


@pytest.mark.parametrize("what", ["missing", "file"])
def test_verify_bad_paths_exit_2(tmp_path: Path, what: str) -> None:
    path = tmp_path / "x"
    if what == "file":
        path.write_text("{}")
    done = creval("verify", str(path))
    said = {"missing": "does not exist. Pass a run directory or a profile directory.",
            "file": "is not a directory: pass a run or profile directory."}[what]
    assert done.returncode == 2 and said in done.stderr, done.stderr
