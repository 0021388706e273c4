"""A loopback server of the OpenAI files and batches endpoints, for ``--batch`` tests.

Real HTTP on 127.0.0.1: ``POST /v1/files`` (multipart upload), ``GET /v1/files/{id}/content``,
``POST /v1/batches``, ``GET /v1/batches/{id}``, ``GET /v1/batches``, ``GET /v1/models`` and ``POST
/v1/chat/completions`` (answered as :class:`_servers.ChatServer` answers, so the batch and
the direct paths can be compared). A batch is ``validating`` when created, ``in_progress``
at its first poll and ends after ``polls`` polls (or when :meth:`BatchServer.release` is
called, with ``hold``). ``plan`` scripts how each created batch ends, in order:

* ``ok``: every line answered;
* ``half``: every second line fails with HTTP 500 (error file);
* ``bad``: every second line is refused with HTTP 400 (error file);
* ``expire``: the batch expires with its first half answered, the rest in no file;
* ``fail``: the batch fails (no line answered);
* ``refuse``: the batch fails at its first poll, while validating, as OpenAI refuses a batch
  beyond the enqueued-token limit (no line run).

Batches beyond ``plan`` end as ``then`` says (``ok``; ``then="refuse"`` is a lasting
refusal).

With ``lose_created=k`` the first k batch creations answer HTTP 500 after creating the
batch (an answer lost on the way). It counts what it was sent: ``created`` (batches),
``lines`` (lines per batch, in order), ``times`` (``time.monotonic()`` of each creation),
``ran`` (lines it ran: answered or failed with an HTTP status) and ``chat`` (direct
chat-completions requests).
"""

from __future__ import annotations

import json
import threading
import time
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from _servers import Reply, echo


def chat_completion(body: dict[str, Any], reply: Reply) -> tuple[int, dict[str, Any]]:
    """The status and chat completion that :class:`_servers.ChatServer` sends for ``body``."""
    status, text = reply(body)
    return status, {
        "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }


def multipart_fields(content_type: str, data: bytes) -> dict[str, bytes]:
    """The fields of a ``multipart/form-data`` body by name."""
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + data)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[str(name)] = part.get_payload(decode=True) or b""
    return fields


