"""Kill -9 at any moment loses at most the units in flight and never duplicates a record."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CREVAL = [sys.executable, "-m", "creval.cli"]


def _keys(run: Path) -> list[str]:
    lines = (run / "records.jsonl").read_bytes().split(b"\n")
    return [json.loads(line)["key"] for line in lines if line.strip()]


@pytest.mark.slow
def test_kill_minus_nine_then_resume(tmp_path: Path) -> None:
    run = tmp_path / "run"
    env = {**os.environ, "CREVAL_CACHE_DIR": str(tmp_path / "cache")}
    # 4 answers decoded together: records arrive in bursts of about 4, so the kill (after 4
    # records) leaves most of the 12 trials unfinished whatever the default batch size is
    cmd = [*CREVAL, "run", "dat", "--model", "local", "--out", str(run), "--trials", "12",
           "--max-tokens", "16", "--concurrency", "4", "--no-progress"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    records = run / "records.jsonl"
    while time.time() < deadline:
        if records.exists() and records.read_bytes().count(b"\n") >= 4:
            break
        if proc.poll() is not None:
            pytest.fail("the run ended before it could be killed: " + proc.stderr.read().decode())
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = _keys(run)
    assert 4 <= len(before) < 12, "kill landed after the run finished; use more trials"

    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    # 16-token answers may hold no valid list: a run without any score exits 3 (docs/usage.md)
    finished = 0 if json.loads((run / "scores.json").read_text())["headline"]["dat_mean"] is not None else 3
    assert done.returncode == finished, done.stderr
    after = _keys(run)
    assert len(after) == len(set(after)) == 12, "a record was lost or duplicated"
    assert after[: len(before)] == before, "finished records were rewritten"
    invocations = [json.loads(x) for x in (run / "invocations.jsonl").read_text().splitlines()]
    assert invocations[-1]["pending"] == 12 - len(before)
    scores = json.loads((run / "scores.json").read_text())
    assert scores["units"]["finished"] == 12

    # a third invocation has nothing to do: no model request at all
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == finished, again.stderr
    scores = json.loads((run / "scores.json").read_text())
    assert scores["usage"]["this_invocation"]["models"] == {}
    assert _keys(run) == after
