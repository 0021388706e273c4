"""A profile against a server that answers one request at a time, slowly, finishes with the
default concurrency: the runner backs off, asks again what timed out, says what it did, and
prints progress lines when its output is not a terminal (issue 36, point 3)."""

from __future__ import annotations

import asyncio
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from creval.runner import progress
from creval.runner.counters import Counters
from creval.runner.progress import Progress

NOUNS = ["cat", "galaxy", "spoon", "democracy", "volcano", "violin", "tractor", "oxygen",
         "pillow", "justice", "shark", "umbrella", "zebra", "kettle", "glacier"]
TRIALS = 24


def _nouns(body: dict[str, Any]) -> tuple[int, str]:
    """Ten of the nouns, in an order of the request's own (a valid DAT answer)."""
    start = len(json.dumps(body)) % len(NOUNS)
    words = (NOUNS[start:] + NOUNS[:start])[:10]
    return 200, "\n".join(f"{i}. {w}" for i, w in enumerate(words, 1))


def test_a_profile_against_a_one_slot_server_adapts_and_loses_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Eight requests sent at once to one slot answering in 0.2 s, with a 0.8 s timeout: the
    back half of every wave timed out, again and again, and each unit ended in error after
    its five attempts. Then the requests in flight came down after the timeouts; now the
    endpoint starts gently (issue 44): one request, more while the answers come as fast, so
    the server's queue stays short, next to nothing times out, and every unit is answered."""
    monkeypatch.setattr(progress, "PLAIN_EVERY", 1.0, raising=False)
    server = ChatServer(reply=_nouns, slots=1, delay=0.2)
    out = tmp_path / "profile"
    try:
        done = creval("profile", "--model", "openai:one-slot", "--base-url", server.url,
                      "--size", "smoke", "--only", "dat", "--set", f"dat.trials={TRIALS}",
                      "--timeout", "0.8", "--no-cache", "--out", str(out))
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert server.most_waiting <= 3 and server.abandoned <= 2  # no wave of eight
    records = [json.loads(line) for line in (out / "dat" / "records.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["ok"] * TRIALS  # nothing lost, no error record
    assert len({r["key"] for r in records}) == TRIALS

    usage = json.loads((out / "dat" / "scores.json").read_text())["usage"]["this_invocation"]
    timeouts = sum(e["timeouts"] for e in (usage.get("endpoints") or {}).values())
    assert timeouts <= 2 and usage["models"]["openai:one-slot"].get("timeouts", 0) == timeouts
    # output is not a terminal: plain progress lines, not silence
    lines = re.findall(r"dat: (\d+)/24 units.*, [\d.]+ units/s, \d+ retries, (\d+) timeouts, ",
                       done.stderr)
    assert lines, done.stderr


def test_a_plain_progress_line_says_how_far_the_run_is(monkeypatch: pytest.MonkeyPatch) -> None:
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.05)
    counters = Counters(units_ok=2)  # of an earlier call of the same runner: not counted

    async def main() -> None:
        with Progress(total=10, description="dat", counters=counters):
            await asyncio.sleep(0.12)
            counters.units_ok += 3
            counters.units_failed += 1
            counters.add("openai:m", retries=4, timeouts=3)
            await asyncio.sleep(0.1)

    asyncio.run(main())
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("dat: 0/10 units, 0.00 units/s, 0 retries, 0 timeouts, "
                               "none finished in 0 s")
    assert re.fullmatch(r"dat: 4/10 units \(1 failed\), [\d.]+ units/s, 4 retries, 3 timeouts, "
                        r"about \d+ s left", lines[-1])
    with Progress(total=1, enabled=False, counters=counters):  # --no-progress: silent
        pass
    assert len(log.getvalue().splitlines()) == len(lines)
