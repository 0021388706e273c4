"""A profile places a measurement beside published models only when it was measured the way
the paper measured it: JCQ at the paper's size, on the paper's questions, judged by GPT-4o.

Two loopback servers stand in for the models: a "writer" answering each JCQ question five
times (answers that name their question and index), and a judge that answers each judge
prompt with the judgement GPT-4o actually wrote for that answer slot in JCQ-judge's released
files (``../shared/data/jcq/judgements_gpt-4o-2024-08-06``). The run then reproduces the
published judge's scores, so the profile must place it on the published chart; the same
answers judged by another model must be taken off it, with the reason.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests._cli import creval
from tests.tests_paths import shared_data_path

MODEL = "Llama-3.1-Swallow-8B-Instruct-v0.1"  # a model of the released judgement files
SLOT = re.compile(r"JCQ-ANSWER (\d+)-(\d+)")


class Server:
    """OpenAI-style chat completions on loopback; ``reply(body, index)`` gives choice i."""

    def __init__(self, reply: Any) -> None:
        owner = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                self._send({"object": "list", "data": []})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                owner.requests += 1
                choices = [{"index": i, "finish_reason": "stop",
                            "message": {"role": "assistant", "content": reply(body, i)}}
                           for i in range(int(body.get("n") or 1))]
                self._send({"id": "x", "object": "chat.completion", "created": 0,
                            "model": body["model"], "choices": choices,
                            "usage": {"prompt_tokens": 5, "completion_tokens": 5,
                                      "total_tokens": 10}})

            def _send(self, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def jcq_files() -> tuple[Path, dict[int, str]]:
    questions = shared_data_path("jcq", "test.jsonl")
    judged = shared_data_path("jcq", "judgements_gpt-4o-2024-08-06", f"{MODEL}.jsonl")
    lines = [json.loads(x) for x in judged.read_text(encoding="utf-8").splitlines() if x.strip()]
    return questions, {int(x["answer_id"]): x["judgement"] for x in lines}


@pytest.fixture(scope="module")
def servers(jcq_files: tuple[Path, dict[int, str]]) -> Iterator[tuple[Server, Server]]:
    questions, judgements = jcq_files
    ids = {json.loads(x)["question"]: json.loads(x)["id"]
           for x in questions.read_text(encoding="utf-8").splitlines() if x.strip()}

    def write(body: dict[str, Any], index: int) -> str:
        return f"JCQ-ANSWER {ids[body['messages'][-1]['content']]}-{index}"

    def judge(body: dict[str, Any], index: int) -> str:
        found = SLOT.search(body["messages"][-1]["content"])
        assert found, "the judge prompt carries the answer"
        qid, k = int(found.group(1)), int(found.group(2))
        return judgements[(qid - 1) * 5 + k + 1]

    writer, judge_server = Server(write), Server(judge)
    yield writer, judge_server
    writer.close()
    judge_server.close()


def _jcq(profile: Path) -> dict[str, Any]:
    doc = json.loads((profile / "profile.json").read_text())
    [fam] = doc["families"]
    return next(m for m in fam["measurements"] if m["benchmark"] == "jcq" and m["key"] == "mean")


def test_paper_protocol_is_placed_and_another_judge_is_not(
    tmp_path: Path, servers: tuple[Server, Server], jcq_files: tuple[Path, dict[int, str]],
) -> None:
    writer, judge = servers
    questions, _ = jcq_files
    common = ["--size", "paper", "--lang", "ja", "--only", "jcq", "--no-progress",
              "--set", f"jcq.questions={questions}", "--set", "jcq.parser=upstream",
              "--judge-base-url", judge.url, "--concurrency", "32"]
    recorded = tmp_path / "recorded"
    done = creval("profile", "--model", "openai:swallow-8b", "--base-url", writer.url,
                  "--judge", "openai:gpt-4o-2024-08-06", "--out", str(recorded), *common)
    assert done.returncode == 0, done.stdout + done.stderr
    mean = _jcq(recorded)
    published = {r["subject"]: r for r in mean["references"]}
    ours = [r for r in mean["references"] if MODEL.lower() in r["subject"].lower()
            or "swallow" in r["subject"].lower()]
    assert ours, f"no published Swallow value among {sorted(published)}"
    placed = [r for r in mean["references"] if r["comparable"]]
    assert placed, sorted({r["reason"] for r in mean["references"]})
    assert all(r["reason"] is None for r in placed)
    # the released judgements reproduce the published mean of the same model
    computed = next(r for r in ours if r["comparable"])
    assert mean["value"] == pytest.approx(computed["value"], abs=0.01)
    assert mean["n"] and mean["low"] < mean["value"] < mean["high"]
    html = (recorded / "profile.html").read_text()
    assert "Among published models measured the same way" in html

    # the paper's preset judges a replay of the same answers: still placed
    preset = tmp_path / "preset"
    done = creval("profile", "--model", f"replay:{recorded}", "--preset", "paper",
                  "--out", str(preset), *common, env={"OPENAI_API_KEY": "sk-test"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(r["comparable"] for r in _jcq(preset)["references"])

    # another judge over the very same answers: off the chart, with the reason
    other = tmp_path / "other-judge"
    done = creval("profile", "--model", f"replay:{recorded}", "--judge", "openai:gpt-4o-mini",
                  "--out", str(other), *common)
    assert done.returncode == 0, done.stdout + done.stderr
    refs = _jcq(other)["references"]
    assert refs and not any(r["comparable"] for r in refs)
    assert all("judge" in r["reason"] for r in refs if r["protocol"] == computed["protocol"])
    assert "Among published models measured the same way" not in (other / "profile.html").read_text()
