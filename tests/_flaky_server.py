"""A flaky OpenAI-compatible chat server on loopback, in a process of its own (the soak's).

``POST /v1/chat/completions`` answers from the request alone (:func:`answer_for`), so any
answer can be checked, and fails a seeded share of requests the ways real endpoints do: a
503, a 429 with ``Retry-After``, a connection closed without a response (``drop``), and a
stall longer than the client's timeout. Whether attempt ``a`` of a request fails is decided
by a hash of (seed, request, a), and only its first ``max_failures`` attempts can fail, so
every request succeeds within a retry policy of ``max_failures + 1`` attempts, whatever the
interleaving. The server counts requests per unit key (``unit=KEY`` in the first message)
and failures by kind; ``GET /soak/stats`` returns them.

It is plain asyncio (uvloop when installed) with a hand-written HTTP/1.1 keep-alive loop,
not an ASGI app: dropping a connection without a response needs the socket, and this way
one process keeps up with concurrency 64. Start it with :func:`start_flaky_server`, which
runs ``python _flaky_server.py --port ...`` and returns once it answers. :class:`RayHead` is
the local Ray cluster the soak's drivers connect to under ``--executor ray``.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

KINDS = ("503", "429", "drop", "stall")
_UNIT = re.compile(r"unit=(\w+)")


def answer_for(messages: list[dict[str, Any]]) -> str:
    """The answer to a chat: a digest of its roles and contents (what the soak checks).

    >>> answer_for([{"role": "user", "content": "hi"}])
    'ans-675b797826f34c78'
    >>> answer_for([{"role": "user", "content": "hi"}]) == answer_for([{"role": "user", "content": "ho"}])
    False
    """
    text = json.dumps([[m.get("role"), m.get("content")] for m in messages], ensure_ascii=False)
    return "ans-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def fault(seed: int, request: str, attempt: int, shares: dict[str, float], max_failures: int) -> str | None:
    """The failure of attempt ``attempt`` (0-based) of ``request``, or None to answer it.

    >>> shares = {"503": 0.5, "429": 0.5}
    >>> fault(0, "r", 2, shares, max_failures=2) is None  # attempts past max_failures answer
    True
    >>> fault(0, "r", 0, shares, 2) in ("503", "429")
    True
    >>> fault(0, "r", 0, {"503": 0.0}, 2) is None
    True
    """
    if attempt >= max_failures:
        return None
    h = hashlib.sha256(f"{seed}:{request}:{attempt}".encode()).digest()
    u = int.from_bytes(h[:8], "big") / 2**64
    edge = 0.0
    for kind in KINDS:
        edge += shares.get(kind, 0.0)
        if u < edge:
            return kind
    return None


@dataclass
class FlakyState:
    """What the server decides with and what it has seen."""

    seed: int = 0
    shares: dict[str, float] = field(default_factory=dict)
    max_failures: int = 2
    retry_after: float = 0.05
    stall: float = 3.0
    attempts: Counter[str] = field(default_factory=Counter)  # request digest -> attempts seen
    per_key: Counter[str] = field(default_factory=Counter)  # unit key -> requests seen
    injected: Counter[str] = field(default_factory=Counter)  # failure kind -> count
    answered: int = 0

    def stats(self) -> dict[str, Any]:
        return {
            "requests": sum(self.per_key.values()), "answered": self.answered,
            "injected": {k: self.injected.get(k, 0) for k in KINDS},
            "per_key": dict(self.per_key),
        }


def _response(status: int, payload: Any, headers: dict[str, str] | None = None) -> bytes:
    body = json.dumps(payload).encode()
    reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 503: "Service Unavailable"}
    head = [f"HTTP/1.1 {status} {reason.get(status, 'Error')}", "content-type: application/json",
            f"content-length: {len(body)}"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def _chat(state: FlakyState, body: dict[str, Any]) -> tuple[str | None, bytes]:
    """The failure to inject (or None) and the response to send (unused for drop, stall)."""
    messages = body.get("messages") or []
    first = str(messages[0].get("content", "")) if messages else ""
    match = _UNIT.search(first)
    state.per_key[match.group(1) if match else "?"] += 1
    request = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    attempt = state.attempts[request]
    state.attempts[request] += 1
    kind = fault(state.seed, request, attempt, state.shares, state.max_failures)
    if kind is not None:
        state.injected[kind] += 1
    if kind == "503":
        return kind, _response(503, {"error": {"message": "injected 503"}})
    if kind == "429":
        return kind, _response(429, {"error": {"message": "injected 429"}},
                               {"retry-after": f"{state.retry_after:g}"})
    if kind is not None:
        return kind, b""
    state.answered += 1
    return None, _response(200, {
        "id": f"soak-{state.answered}", "object": "chat.completion", "created": 0,
        "model": body.get("model", "soak"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": answer_for(messages)}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    })


async def _serve_connection(state: FlakyState, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            lines = head.decode("latin-1").split("\r\n")
            method, path = lines[0].split(" ")[:2]
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            data = await reader.readexactly(length) if length else b""
            if method == "POST" and path.endswith("/chat/completions"):
                kind, out = _chat(state, json.loads(data or b"{}"))
                if kind == "drop":
                    return  # closed in finally: no response at all
                if kind == "stall":
                    await asyncio.sleep(state.stall)  # the client has given up by now
                    return
            elif path.endswith("/models"):
                out = _response(200, {"object": "list", "data": [{"id": "soak", "object": "model"}]})
            elif path == "/soak/stats":
                out = _response(200, state.stats())
            else:
                out = _response(404, {"error": {"message": f"no route {path}"}})
            writer.write(out)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        writer.close()


async def serve(port: int, state: FlakyState) -> None:
    """Serve on 127.0.0.1:``port`` until killed."""
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(state, r, w), "127.0.0.1", port, backlog=2048
    )
    async with server:
        await server.serve_forever()


class FlakyServer:
    """The server process; :meth:`stats` asks it what it saw, :meth:`stop` ends it (by PID)."""

    def __init__(self, proc: subprocess.Popen[bytes], port: int) -> None:
        self.proc = proc
        self.port = port
        self.url = f"http://127.0.0.1:{port}/v1"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/soak/stats", timeout=30) as r:
            value: dict[str, Any] = json.loads(r.read())
        return value

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_flaky_server(*, seed: int = 0, shares: dict[str, float] | None = None,
                       max_failures: int = 2, retry_after: float = 0.05,
                       stall: float = 3.0) -> FlakyServer:
    """Start the server in a process of its own; return once it answers."""
    shares = {"503": 0.04, "429": 0.04, "drop": 0.02, "stall": 0.005} if shares is None else shares
    port = _free_port()
    cmd = [sys.executable, __file__, "--port", str(port), "--seed", str(seed),
           "--max-failures", str(max_failures), "--retry-after", str(retry_after),
           "--stall", str(stall), "--shares", json.dumps(shares)]
    server = FlakyServer(subprocess.Popen(cmd), port)
    deadline = time.monotonic() + 30
    while True:
        if server.proc.poll() is not None:
            raise RuntimeError(f"the flaky server exited with {server.proc.returncode}")
        try:
            with urllib.request.urlopen(f"{server.url}/models", timeout=1):
                return server
        except OSError:
            if time.monotonic() > deadline:
                server.stop()
                raise RuntimeError("the flaky server did not answer within 30 s") from None
            time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shares", default="{}", help='JSON, e.g. {"503": 0.04, "drop": 0.02}')
    parser.add_argument("--max-failures", type=int, default=2)
    parser.add_argument("--retry-after", type=float, default=0.05)
    parser.add_argument("--stall", type=float, default=3.0)
    args = parser.parse_args()
    shares = {str(k): float(v) for k, v in json.loads(args.shares).items()}
    unknown = set(shares) - set(KINDS)
    if unknown:
        parser.error(f"unknown failure kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
    state = FlakyState(seed=args.seed, shares=shares, max_failures=args.max_failures,
                       retry_after=args.retry_after, stall=args.stall)
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(args.port, state))
    else:
        uvloop.run(serve(args.port, state))


if __name__ == "__main__":
    main()
