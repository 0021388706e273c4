"""Structured output in the model layer: the request field, the cache key, and real llama.cpp
(in-process and behind its OpenAI-compatible server) constraining answers to a JSON schema."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from creval.models import GenerateRequest, ModelError, ModelOptions, get_model
from creval.models.openai_backend import OpenAIModel

#: A schema no free answer to the prompt below would obey.
SCHEMA = {
    "type": "object",
    "properties": {"colour": {"type": "string", "enum": ["teal-42", "ochre-17"]}},
    "required": ["colour"],
}
PROMPT = "Write a short poem about the sea."


def test_schema_is_in_the_cache_key_only_when_set() -> None:
    free = GenerateRequest.chat("hi")
    shaped = GenerateRequest.chat("hi", response_schema=SCHEMA)
    assert "response_schema" not in free.params()
    assert shaped.params()["response_schema"] == SCHEMA
    assert shaped.params() != free.params()


def _obeys(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and value.get("colour") in ("teal-42", "ochre-17")


def test_local_backend_constrains_to_the_schema() -> None:
    model = get_model("local")
    assert model.capabilities.structured_output
    free = GenerateRequest.chat(PROMPT, temperature=0.0, max_tokens=32)
    shaped = free.model_copy(update={"response_schema": SCHEMA})
    (f,) = asyncio.run(model.generate(free))
    (s,) = asyncio.run(model.generate(shaped))
    assert not _obeys(f.text)
    assert _obeys(s.text), s.text


def _model(url: str, mode: str) -> OpenAIModel:
    model = get_model("openai:smollm2", ModelOptions(base_url=url, structured_output=mode))  # type: ignore[arg-type]
    assert isinstance(model, OpenAIModel)
    return model


async def _check_and_ask(model: OpenAIModel, request: GenerateRequest) -> str:
    try:
        await model.check()
        (c,) = await model.generate(request)
        return c.text
    finally:
        await model.aclose()


def test_openai_backend_probes_the_server_and_constrains(llama_server: str) -> None:
    model = _model(llama_server, "auto")
    assert not model.capabilities.structured_output  # unknown until probed
    request = GenerateRequest.chat(PROMPT, temperature=0.0, max_tokens=32, response_schema=SCHEMA)
    text = asyncio.run(_check_and_ask(model, request))
    # llama-cpp-python's server takes the schema in its own json_object form
    assert model.schema_form == "json_object"
    assert model.capabilities.structured_output
    assert _obeys(text), text


def test_openai_backend_declared_form_needs_no_probe(llama_server: str) -> None:
    model = _model(llama_server, "json_object")
    assert model.capabilities.structured_output
    request = GenerateRequest.chat(PROMPT, temperature=0.0, max_tokens=32, response_schema=SCHEMA)
    assert _obeys(asyncio.run(_check_and_ask(model, request)))


def test_openai_backend_off_by_default_refuses_a_schema(llama_server: str) -> None:
    model = get_model("openai:smollm2", ModelOptions(base_url=llama_server))
    assert isinstance(model, OpenAIModel)
    request = GenerateRequest.chat(PROMPT, max_tokens=8, response_schema=SCHEMA)
    with pytest.raises(ModelError, match="structured output"):
        asyncio.run(_check_and_ask(model, request))
    assert not model.capabilities.structured_output


def test_hf_backend_declares_structured_output_with_llguidance() -> None:
    pytest.importorskip("transformers")
    pytest.importorskip("llguidance")
    # nothing is loaded before a request (tests/models/test_hf_structured.py generates)
    assert get_model("hf:sshleifer/tiny-gpt2").capabilities.structured_output


def test_hf_backend_without_llguidance_declares_no_structured_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("transformers")
    monkeypatch.setitem(sys.modules, "llguidance", None)  # as if it were not installed
    model = get_model("hf:sshleifer/tiny-gpt2")  # nothing is loaded before a request
    assert not model.capabilities.structured_output
    with pytest.raises(ModelError, match="JSON schema.*llguidance"):
        asyncio.run(model.generate(GenerateRequest.chat("hi", response_schema=SCHEMA)))
