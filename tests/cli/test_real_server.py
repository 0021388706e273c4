"""``creval run`` against a real ``llama_cpp.server`` on loopback (the packaged SmolLM2).

What a user sees when the server is real: log-probabilities that actually came back,
requests counted as the server saw them, distinct causes of errors, and a run that stops
early (and resumes) when the server goes away.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from _cli import CREVAL, creval
from _servers import LlamaServer

pytestmark = pytest.mark.slow

STEPWISE = ["--limit", "1", "--n", "3", "--max-steps", "1", "--judges", "none",
            "--step-max-tokens", "24", "--no-progress"]


def _summary(stdout: str, benchmark: str) -> str:
    return next(line for line in stdout.replace("\n ", " ").splitlines() if line.startswith(f"{benchmark}: units"))


def test_stepwise_run_gets_logprobs_and_counts_requests_as_the_server_sees_them(
    llama_server: str, tmp_path: Path
) -> None:
    done = creval("run", "macgyver", "--model", "openai:smollm2", "--base-url", llama_server,
                  *STEPWISE, "--out", str(tmp_path / "a"))
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "a" / "records.jsonl").read_text().splitlines()[-1])
    candidates = record["output"]["steps"][0]["candidates"]
    # llama-cpp-python returns log-probabilities only when top_logprobs is sent (even 0)
    assert all(c["has_logprobs"] for c in candidates)
    assert record["output"]["logprobs"] == "model"
    scores = json.loads((tmp_path / "a" / "scores.json").read_text())
    assert not scores.get("warnings")
    if scores["headline"]["steps_scored"]:
        assert scores["headline"]["semantic_entropy"] is not None
    # the server ignores n: 3 candidates are 3 requests, plus the greedy continuation
    line = _summary(done.stdout, "macgyver")
    assert "units 1 ok, 0 failed, 0 not run; 4 request(s) (0 retries), 0 cache hit(s)" in line
    assert "tokens" in line and " s; report:" in line
    usage = scores["usage"]["this_invocation"]
    assert usage["models"]["openai:smollm2"]["requests"] == 4 and usage["units_ok"] == 1
    report = (tmp_path / "a" / "report.md").read_text()
    assert "| this one | 1 | 0 | 0 | 4 | 0 | 0 |" in report

    again = creval("run", "macgyver", "--model", "openai:smollm2", "--base-url", llama_server,
                   *STEPWISE, "--out", str(tmp_path / "b"))
    assert again.returncode == 0, again.stderr
    assert "0 request(s) (0 retries), 4 cache hit(s)" in _summary(again.stdout, "macgyver")


def test_errors_print_their_distinct_causes(llama_server: str, tmp_path: Path) -> None:
    wrong = llama_server.removesuffix("/v1")  # a common mistake: the /v1 left out
    done = creval("run", "dat", "--model", "openai:smollm2", "--base-url", wrong, "--trials",
                  "3", "--max-tokens", "8", "--no-progress", "--out", str(tmp_path / "run"))
    assert done.returncode == 1
    err = " ".join(done.stderr.split())
    assert "3 unit(s) ended in errors" in err
    assert "3 x ModelError" in err and "does --base-url need to end in /v1?" in err


def test_a_server_that_dies_stops_the_run_early_and_a_rerun_resumes(tmp_path: Path) -> None:
    server = LlamaServer(tmp_path / "server.log")
    out = tmp_path / "run"
    # 16 trials, one at a time: the server dies after 3 records with most of them not run
    args = ["run", "dat", "--model", "openai:smollm2", "--base-url", server.url, "--trials", "16",
            "--max-tokens", "8", "--concurrency", "1", "--no-progress", "--allow-no-score", "--out", str(out)]
    try:
        server.wait_ready()
        proc = subprocess.Popen([*CREVAL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=dict(os.environ))
        records = out / "records.jsonl"
        deadline = time.monotonic() + 120
        while not (records.exists() and len(records.read_text().splitlines()) >= 3):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no records after 120 s"
            time.sleep(0.1)
    finally:
        server.stop()
    killed = time.monotonic()
    stdout, stderr = proc.communicate(timeout=120)
    # three consecutive connection failures open the breaker: no five retries per unit
    assert time.monotonic() - killed < 20
    assert proc.returncode == 1, stderr
    err = " ".join(stderr.split())
    assert "stopped answering" in err and "run the same command again to resume" in err
    lines = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    ok = sum(r["status"] == "ok" for r in lines)
    assert ok >= 3 and sum(r["status"] == "error" for r in lines) <= 1
    scores = json.loads((out / "scores.json").read_text())
    assert scores["usage"]["this_invocation"]["units_not_run"] >= 16 - len(lines) - 1

    restarted = LlamaServer(tmp_path / "server.log", port=server.port)
    try:
        restarted.wait_ready()
        again = creval(*args)
    finally:
        restarted.stop()
    assert again.returncode == 0, again.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert scores["units"]["finished"] == 16 and scores["units"]["missing"] == 0
    assert f"units {16 - ok} ok" in _summary(again.stdout, "dat")


def test_structured_output_option_makes_the_server_judge_parse(llama_server: str, tmp_path: Path) -> None:
    done = creval("run", "ttct", "--model", "openai:smollm2", "--base-url", llama_server,
                  "--structured-output", "json_object", "--limit", "1", "--answers", "1",
                  "--max-tokens", "24", "--no-progress", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "run" / "records.jsonl").read_text().splitlines()[-1])
    assert record["output"]["judge_constrained"] is True
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert scores["headline"]["parse_failures"] == 0
    assert scores["headline"]["judged_by"].startswith("self-judged")
    bad = creval("run", "ttct", "--structured-output", "maybe", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "--structured-output takes" in bad.stderr