class BatchServer:
    """The scripted files and batches endpoints (see the module's text)."""

    def __init__(self, plan: list[str] | None = None, *, polls: int = 3, hold: bool = False,
                 reply: Reply = echo, lose_created: int = 0, then: str = "ok") -> None:
        self.plan = list(plan or [])
        self.then = then
        #: how many batch creations answer HTTP 500 although the batch was created
        self.lose_created = lose_created
        self.polls = polls
        self.hold = hold
        self.reply = reply
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.created = 0
        self.lines: list[int] = []
        self.times: list[float] = []
        self.ran = 0
        self.custom_ids: list[list[str]] = []
        self.chat = 0
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any, raw: bool = False) -> None:
                data = payload if raw else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/octet-stream" if raw else "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("content-length", 0)))

            def do_GET(self) -> None:  # noqa: N802
                parts = self.path.split("?")[0].strip("/").split("/")  # v1, files|batches|models, ...
                with owner.lock:
                    if parts[1:2] == ["files"] and len(parts) == 4 and parts[2] in owner.files:
                        self._send(200, owner.files[parts[2]], raw=True)
                    elif parts[1:2] == ["batches"] and len(parts) == 3 and parts[2] in owner.batches:
                        self._send(200, owner._poll(parts[2]))
                    elif parts[1:] == ["batches"]:  # newest first, as OpenAI lists them
                        data = [owner._public(b) for b in reversed(owner.batches)]
                        self._send(200, {"object": "list", "data": data, "has_more": False})
                    elif parts[1:2] == ["models"]:
                        self._send(200, {"object": "list", "data": []})
                    else:
                        self._send(404, {"error": {"message": f"no {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                data = self._body()
                with owner.lock:
                    if self.path.endswith("/files"):
                        fields = multipart_fields(self.headers["content-type"], data)
                        assert fields["purpose"] == b"batch", fields.get("purpose")
                        file_id = f"file-{len(owner.files)}"
                        owner.files[file_id] = fields["file"]
                        self._send(200, {"id": file_id, "object": "file", "bytes": len(fields["file"]),
                                         "created_at": 0, "filename": "batch.jsonl",
                                         "purpose": "batch", "status": "processed"})
                    elif self.path.endswith("/batches"):
                        created = owner._create(json.loads(data))
                        if owner.lose_created > 0:  # made, but the answer is lost
                            owner.lose_created -= 1
                            self._send(500, {"error": {"message": "scripted lost answer"}})
                        else:
                            self._send(200, created)
                    elif self.path.endswith("/chat/completions"):
                        owner.chat += 1
                        self._send(*chat_completion(json.loads(data), owner.reply))
                    else:
                        self._send(404, {"error": {"message": f"no {self.path}"}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    # -- state (under the lock) -----------------------------------------------------------------
    def _create(self, params: dict[str, Any]) -> dict[str, Any]:
        assert params["completion_window"] == "24h" and params["endpoint"] == "/v1/chat/completions"
        lines = [json.loads(x) for x in self.files[params["input_file_id"]].decode().splitlines()]
        ids = [line["custom_id"] for line in lines]
        assert len(set(ids)) == len(ids), "duplicate custom_id in one batch"
        assert all(x["method"] == "POST" and x["url"] == "/v1/chat/completions" for x in lines)
        batch_id = f"batch_{self.created}"
        self.created += 1
        self.lines.append(len(lines))
        self.times.append(time.monotonic())
        self.custom_ids.append(ids)
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": params["endpoint"], "errors": None,
            "input_file_id": params["input_file_id"], "completion_window": "24h",
            "status": "validating", "output_file_id": None, "error_file_id": None,
            "created_at": int(time.time()), "metadata": params.get("metadata"),
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "_lines": lines, "_plan": self.plan.pop(0) if self.plan else self.then, "_polls": 0,
        }
        return self._public(batch_id)

    def _public(self, batch_id: str) -> dict[str, Any]:
        return {k: v for k, v in self.batches[batch_id].items() if not k.startswith("_")}

    def _poll(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        if batch["status"] == "validating" and batch["_plan"] == "refuse":
            self._finish(batch)
        elif batch["status"] in ("validating", "in_progress"):
            batch["_polls"] += 1
            batch["status"] = "in_progress"
            if batch["_polls"] >= self.polls and not self.hold:
                self._finish(batch)
        return self._public(batch_id)

    def _finish(self, batch: dict[str, Any]) -> None:
        plan, lines = batch["_plan"], batch["_lines"]
        out, err = [], []
        for i, line in enumerate(lines):
            cid = line["custom_id"]
            if plan in ("fail", "refuse") or (plan == "expire" and i >= len(lines) // 2):
                continue
            self.ran += 1
            if plan in ("half", "bad") and i % 2 == 1:
                code = 500 if plan == "half" else 400
                message = "scripted server error" if code == 500 else "scripted bad request"
                err.append({"id": f"r{i}", "custom_id": cid, "error": None, "response": {
                    "status_code": code, "request_id": f"q{i}",
                    "body": {"error": {"message": message, "type": "x", "code": None}}}})
                continue
            status, completion = chat_completion(line["body"], self.reply)
            out.append({"id": f"r{i}", "custom_id": cid, "error": None, "response": {
                "status_code": status, "request_id": f"q{i}", "body": completion}})
        batch["status"] = {"expire": "expired", "fail": "failed", "refuse": "failed"}.get(plan, "completed")
        if plan == "fail":
            batch["errors"] = {"object": "list", "data": [
                {"code": "scripted", "message": "scripted batch failure", "line": None, "param": None}]}
        if plan == "refuse":
            batch["errors"] = {"object": "list", "data": [
                {"code": "token_limit_exceeded", "line": None, "param": None,
                 "message": "Enqueued token limit reached for m (scripted)."}]}
        for rows, key in ((out, "output_file_id"), (err, "error_file_id")):
            if rows:
                file_id = f"file-{len(self.files)}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[key] = file_id
        batch["request_counts"] = {"total": len(lines), "completed": len(out), "failed": len(err)}

    def release(self) -> None:
        """End the held batches at their next poll."""
        with self.lock:
            self.hold = False

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
