"""Usage after a run killed with -9 and resumed (issue 44): the killed invocation's requests
and tokens are counted (from the records it wrote), not only the resumed one's."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from _cli import CREVAL
from _servers import ChatServer

WORDS = "cat, dog, thimble, violin, tomato, hippo, jumper, machinery, prickle, tickets"


def test_usage_after_kill_and_resume_counts_both_invocations(tmp_path: Path) -> None:
    def slow(body: dict[str, Any]) -> tuple[int, str]:
        time.sleep(0.15)
        return 200, WORDS

    server = ChatServer(reply=slow)
    run = tmp_path / "run"
    cmd = [*CREVAL, "run", "dat", "--model", "openai:m", "--base-url", server.url,
           "--trials", "20", "--concurrency", "1", "--no-progress", "--no-cache",
           "--out", str(run)]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        records = run / "records.jsonl"
        deadline = time.time() + 120
        while time.time() < deadline:
            if records.exists() and records.read_bytes().count(b"\n") >= 6:
                break
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at = records.read_bytes().count(b"\n")
        assert 6 <= killed_at < 20
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    usage = json.loads((run / "scores.json").read_text())["usage"]
    assert usage["invocations"] == 2
    this = usage["this_invocation"]["models"]["openai:m"]
    every = usage["all_invocations"]["models"]["openai:m"]
    assert this["requests"] == 20 - killed_at
    assert every["requests"] == 20 == usage["all_invocations"]["units_ok"]
    assert every["output_tokens"] == 20 * 2  # the test server's usage: 2 tokens an answer
