"""A profile places a measurement beside published models only when it was measured the way
the paper measured it: JCQ at the paper's size, on the paper's questions (recognised by
content), with the paper preset's options, judged by the snapshot gpt-4o-2024-08-06.

Two loopback servers stand in for the models: a "writer" (an OpenAI-compatible endpoint)
answering each JCQ question five times (answers that name their question and index), and a
judge that reports the model id it is told to and answers each judge prompt with the
judgement GPT-4o actually wrote for that answer slot in JCQ-judge's released files
(``../shared/data/jcq/judgements_gpt-4o-2024-08-06``). The run then reproduces the published
judge's scores, so the profile must place it on the published chart and ``creval references
check`` must call it comparable with the released-judgement values; the same answers with
one judge option changed, or judged by an endpoint reporting another snapshot, must not be,
and must say why.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import shutil
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from creval.benchmarks.ttct.questions import JCQ_URL, download_path
from tests._cli import creval
from tests.tests_paths import shared_data_path

MODEL = "Llama-3.1-Swallow-8B-Instruct-v0.1"  # a model of the released judgement files
SLOT = re.compile(r"JCQ-ANSWER (\d+)-(\d+)")


class Server:
    """OpenAI-style chat completions on loopback; ``reply(body, index)`` gives choice i.

    The server runs in a process of its own (forked, so ``reply`` need not be pickled): the
    paper-size runs send ~4,200 requests each, and a server in the test's process took the
    GIL from the client it served, whose every socket send then waited for it (4 ms a send
    under load, ~110 s of this module's time; issue 45). ``reports`` and ``requests`` live in
    shared memory."""

    def __init__(self, reply: Any) -> None:
        ctx = multiprocessing.get_context("fork")
        self._reports = ctx.Array("c", 128)  # b"": the model id asked for
        self._requests = ctx.Value("l", 0)
        here, there = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(reply, self._reports, self._requests, there),
                                   daemon=True)
        self.process.start()
        there.close()
        if not here.poll(60):
            self.close()
            raise RuntimeError("the loopback server did not start")
        self.url = f"http://127.0.0.1:{here.recv()}/v1"
        here.close()

    @property
    def requests(self) -> int:
        return int(self._requests.value)

    @property
    def reports(self) -> str | None:
        """The model id the endpoint reports (None: the one asked for)."""
        return self._reports.value.decode() or None

    @reports.setter
    def reports(self, model: str | None) -> None:
        self._reports.value = (model or "").encode()

    def close(self) -> None:
        self.process.terminate()
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def _serve(reply: Any, reports: Any, requests: Any, conn: Any) -> None:
    """The server's process: answers until terminated."""

    class Handler(BaseHTTPRequestHandler):
        # keep-alive: the paper-size runs send ~4,200 requests each; a connection (and a
        # server thread) per request was most of this module's time
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            self._send({"object": "list", "data": []})

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            with requests.get_lock():
                requests.value += 1
            choices = [{"index": i, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": reply(body, i)}}
                       for i in range(int(body.get("n") or 1))]
            self._send({"id": "x", "object": "chat.completion", "created": 0,
                        "model": reports.value.decode() or body["model"], "choices": choices,
                        "usage": {"prompt_tokens": 5, "completion_tokens": 5,
                                  "total_tokens": 10}})

        def _send(self, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    conn.send(httpd.server_address[1])
    conn.close()
    httpd.serve_forever()


@pytest.fixture(scope="module")
def jcq_files() -> tuple[Path, dict[int, str]]:
    questions = shared_data_path("jcq", "test.jsonl")
    judged = shared_data_path("jcq", "judgements_gpt-4o-2024-08-06", f"{MODEL}.jsonl")
    lines = [json.loads(x) for x in judged.read_text(encoding="utf-8").splitlines() if x.strip()]
    return questions, {int(x["answer_id"]): x["judgement"] for x in lines}


def jcq_servers(questions: Path, judgements: dict[int, str]) -> tuple[Server, Server]:
    """A writer that answers each JCQ question with a token naming it and the answer's index,
    and a judge that serves the released judgement of that answer (answer id = (question id
    - 1) * 5 + index + 1)."""
    ids = {json.loads(x)["question"]: json.loads(x)["id"]
           for x in questions.read_text(encoding="utf-8").splitlines() if x.strip()}

    def write(body: dict[str, Any], index: int) -> str:
        return f"JCQ-ANSWER {ids[body['messages'][-1]['content']]}-{index}"

    def judge(body: dict[str, Any], index: int) -> str:
        found = SLOT.search(body["messages"][-1]["content"])
        assert found, "the judge prompt carries the answer"
        qid, k = int(found.group(1)), int(found.group(2))
        return judgements[(qid - 1) * 5 + k + 1]

    return Server(write), Server(judge)


@pytest.fixture(scope="module")
def servers(jcq_files: tuple[Path, dict[int, str]]) -> Iterator[tuple[Server, Server]]:
    writer, judge_server = jcq_servers(*jcq_files)
    yield writer, judge_server
    writer.close()
    judge_server.close()


def _jcq(profile: Path) -> dict[str, Any]:
    doc = json.loads((profile / "profile.json").read_text())
    [fam] = doc["families"]
    return next(m for m in fam["measurements"] if m["benchmark"] == "jcq" and m["key"] == "mean")


def _check(path: Path) -> list[dict[str, Any]]:
    done = creval("references", "check", str(path), "--json")
    assert done.returncode == 0, done.stderr
    return [c for c in json.loads(done.stdout) if c["benchmark"] == "jcq"]


@pytest.mark.unverified_runs("moves the questions file and serves it from a loopback URL gone by the "
                              "end: replay cannot read what those runs read")
def test_the_paper_preset_is_comparable_and_a_changed_judge_option_or_snapshot_is_not(
    tmp_path: Path, servers: tuple[Server, Server], jcq_files: tuple[Path, dict[int, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer, judge = servers
    questions, _ = jcq_files
    common = ["--size", "paper", "--lang", "ja", "--only", "jcq", "--no-progress", "--preset",
              "paper", "--set", f"jcq.questions={questions}", "--judge-base-url", judge.url,
              "--concurrency", "32"]
    key = {"OPENAI_API_KEY": "sk-test"}
    recorded = tmp_path / "recorded"
    judge.reports = "gpt-4o-2024-08-06"
    done = creval("profile", "--model", "openai:swallow-8b", "--base-url", writer.url,
                  "--out", str(recorded), *common, env=key)
    assert done.returncode == 0, done.stdout + done.stderr
    mean = _jcq(recorded)
    ours = [r for r in mean["references"] if r["subject"] == MODEL]
    assert ours and all(r["comparable"] for r in ours), ours
    # the released judgements reproduce the published mean of the same model
    assert mean["value"] == pytest.approx(ours[0]["value"], abs=0.01)
    assert mean["n"] and mean["low"] < mean["value"] < mean["high"]
    checks = _check(recorded)
    released = [c for c in checks if c["protocol"] == "jcq-released-judgements"]
    assert released and all(c["comparable"] and c["reasons"] == [] for c in released)
    assert {c["measure"] for c in released} == {"mean", "fluency", "flexibility", "originality",
                                                "elaboration"}
    assert set(checks[0]) >= {"subject", "protocol", "measure", "value", "comparable", "reasons"}
    # Table 3 and the released judgements name the same models: each counted once (22, not 27)
    doc = json.loads((recorded / "profile.json").read_text())
    standing = next(line for line in doc["summary"]["standing"] if line.startswith("TTCT rubric mean"))
    assert " of 22 published" in standing and "jcq-released-judgements" in standing
    html = (recorded / "profile.html").read_text()
    assert "Among published models measured the same way (22)" in html
    assert "taken as inferred" in html  # the protocol values the paper does not print
    run_report = (recorded / "jcq" / "report.md").read_text()
    assert "## Published values of these measures" in run_report  # every measure, not only mean
    assert creval("verify", str(recorded)).returncode == 0  # its files agree with its records

    # the paper's questions in another byte form, and given as the URL (its download in the
    # cache): the paper's data, checked from another directory and cache after the file moved
    rows = [json.loads(x) for x in questions.read_text(encoding="utf-8").splitlines() if x.strip()]
    other = tmp_path / "elsewhere" / "questions.jsonl"
    other.parent.mkdir()
    other.write_bytes(("\r\n".join(json.dumps(r, separators=(", ", ": "), ensure_ascii=False)
                                   for r in rows[::-1]) + "\r\n").encode("utf-8"))
    download_path(JCQ_URL).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(questions, download_path(JCQ_URL))
    for name, given in (("reordered", str(other)), ("url", JCQ_URL)):
        done = creval("run", "jcq", "--model", "openai:swallow-8b", "--base-url", writer.url,
                      "--preset", "paper", "--judge-base-url", judge.url, "--questions", given,
                      "--concurrency", "32", "--no-progress", "--out", str(tmp_path / name), env=key)
        assert done.returncode == 0, done.stdout + done.stderr
    other.rename(tmp_path / "moved.jsonl")
    monkeypatch.chdir(tmp_path / "elsewhere")
    for name in ("reordered", "url"):
        done = creval("references", "check", str(tmp_path / name), "--json",
                      env={"CREVAL_CACHE_DIR": str(tmp_path / "another-cache")})
        assert done.returncode == 0, done.stderr
        found = [c for c in json.loads(done.stdout) if c["protocol"] == "jcq-released-judgements"]
        assert found and all(c["comparable"] and c["reasons"] == [] for c in found), (name, found)

    # one judge option changed, the same answers replayed: not comparable, and says which
    changed = tmp_path / "changed"
    done = creval("profile", "--model", f"replay:{recorded}", "--out", str(changed), *common,
                  "--set", "jcq.judge_max_tokens=48", env=key)
    assert done.returncode == 0, done.stdout + done.stderr
    checks = _check(changed)
    assert checks and not any(c["comparable"] for c in checks)
    assert {tuple(c["reasons"]) for c in checks} == {("judge_max_tokens=48, the paper used 64",)}
    assert "Among published models measured the same way" not in (changed / "profile.html").read_text()

    # the alias asked for, another snapshot answering: off the chart, with the snapshot said
    judge.reports = "gpt-4o-2024-11-20"
    moved = tmp_path / "moved"
    done = creval("profile", "--model", f"replay:{recorded}", "--judge", "openai:gpt-4o",
                  "--out", str(moved), *common, env=key)
    assert done.returncode == 0, done.stdout + done.stderr
    checks = _check(moved)
    assert checks and not any(c["comparable"] for c in checks)
    assert all(any("judge answered as gpt-4o-2024-11-20" in w for w in c["reasons"]) for c in checks)

    # 90% of the judgements unparsed (every odd question's, and all but the first answer of
    # the even ones'): the value rests on 350 questions, not the 700 that finished
    def garbled(body: dict[str, Any], index: int) -> str:
        found = SLOT.search(body["messages"][-1]["content"])
        assert found, "the judge prompt carries the answer"
        qid, k = int(found.group(1)), int(found.group(2))
        return "流暢性: 3\n柔軟性: 4\n独創性: 2\n精緻性: 3" if qid % 2 == 0 and k == 0 else "No."

    unparsed = Server(garbled)
    unparsed.reports = "gpt-4o-2024-08-06"
    try:
        sparse = tmp_path / "sparse"
        done = creval("profile", "--model", f"replay:{recorded}", "--out", str(sparse),
                      *[a if a != judge.url else unparsed.url for a in common], env=key)
    finally:
        unparsed.close()
    assert done.returncode == 0, done.stdout + done.stderr
    checks = _check(sparse)
    assert checks and not any(c["comparable"] for c in checks)
    assert all("350 items behind the value (questions with a parsed judgement; 350 of 3500 "
               "judgements parsed), the paper measured 700" in c["reasons"] for c in checks)
    doc = json.loads((sparse / "profile.json").read_text())
    standing = next(line for line in doc["summary"]["standing"] if line.startswith("TTCT rubric mean"))
    assert "not placed among published values" in standing and " above " not in standing, standing
    assert "3150 answer(s) did not parse" in " ".join(doc["summary"]["weak"])
    assert _jcq(sparse)["items"] == {"valid": 350, "finished": 700, "planned": 700,
                                     "what": "questions with a parsed judgement",
                                     "detail": "350 of 3500 judgements parsed"}
