"""The ``openai`` backend against real servers on loopback.

* llama-cpp-python's OpenAI-compatible server on the packaged SmolLM2 GGUF (it ignores ``n``
  and answers one choice per call, so the backend must top up the missing samples);
* a small ``http.server`` in a thread that answers with chosen status codes, headers and
  bodies, to check how errors map onto the runner's error types.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.models import (
    Completion,
    EndpointUnreachable,
    GenerateRequest,
    ModelError,
    ModelOptions,
    TransientModelError,
    get_model,
)
from creval.models.base import ImagePart, Message, TextPart
from creval.models.openai_backend import OpenAIModel


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _model(base_url: str, name: str = "smollm2", **options: Any) -> OpenAIModel:
    model = get_model(f"openai:{name}", ModelOptions(base_url=base_url, **options))
    assert isinstance(model, OpenAIModel)
    return model


def _generate(model: OpenAIModel, request: GenerateRequest) -> list[Completion]:
    async def go() -> list[Completion]:
        try:
            return await model.generate(request)
        finally:
            await model.aclose()

    return asyncio.run(go())


def _check(model: OpenAIModel) -> None:
    async def go() -> None:
        try:
            await model.check()
        finally:
            await model.aclose()

    asyncio.run(go())


# -- a real llama.cpp server (the session fixture ``llama_server`` in conftest.py) ---------
@pytest.mark.slow
def test_check_passes_on_a_live_server(llama_server: str) -> None:
    _check(_model(llama_server))


@pytest.mark.slow
def test_n_samples_are_topped_up_when_the_server_ignores_n(llama_server: str) -> None:
    model = _model(llama_server)
    request = GenerateRequest.chat("Write one line about rain.", n=3, seed=3, max_tokens=8)
    completions = _generate(model, request)
    assert len(completions) == 3
    assert all(c.text for c in completions)
    assert all(c.tokens is None for c in completions)
    # llama.cpp's server answers one choice per call: three calls, each with its prompt tokens
    prompt = completions[0].usage.input_tokens
    assert prompt > 5
    assert [c.usage.input_tokens for c in completions] == [prompt] * 3
    assert all(0 < c.usage.output_tokens <= 8 for c in completions)
    # the calls were seeded 3, 4, 5: asking from seed 4 reproduces the last two samples
    again = _generate(model, request.with_n(2, seed=4))
    assert [c.text for c in again] == [c.text for c in completions[1:]]


@pytest.mark.slow
def test_logprobs_from_the_server(llama_server: str) -> None:
    model = _model(llama_server)
    request = GenerateRequest.chat(
        "Say hello.", n=2, seed=1, max_tokens=6, logprobs=True, top_logprobs=2
    )
    completions = _generate(model, request)
    assert len(completions) == 2
    for c in completions:
        assert c.tokens is not None
        assert len(c.tokens) == c.usage.output_tokens > 0
        assert all(t.logprob <= 0 for t in c.tokens)
        assert all(t.top is not None and 1 <= len(t.top) <= 2 for t in c.tokens)


@pytest.mark.slow
def test_a_request_the_server_rejects_is_a_model_error(llama_server: str) -> None:
    model = _model(llama_server)
    too_long = GenerateRequest.chat("word " * 2500, max_tokens=8)  # n_ctx is 2048
    with pytest.raises(ModelError) as err:
        _generate(model, too_long)
    assert not isinstance(err.value, (TransientModelError, EndpointUnreachable))
    assert "context length" in str(err.value)


def test_nothing_listening_is_endpoint_unreachable() -> None:
    base_url = f"http://127.0.0.1:{_free_port()}/v1"
    model = _model(base_url)
    started = time.monotonic()
    with pytest.raises(EndpointUnreachable) as err:
        _check(model)
    assert time.monotonic() - started < 5
    assert base_url in str(err.value) and "--base-url" in str(err.value)
    with pytest.raises(EndpointUnreachable):
        _generate(model, GenerateRequest.chat("hi", max_tokens=2))


# -- a scripted HTTP server -----------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    """Behaviour by the first path segment: /ok, /ratelimit, /unavailable, /bad, /auth,
    /drop, /slow. ``/ok`` answers one choice per call unless asked ``n`` on /many."""

    seen: list[dict[str, Any]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        with contextlib.suppress(OSError):  # the client may have given up (timeouts)
            self.wfile.write(data)

    def do_GET(self) -> None:
        mode = self.path.strip("/").split("/")[0]
        if mode == "auth":
            self._send(401, {"error": {"message": "Incorrect API key provided", "type": "auth"}})
        else:
            self._send(404, {"error": {"message": "no such route"}})

    def do_POST(self) -> None:
        mode = self.path.strip("/").split("/")[0]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body["_mode"] = mode
        body["_auth"] = self.headers.get("Authorization")
        self.seen.append(body)
        if mode == "ratelimit":
            self._send(429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "7"})
        elif mode == "unavailable":
            self._send(503, {"error": {"message": "overloaded"}})
        elif mode == "bad":
            self._send(400, {"error": {"message": "Invalid value for 'top_p'", "type": "invalid_request_error"}})
        elif mode == "drop":
            self.close_connection = True  # no response at all
        elif mode == "slow":
            time.sleep(1.5)
            self._send(200, _response(body, 1))
        elif mode == "newparam" and "max_tokens" in body:
            message = ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                       "Use 'max_completion_tokens' instead.")
            self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})
        elif mode == "plain":  # JSON under another content type, then not JSON at all
            data = json.dumps(_response(body, 1)).encode() if body.get("seed") != 13 else b"oops"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif mode == "many":
            self._send(200, _response(body, int(body.get("n", 1))))
        else:
            self._send(200, _response(body, 1))


def _response(body: dict[str, Any], k: int) -> dict[str, Any]:
    choices = []
    lengths = [2 + i for i in range(k)]
    for i in range(k):
        tokens = [f"t{j}" for j in range(lengths[i])]
        choice: dict[str, Any] = {
            "index": i,
            "message": {"role": "assistant", "content": "".join(tokens)},
            "finish_reason": "length",
        }
        if body.get("logprobs"):
            choice["logprobs"] = {
                "content": [
                    {"token": t, "logprob": -0.5, "bytes": None,
                     "top_logprobs": [{"token": t, "logprob": -0.5, "bytes": None}]}
                    for t in tokens
                ]
            }
        choices.append(choice)
    return {
        "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": choices,
        "usage": {"prompt_tokens": 10, "completion_tokens": sum(lengths), "total_tokens": 10 + sum(lengths)},
    }


@pytest.fixture(scope="module")
def models_scripted_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_429_is_transient_with_retry_after(models_scripted_server: str) -> None:
    model = _model(f"{models_scripted_server}/ratelimit/v1")
    with pytest.raises(TransientModelError) as err:
        _generate(model, GenerateRequest.chat("hi", max_tokens=2))
    assert err.value.retry_after == 7.0
    assert "Rate limit" in str(err.value)


def test_503_is_transient(models_scripted_server: str) -> None:
    model = _model(f"{models_scripted_server}/unavailable/v1")
    with pytest.raises(TransientModelError) as err:
        _generate(model, GenerateRequest.chat("hi", max_tokens=2))
    assert err.value.retry_after is None
    assert not isinstance(err.value, EndpointUnreachable)


def test_other_4xx_is_a_model_error_with_the_servers_message(models_scripted_server: str) -> None:
    model = _model(f"{models_scripted_server}/bad/v1")
    with pytest.raises(ModelError) as err:
        _generate(model, GenerateRequest.chat("hi", max_tokens=2))
    assert type(err.value) is ModelError
    assert "Invalid value for 'top_p'" in str(err.value)


def test_a_dropped_connection_and_a_timeout_are_transient(models_scripted_server: str) -> None:
    with pytest.raises(TransientModelError):
        _generate(_model(f"{models_scripted_server}/drop/v1"), GenerateRequest.chat("hi"))
    with pytest.raises(TransientModelError, match="timed out"):
        _generate(_model(f"{models_scripted_server}/slow/v1", timeout=0.3), GenerateRequest.chat("hi"))


def test_models_that_want_max_completion_tokens(models_scripted_server: str) -> None:
    _Handler.seen.clear()
    model = _model(f"{models_scripted_server}/newparam/v1")
    request = GenerateRequest.chat("hi", max_tokens=9)
    assert len(_generate(model, request)) == 1
    assert len(_generate(model, request)) == 1  # remembered: no second rejection
    sent = [b for b in _Handler.seen if b["_mode"] == "newparam"]
    assert [("max_tokens" in b, b.get("max_completion_tokens")) for b in sent] == [
        (True, None), (False, 9), (False, 9)
    ]


def test_check_distinguishes_reachable_and_refused_keys(models_scripted_server: str) -> None:
    _check(_model(f"{models_scripted_server}/ok/v1"))  # 404 on /models: it answered
    with pytest.raises(ModelError, match="API key"):
        _check(_model(f"{models_scripted_server}/auth/v1"))


def test_top_up_calls_carry_the_next_seeds(models_scripted_server: str) -> None:
    _Handler.seen.clear()
    model = _model(f"{models_scripted_server}/ok/v1")
    request = GenerateRequest.chat("hi", n=3, seed=5, max_tokens=7, stop=("END",), temperature=0.7)
    completions = _generate(model, request)
    assert len(completions) == 3
    sent = [b for b in _Handler.seen if b["_mode"] == "ok"]
    assert [b["seed"] for b in sent] == [5, 6, 7]
    assert [b.get("n", 1) for b in sent] == [3, 2, 1]
    first = sent[0]
    assert first["max_tokens"] == 7 and first["stop"] == ["END"] and first["temperature"] == 0.7
    assert first["messages"] == [{"role": "user", "content": "hi"}]
    assert "logprobs" not in first
    assert [c.usage.input_tokens for c in completions] == [10, 10, 10]


def test_the_body_posted_is_the_one_the_sdks_create_sends(models_scripted_server: str) -> None:
    """The backend posts its parameters without the SDK's per-request transform: the server
    gets the same body, and the same bearer key, as from ``chat.completions.create``."""
    from openai import AsyncOpenAI

    url = f"{models_scripted_server}/many/v1"
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    image = Message(role="user", content=[TextPart(text="what is it?"),
                                          ImagePart(url="data:image/png;base64,AAAA")])
    requests = [
        GenerateRequest.chat("hi", system="be brief", n=2, seed=4, stop=("x", "y"),
                             temperature=0.3, top_p=0.9, logprobs=True, top_logprobs=3),
        GenerateRequest(messages=(image,), max_tokens=5, response_schema=schema),
    ]
    model = _model(url, api_key="sk-test", structured_output="json_schema")
    for request in requests:
        _Handler.seen.clear()
        _generate(model, request)
        params = {**model.chat_params(request, request.n, request.seed), "max_tokens": request.max_tokens}

        async def by_sdk(params: dict[str, Any] = params) -> None:
            client = AsyncOpenAI(base_url=url, api_key="sk-test", max_retries=0)
            try:
                await client.chat.completions.create(**params)
            finally:
                await client.close()

        asyncio.run(by_sdk())
        ours, sdk = _Handler.seen
        assert ours == sdk and ours["_auth"] == "Bearer sk-test"


def test_an_answer_under_another_content_type(models_scripted_server: str) -> None:
    model = _model(f"{models_scripted_server}/plain/v1")
    (completion,) = _generate(model, GenerateRequest.chat("hi", seed=1))
    assert completion.text == "t0t1" and completion.usage.input_tokens == 10
    with pytest.raises(ModelError, match="not a JSON object: 'oops'"):
        _generate(model, GenerateRequest.chat("hi", seed=13))


def test_usage_is_split_between_the_choices_of_one_call(models_scripted_server: str) -> None:
    model = _model(f"{models_scripted_server}/many/v1")
    request = GenerateRequest.chat("hi", n=3, logprobs=True, top_logprobs=1)
    completions = _generate(model, request)
    assert [c.usage.output_tokens for c in completions] == [2, 3, 4]
    assert [c.usage.input_tokens for c in completions] == [10, 0, 0]
    assert [len(c.tokens or []) for c in completions] == [2, 3, 4]
    assert completions[2].text == "t0t1t2t3"
    assert completions[0].tokens is not None and completions[0].tokens[0].top == {"t0": -0.5}
    plain = _generate(model, request.model_copy(update={"logprobs": False, "top_logprobs": 0}))
    assert [c.usage.output_tokens for c in plain] == [3, 3, 3]  # 9 tokens split evenly
    assert all(c.tokens is None for c in plain)


# -- configuration --------------------------------------------------------------------------
def test_api_key_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(CrevalError, match="OPENAI_API_KEY"):
        get_model("openai:gpt-4o-mini")
    assert _model("http://127.0.0.1:1/v1")._api_key == "EMPTY"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert get_model("openai:gpt-4o-mini")._api_key == "sk-env"  # type: ignore[attr-defined]
    explicit = get_model("openai:gpt-4o-mini", ModelOptions(api_key="sk-opt"))
    assert explicit._api_key == "sk-opt"  # type: ignore[attr-defined]
    with pytest.raises(CrevalError, match="model name"):
        get_model("openai")


def test_identity_and_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    a = _model("HTTP://LocalHost:8080/v1/", name="m1")
    assert a.identity() == {"provider": "openai", "base_url": "http://localhost:8080/v1", "model": "m1"}
    assert a.identity() == _model("http://localhost:8080/v1", name="m1").identity()
    assert a.identity() != _model("http://localhost:8080/v1", name="m2").identity()
    assert get_model("openai:gpt-4o-mini").identity()["base_url"] == "https://api.openai.com/v1"
    assert a.max_concurrency == 8
    assert _model("http://localhost:8080/v1", concurrency=3).max_concurrency == 3
    assert a.capabilities.n and a.capabilities.logprobs and a.capabilities.seed


def test_importing_the_backend_does_not_import_the_sdk() -> None:
    code = (
        "import sys\n"
        "from creval.models import get_model, ModelOptions\n"
        "m = get_model('openai:x', ModelOptions(base_url='http://127.0.0.1:1/v1'))\n"
        "m.identity()\n"
        "assert 'openai' not in sys.modules, 'openai imported'\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

