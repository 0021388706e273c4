"""Real HTTP servers on loopback for tests: OpenAI-style chat completions from a script."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any]], tuple[int, str]]


def echo(body: dict[str, Any]) -> tuple[int, str]:
    return 200, "echo: " + body["messages"][-1]["content"]


class ChatServer:
    """Answers ``POST /v1/chat/completions``. ``script`` holds status codes consumed one per
    request (non-200 answers are errors with Retry-After: 0); then ``reply`` decides."""

    def __init__(self, script: list[int] | None = None, reply: Reply = echo) -> None:
        self.script = list(script or [])
        self.seen = 0
        self.bodies: list[dict[str, Any]] = []
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
                owner.seen += 1
                owner.bodies.append(body)
                status = owner.script.pop(0) if owner.script else 200
                if status != 200:
                    error = {"error": {"message": f"scripted {status}"}}
                    self._send(status, json.dumps(error).encode(), retry=True)
                    return
                status, text = reply(body)
                payload = {
                    "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
                }
                self._send(status, json.dumps(payload).encode())

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
