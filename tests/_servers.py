"""Real HTTP servers on loopback for tests: OpenAI-style chat completions from a script."""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Reply = Callable[[dict[str, Any]], tuple[int, str]]


def echo(body: dict[str, Any]) -> tuple[int, str]:
    return 200, "echo: " + body["messages"][-1]["content"]


#: What a reasoning endpoint (``ChatServer(reasoning=True)``) does not take, as OpenAI's
#: reasoning models answer it: HTTP 400 naming the parameter.
REJECTED = ("max_tokens", "temperature", "top_p")
#: Reasoning tokens a reasoning endpoint reports per answer (of its completion tokens).
REASONING_TOKENS = 7


def rejection(name: str) -> dict[str, Any]:
    """OpenAI's 400 body for a parameter a reasoning model does not take."""
    hint = " Use 'max_completion_tokens' instead." if name == "max_tokens" else ""
    return {"error": {"message": f"Unsupported parameter: '{name}' is not supported with this "
                                 f"model.{hint}", "type": "invalid_request_error",
                      "param": name, "code": "unsupported_parameter"}}


class ChatServer:
    """Answers ``POST /v1/chat/completions``. ``script`` holds status codes consumed one per
    request (non-200 answers are errors with Retry-After: 0); then ``reply`` decides.

    With ``slots``, at most that many chat requests are worked on at once, each for
    ``delay`` seconds, the others wait their turn: a llama.cpp server with one slot. Like
    llama-cpp-python's server, it finishes a request whose client has gone (timed out) before
    taking the next; ``abandoned`` counts those, ``most_waiting`` the longest queue seen.

    ``reasoning=True`` behaves as a reasoning model's endpoint: a request carrying a
    parameter of :data:`REJECTED` is answered HTTP 400 naming it (counted in ``rejected``),
    and each answer comes with ``reasoning_content`` (``"Reasoning: ..."``, never the
    answer) and ``usage.completion_tokens_details.reasoning_tokens``.
    """

    def __init__(self, script: list[int] | None = None, reply: Reply = echo, *,
                 slots: int | None = None, delay: float = 0.0,
                 reasoning: bool = False) -> None:
        self.script = list(script or [])
        #: the model id the answers report: None, the one asked for (as OpenAI-compatible
        #: servers do); "", none at all (no ``model`` field); else this id
        self.reports: str | None = None
        self.seen = 0
        self.bodies: list[dict[str, Any]] = []
        self.abandoned = 0
        self.waiting = self.most_waiting = 0
        slot = threading.BoundedSemaphore(slots) if slots else None
        lock = threading.Lock()
        self.rejected: dict[str, int] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: bytes, retry: bool = False) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                if retry:
                    self.send_header("retry-after", "0")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:  # noqa: N802
                self._send(200, json.dumps({"object": "list", "data": []}).encode())

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if slot is None:
                    self._answer(body)
                    return
                with lock:
                    owner.waiting += 1
                    owner.most_waiting = max(owner.most_waiting, owner.waiting)
                with slot:
                    with lock:
                        owner.waiting -= 1
                    time.sleep(delay)  # the work, done whether the client still waits or not
                    try:
                        if not self._gone():
                            self._answer(body)
                            return
                    except OSError:  # it went while the answer was written
                        pass
                    with lock:
                        owner.abandoned += 1

            def _gone(self) -> bool:
                """Whether the client closed the connection (it timed out)."""
                readable, _, _ = select.select([self.connection], [], [], 0)
                try:
                    return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    return True

            def _answer(self, body: dict[str, Any]) -> None:
                owner.seen += 1
                owner.bodies.append(body)
                status = owner.script.pop(0) if owner.script else 200
                if status != 200:
                    error = {"error": {"message": f"scripted {status}"}}
                    self._send(status, json.dumps(error).encode(), retry=True)
                    return
                refused = [n for n in REJECTED if n in body] if reasoning else []
                if refused:
                    owner.rejected[refused[0]] = owner.rejected.get(refused[0], 0) + 1
                    self._send(400, json.dumps(rejection(refused[0])).encode())
                    return
                status, text = reply(body)
                message: dict[str, Any] = {"role": "assistant", "content": text}
                usage: dict[str, Any] = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
                if reasoning:
                    message["reasoning_content"] = f"Reasoning: {len(text)} characters to write."
                    usage = {"prompt_tokens": 3, "completion_tokens": 2 + REASONING_TOKENS,
                             "total_tokens": 5 + REASONING_TOKENS,
                             "completion_tokens_details": {"reasoning_tokens": REASONING_TOKENS}}
                reported = {"model": body["model"] if owner.reports is None else owner.reports}
                payload = {
                    "id": "x", "object": "chat.completion", "created": 0,
                    **({} if owner.reports == "" else reported),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": usage,
                }
                self._send(status, json.dumps(payload).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def scripted_dat_run(out: Path, name: str, texts: list[str], *extra: str, trials: int,
                     exit_codes: tuple[int, ...] = (0,)) -> Path:
    """A small DAT run in ``out/name`` of ``openai:name``, a scripted model answering
    ``texts`` in turn (from the second), through the command line; ``extra`` more options."""
    from _cli import creval

    state = {"i": 0}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        state["i"] += 1
        return 200, texts[state["i"] % len(texts)]

    server = ChatServer(reply=reply)
    try:
        done = creval("run", "dat", "--model", f"openai:{name}", "--base-url", server.url,
                      "--trials", str(trials), "--no-progress", "--out", str(out / name), *extra)
    finally:
        server.close()
    assert done.returncode in exit_codes, done.stderr
    return out / name


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` on the packaged SmolLM2 GGUF, on loopback.

    Started by the caller and stopped by :meth:`stop` (by its PID); never waited on.
    """

    def __init__(self, log: Path, port: int | None = None) -> None:
        from creval.models.local import default_model_path

        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        cmd = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(default_model_path()),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", "2048", "--logits_all", "True", "--verbose", "False",
            # one thread for prompts too: two spinning threads crawl when the CPUs are busy
            "--n_threads", "1", "--n_threads_batch", "1",
        ]
        with log.open("ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not answer: {self.tail()}")
            time.sleep(0.25)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-2000:]

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=15)


def novelty_pair(text: str) -> tuple[str, str] | None:
    """The two answers of a NoveltyBench judge's same-or-different question (the last user
    message), or None for any other prompt (a rating, the tested model's turn)."""
    if "Answer A:" not in text:
        return None
    a, rest = text.split("Answer A:\n")[1].split("\n\nAnswer B:\n")
    return a, rest.split("\n\nAre Answer A")[0]


def novelty_same(text: str) -> str | None:
    """A NoveltyBench judge that calls two answers the same when they are equal: ``same`` or
    ``different``, or None when ``text`` is not a same-or-different question."""
    pair = novelty_pair(text)
    return None if pair is None else ("same" if pair[0] == pair[1] else "different")
