"""Prompt log-probabilities from OpenAI-compatible endpoints: vLLM's ``prompt_logprobs``
(whole texts and windows of token ids), the legacy ``echo`` form, the probe that picks one,
and the refusal of llama-cpp-python's misaligned echo. The test server's values come from
its own llama.cpp on the packaged SmolLM2, so a right reading equals the local backend's."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

pytest.importorskip("llama_cpp", reason="needs the 'local' extra")

from _prompt_server import Mode, PromptServer  # noqa: E402

from creval.models import ModelError, ModelOptions, get_model  # noqa: E402
from creval.models.local import LocalModel  # noqa: E402
from creval.models.openai_backend import OpenAIModel  # noqa: E402
from creval.models.prompt_scoring import PromptRequest, PromptScores  # noqa: E402

pytestmark = pytest.mark.slow

TEXT = ("The old lighthouse keeper climbed the stairs every night, counting the steps and "
        "listening to the sea break on the rocks below.")


@pytest.fixture(scope="module")
def local() -> Iterator[LocalModel]:
    model = get_model("local", ModelOptions(n_ctx=512, threads=1))
    assert isinstance(model, LocalModel)
    yield model
    asyncio.run(model.aclose())


def _openai(url: str, form: str) -> OpenAIModel:
    model = get_model("openai:m", ModelOptions(base_url=url, api_key="k", prompt_logprobs=form))  # type: ignore[arg-type]
    assert isinstance(model, OpenAIModel)
    return model


async def _score(model: OpenAIModel, request: PromptRequest) -> PromptScores:
    try:
        return await model.prompt_logprobs(request)
    finally:
        await model.aclose()


def _serve(mode: Mode) -> PromptServer:
    return PromptServer(mode)


@pytest.mark.parametrize("form", ["vllm", "echo"])
def test_an_endpoint_reads_the_same_log_probabilities_as_the_local_backend(form: Mode, local: LocalModel) -> None:
    server = _serve(form)
    try:
        remote = asyncio.run(_score(_openai(server.url, form), PromptRequest(text=TEXT)))
    finally:
        server.close()
    mine = asyncio.run(local.prompt_logprobs(PromptRequest(text=TEXT)))
    assert [t.token for t in remote.tokens] == [t.token for t in mine.tokens]
    assert remote.logprobs() == pytest.approx(mine.logprobs(), abs=1e-6)
    assert remote.usage.input_tokens == len(mine.tokens) + 1 and remote.window is None
    (body,) = server.bodies
    assert body["max_tokens"] == 1 and body["prompt"] == TEXT
    assert body.get("prompt_logprobs") == 0 if form == "vllm" else (body["echo"] and body["logprobs"] == 0)


def test_vllm_scores_long_texts_in_windows_of_token_ids(local: LocalModel) -> None:
    server = _serve("vllm")
    try:
        remote = asyncio.run(_score(_openai(server.url, "vllm"), PromptRequest(text=TEXT, window=10, stride=4)))
    finally:
        server.close()
    mine = asyncio.run(local.prompt_logprobs(PromptRequest(text=TEXT, window=10, stride=4)))
    assert (remote.window, remote.stride, remote.windows) == (10, 4, mine.windows) and mine.windows > 3
    assert remote.logprobs() == pytest.approx(mine.logprobs(), abs=1e-6)
    assert remote.usage.input_tokens == mine.usage.input_tokens
    assert len(server.bodies) == mine.windows
    assert all(isinstance(b["prompt"], list) and len(b["prompt"]) <= 10 for b in server.bodies)


def test_echo_cannot_take_a_window() -> None:
    model = _openai("http://127.0.0.1:9/v1", "echo")
    with pytest.raises(ModelError, match="cannot score in windows"):
        asyncio.run(_score(model, PromptRequest(text=TEXT, window=64)))


@pytest.mark.parametrize("mode", ["vllm", "echo", "none"])
def test_auto_probes_which_form_the_server_gives(mode: Mode) -> None:
    server = _serve(mode)
    model = _openai(server.url, "auto")

    async def probe() -> str | None:
        try:
            await model.check()
            return model.prompt_form
        finally:
            await model.aclose()

    try:
        found = asyncio.run(probe())
    finally:
        server.close()
    assert found == (None if mode == "none" else mode)
    assert model.capabilities.prompt_logprobs is (mode != "none")
    if mode == "none":
        with pytest.raises(ModelError, match="was not found to give prompt log-probabilities") as err:
            asyncio.run(_score(model, PromptRequest(text=TEXT)))
        assert "local" in str(err.value) and "--prompt-logprobs vllm" in str(err.value)


def test_off_is_a_clear_error_without_a_request() -> None:
    server = _serve("vllm")
    try:
        model = _openai(server.url, "off")
        assert not model.capabilities.prompt_logprobs
        with pytest.raises(ModelError, match="not declared to give prompt log-probabilities"):
            asyncio.run(_score(model, PromptRequest(text=TEXT)))
    finally:
        server.close()
    assert server.bodies == []


def test_llama_cpp_servers_misaligned_echo_is_refused(llama_server: str) -> None:
    """llama-cpp-python's server echoes, for SmolLM2 (no BOS), each token's probability of
    following itself: the probe finds its echoed value of a token differs from the value it
    gave the same token when generating it, and does not use echo."""
    model = _openai(llama_server, "auto")

    async def probe() -> str | None:
        try:
            return await model.probe_prompt_logprobs()
        finally:
            await model.aclose()

    assert asyncio.run(probe()) is None
    assert not model.capabilities.prompt_logprobs
