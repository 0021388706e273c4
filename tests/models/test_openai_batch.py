"""``openai:MODEL --batch``: requests through the OpenAI Batch API, against a loopback server
of ours that implements the files and batches endpoints (tests/_batch_server.py)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _batch_server import BatchServer
from _cli import creval

import creval as api
from creval.errors import CrevalError
from creval.models import GenerateRequest, ModelOptions, TransientModelError, get_model
from creval.models.openai_batch import LEDGER, BatchOpenAIModel, read_ledger
from creval.runner.counters import totals

POLL = "0.05"


@pytest.fixture()
def server() -> Iterator[BatchServer]:
    srv = BatchServer()
    yield srv
    srv.close()


def _evaluate(server: BatchServer, out: Path, *, batch: bool = True, trials: int = 4) -> Any:
    return api.evaluate("dat", model="openai:m", base_url=server.url, api_key="x", out=out,
                        trials=trials, cache=False, batch=batch, batch_poll=float(POLL))


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def _answers(out: Path) -> dict[str, list[str]]:
    return {r["key"]: [c["text"] for call in r["calls"] for c in call["completions"]]
            for r in _records(out) if r["status"] == "ok"}


def test_batch_answers_equal_the_direct_path(server: BatchServer, tmp_path: Path) -> None:
    direct = _evaluate(server, tmp_path / "direct", batch=False)["dat"]
    assert server.chat == 4 and server.created == 0
    batched = _evaluate(server, tmp_path / "batch")["dat"]
    assert server.chat == 4, "the batch path sent chat-completions requests"
    assert server.created == 1 and server.lines == [4]
    assert _answers(tmp_path / "batch") == _answers(tmp_path / "direct") != {}
    assert batched.scores.headline == direct.scores.headline
    assert batched.scores.units.finished == 4 and batched.ok
    ledger = read_ledger(tmp_path / "batch" / LEDGER)
    assert [r["event"] for r in ledger][:2] == ["uploaded", "submitted"]  # before it is created
    assert len(ledger[0]["custom_ids"]) == 4 and ledger[1]["batch_id"] == "batch_0"
    assert ledger[-1] == {**ledger[-1], "event": "finished", "status": "completed", "failed": []}
    assert "`batch_0` (4 lines, completed)" in (tmp_path / "batch" / "report.md").read_text()
    assert "`batch_0` (4 lines, completed)" in (tmp_path / "batch" / "report.html").read_text()
    # the identity is the plain model's: the manifests agree, and each run resumes the other
    manifests = [json.loads((tmp_path / d / "manifest.json").read_text()) for d in ("direct", "batch")]
    assert manifests[0]["model"]["identity"] == manifests[1]["model"]["identity"]


def test_the_cache_is_shared_with_the_direct_path(server: BatchServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    kwargs: dict[str, Any] = dict(model="openai:m", base_url=server.url, api_key="x", trials=3,
                                  cache=cache, batch_poll=float(POLL))  # fmt: skip
    api.evaluate("dat", out=tmp_path / "a", **kwargs)
    assert server.chat == 3
    again = api.evaluate("dat", out=tmp_path / "b", batch=True, **kwargs)["dat"]
    assert server.created == 0 and server.chat == 3
    assert totals(again.scores.usage["this_invocation"])["cache_hits"] == 3


def test_a_killed_run_resumes_its_batch_and_pays_once(tmp_path: Path) -> None:
    server = BatchServer(hold=True)  # the batch stays in progress until released
    out = tmp_path / "run"
    args = ["run", "dat", "--model", "openai:m", "--base-url", server.url, "--api-key", "x",
            "--trials", "4", "--batch", "--batch-poll", POLL, "--no-progress", "--no-cache",
            "--allow-no-score", "--out", str(out)]  # fmt: skip
    try:
        proc = subprocess.Popen([sys.executable, "-m", "creval.cli", *args],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while not any(r.get("event") == "status" for r in read_ledger(out / LEDGER)):
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "the batch was not submitted"
                time.sleep(0.05)
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        assert server.created == 1 and server.lines == [4]
        assert not (out / "records.jsonl").exists() or not _records(out)
        server.release()
        done = creval(*args)
        assert done.returncode == 0, done.stderr
        assert server.created == 1, "the restarted run submitted its requests again"
        resumed = json.loads((out / "scores.json").read_text())["usage"]["this_invocation"]
        # the server ran the old batch's lines, and this invocation collected them
        assert totals(resumed)["requests"] == server.ran == 4
        assert totals(resumed)["output_tokens"] == 4 * 2
        keys = [r["key"] for r in _records(out)]
        assert sorted(keys) == [f"trial-{i:05d}" for i in range(4)]  # every unit once
        assert all(r["status"] == "ok" for r in _records(out))
        # a finished run asks nothing
        again = creval(*args)
        assert again.returncode == 0, again.stderr
        assert server.created == 1 and server.chat == 0
        usage = json.loads((out / "scores.json").read_text())["usage"]["this_invocation"]
        assert usage["units_ok"] == 0 and totals(usage)["requests"] == 0
        assert len(_records(out)) == 4
    finally:
        server.close()


@pytest.mark.parametrize("plan", ["half", "expire"])
def test_failed_or_expired_lines_go_again_alone(plan: str, tmp_path: Path) -> None:
    server = BatchServer([plan])
    try:
        result = _evaluate(server, tmp_path / "run")["dat"]
    finally:
        server.close()
    first = server.custom_ids[0]
    missing = first[1::2] if plan == "half" else first[2:]
    assert server.lines == [4, 2] and server.custom_ids[1] == missing
    assert result.ok and result.scores.units.finished == 4
    usage = totals(result.scores.usage["this_invocation"])
    assert usage["retries"] == 2
    # what the server ran: a line answered with HTTP 500 ran, an expired one did not
    assert usage["requests"] == server.ran == (6 if plan == "half" else 4)
    ledger = read_ledger(tmp_path / "run" / LEDGER)
    again = [r for r in ledger if r["event"] == "submitted"][1]
    assert (again["resubmitted"], again["waited"]) == (2, float(POLL))  # one poll's wait
    ends = [(r["batch_id"], r["status"], len(r["failed"])) for r in ledger if r["event"] == "finished"]
    assert ends == [("batch_0", "completed" if plan == "half" else "expired", 2),
                    ("batch_1", "completed", 0)]


def test_refused_lines_are_unit_errors_with_the_servers_message(tmp_path: Path) -> None:
    server = BatchServer(["bad"])
    out = tmp_path / "run"
    try:
        first = _evaluate(server, out)["dat"]
        assert server.lines == [4]  # a bad request is not asked again in this run
        assert first.scores.units.errors == 2
        assert all("scripted bad request" in e.error and "batch_0" in e.error
                   for e in first.scores.errors)
        again = _evaluate(server, out)["dat"]  # the next run tries them again, alone
    finally:
        server.close()
    assert server.lines == [4, 2] and again.ok


def test_batch_with_a_model_without_a_batch_api_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = creval("run", "dat", "--model", "local", "--batch", "--trials", "2", "--no-progress",
                  "--out", str(out))
    assert done.returncode == 2
    text = " ".join(done.stderr.split())
    assert "--batch needs a model with a batch API; local has none" in text and "openai:" in text
    assert not out.exists()
    with pytest.raises(CrevalError, match="--batch-poll takes seconds above 0"):
        api.evaluate("dat", model="openai:m", base_url="http://127.0.0.1:9/v1", out=out,
                     batch=True, batch_poll=0)
    assert not out.exists()


def _batch_model(server: BatchServer, **options: Any) -> BatchOpenAIModel:
    model = get_model("openai:m", ModelOptions(base_url=server.url, api_key="x", batch=True,
                                               batch_poll=0.02, batch_idle=0.05, **options))
    assert isinstance(model, BatchOpenAIModel)
    return model


def test_lines_are_capped_per_batch_and_the_same_call_is_one_line(server: BatchServer) -> None:
    model = _batch_model(server)
    model.max_lines = 3
    requests = [GenerateRequest.chat(f"word {i}", seed=1) for i in range(7)]

    async def main() -> list[list[str]]:
        try:
            done = await asyncio.gather(*(model.generate(r) for r in [*requests, requests[0]]))
        finally:
            await model.aclose()
        return [[c.text for c in cs] for cs in done]

    texts = asyncio.run(main())
    assert texts == [[f"echo: word {i}"] for i in range(7)] + [["echo: word 0"]]
    assert server.lines == [3, 3, 1]  # the repeated call shared its line


def test_samples_the_server_left_out_go_in_a_further_line(server: BatchServer) -> None:
    model = _batch_model(server)

    async def main() -> list[str]:
        try:
            done = await model.generate(GenerateRequest.chat("hi", n=3, seed=7))
        finally:
            await model.aclose()
        return [c.text for c in done]

    assert asyncio.run(main()) == ["echo: hi"] * 3
    assert server.lines == [1, 1, 1]  # the test server answers one choice per line
    first = json.loads(server.files["file-0"].decode())["body"]
    assert (first["n"], first["seed"]) == (3, 7)


def test_a_failed_batch_is_a_transient_error_with_its_reason(tmp_path: Path) -> None:
    server = BatchServer(["fail"])
    model = _batch_model(server, batch_ledger=tmp_path / LEDGER)

    async def main() -> None:
        try:
            await model.generate(GenerateRequest.chat("hi"))
        finally:
            await model.aclose()

    try:
        with pytest.raises(TransientModelError, match="batch_0 ended failed.*scripted batch failure") as caught:
            asyncio.run(main())
    finally:
        server.close()
    assert "new batch" not in str(caught.value)  # whether it goes again is the runner's call
    assert [r["event"] for r in read_ledger(tmp_path / LEDGER)] == [
        "uploaded", "submitted", "status", "status", "finished"]  # in_progress, then failed


def test_a_batch_created_but_not_written_down_is_found_by_its_input_file(
        server: BatchServer, tmp_path: Path) -> None:
    """A run killed between creating its batch and writing it down: the next run finds the
    batch by the input file the ledger recorded before creating it, and pays once."""
    ledger = tmp_path / LEDGER
    requests = [GenerateRequest.chat(f"word {i}") for i in range(3)]

    async def main(model: BatchOpenAIModel) -> list[str]:
        try:
            done = await asyncio.gather(*(model.generate(r) for r in requests))
        finally:
            await model.aclose()
        return [cs[0].text for cs in done]

    first = asyncio.run(main(_batch_model(server, batch_ledger=ledger)))
    lines = ledger.read_text().splitlines()
    assert json.loads(lines[1])["event"] == "submitted"
    ledger.write_text(lines[0] + "\n")  # only the upload reached the disk
    assert asyncio.run(main(_batch_model(server, batch_ledger=ledger))) == first
    assert server.created == 1
    assert any(r.get("recovered") for r in read_ledger(ledger))
    # an upload of which no batch was made: its requests go again
    ledger.write_text(json.dumps({"event": "uploaded", "input_file_id": "file-none",
                                  "custom_ids": json.loads(lines[0])["custom_ids"],
                                  "time": time.time()}) + "\n")
    assert asyncio.run(main(_batch_model(server, batch_ledger=ledger))) == first
    assert server.created == 2 and server.lines == [3, 3]
    assert [r["event"] for r in read_ledger(ledger)][:2] == ["uploaded", "orphan"]


def test_a_second_turn_goes_in_the_next_batch(server: BatchServer) -> None:
    model = _batch_model(server)

    async def unit(i: int) -> str:
        first = await model.generate(GenerateRequest.chat(f"turn one {i}"))
        second = await model.generate(GenerateRequest.chat(f"after {first[0].text}"))
        return second[0].text

    async def main() -> list[str]:
        try:
            return list(await asyncio.gather(*(unit(i) for i in range(3))))
        finally:
            await model.aclose()

    assert asyncio.run(main()) == [f"echo: after echo: turn one {i}" for i in range(3)]
    assert server.lines == [3, 3]


def test_a_batch_whose_creation_answer_was_lost_is_found_not_sent_again(tmp_path: Path) -> None:
    server = BatchServer(lose_created=1)  # created, then HTTP 500: the runner tries again
    try:
        result = _evaluate(server, tmp_path / "run", trials=3)["dat"]
    finally:
        server.close()
    assert result.ok and server.created == 1 and server.lines == [3]
    events = [r["event"] for r in read_ledger(tmp_path / "run" / LEDGER)]
    assert events[:2] == ["uploaded", "submitted"]
    assert read_ledger(tmp_path / "run" / LEDGER)[1].get("recovered") is True


# --- what a user sees while batches run, and what is counted ----------------------------------

def _cli_args(server: BatchServer, out: Path, *extra: str, trials: int = 4) -> list[str]:
    return ["run", "dat", "--model", "openai:m", "--base-url", server.url, "--api-key", "x",
            "--trials", str(trials), "--batch", "--batch-poll", POLL, "--no-cache",
            "--allow-no-score", "--out", str(out), *extra]  # fmt: skip


def test_each_batch_is_shown_as_it_changes_without_a_terminal(tmp_path: Path) -> None:
    server = BatchServer(["expire"])
    try:
        done = creval(*_cli_args(server, tmp_path / "run"))  # progress on; stderr no terminal
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    said = [line.strip() for line in done.stderr.splitlines()]
    expected = [
        "openai:m: batch batch_0 submitted, 4 lines",
        "openai:m: batch batch_0 in_progress, 0 of 4 lines done, 0 failed",
        "openai:m: batch batch_0 expired, 2 of 4 lines done, 0 failed",
        "openai:m: batch batch_0 ended expired: 2 of 4 lines answered",
        f"openai:m: batch batch_1 submitted, 2 lines (2 sent again after a {POLL} s wait)",
        "openai:m: batch batch_1 ended completed: 2 of 2 lines answered",
    ]
    assert [line for line in said if line in expected] == expected, done.stderr
    usage = json.loads((tmp_path / "run" / "scores.json").read_text())["usage"]["this_invocation"]
    assert totals(usage)["requests"] == server.ran == 4  # 2 of the expired batch, 2 again


def test_a_lasting_refusal_counts_no_request_and_waits_longer_each_time(tmp_path: Path) -> None:
    server = BatchServer(then="refuse")  # every batch refused at validation
    out = tmp_path / "run"
    try:
        done = creval(*_cli_args(server, out, "--retries", "4", trials=2))
    finally:
        server.close()
    assert done.returncode == 1  # the units failed
    assert server.created == 4 and server.lines == [2, 2, 2, 2] and server.ran == 0
    usage = totals(json.loads((out / "scores.json").read_text())["usage"]["this_invocation"])
    assert usage["requests"] == 0 and usage["retries"] == 2 * 3
    submitted = [r for r in read_ledger(out / LEDGER) if r["event"] == "submitted"]
    waits = [r.get("waited", 0.0) for r in submitted]
    poll = float(POLL)
    assert waits == [0.0, poll, 2 * poll, 4 * poll]  # before each resubmission, twice as long
    gaps = [b - a for a, b in zip(server.times, server.times[1:], strict=False)]
    assert all(gap >= wait for gap, wait in zip(gaps, waits[1:], strict=True)), (gaps, waits)
    errors = [json.loads(line)["error"] for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(errors) == 2
    for error in errors:  # the last word is true: the batch that ended it, and why
        assert "batch batch_3 ended failed without this request's answer" in error
        assert "Enqueued token limit reached" in error and "new batch" not in error
    assert "openai:m: batch batch_3 ended failed: 0 of 2 lines answered" in done.stderr


def test_the_wait_before_a_resubmission_has_a_cap(tmp_path: Path) -> None:
    server = BatchServer(then="refuse")
    model = _batch_model(server, batch_ledger=tmp_path / LEDGER)
    model.backoff_cap_polls = 2

    async def main() -> None:
        try:
            for _ in range(4):  # as the runner retries a transient error at once
                with pytest.raises(TransientModelError):
                    await model.generate(GenerateRequest.chat("hi"))
        finally:
            await model.aclose()

    try:
        asyncio.run(main())
    finally:
        server.close()
    waits = [r.get("waited") for r in read_ledger(tmp_path / LEDGER) if r["event"] == "submitted"]
    assert waits == [None, 0.02, 0.04, 0.04]  # poll 0.02: 1, 2, then at most 2 polls
