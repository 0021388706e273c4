"""Reasoning models behind the ``openai`` backend: sampling parameters the endpoint rejects
are sent again without (once per endpoint) and recorded as not applied; the reasoning text
is kept apart from the answer; reasoning tokens are counted.

Against the loopback stand-in of ``tests/_servers.py`` in its reasoning mode (HTTP 400 for
``max_tokens``, ``temperature`` and ``top_p`` as OpenAI's reasoning models answer them).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _servers import REASONING_TOKENS, ChatServer

from creval.models import GenerateRequest, ModelError, ModelOptions, get_model
from creval.models.openai_backend import OpenAIModel
from creval.models.openai_reasoning import rejected_parameters, split_reasoning

SENT = {"model": "m", "messages": [], "temperature": 0.7, "top_p": 1.0, "seed": 3}


def _model(url: str, name: str = "thinker", **options: Any) -> OpenAIModel:
    model = get_model(f"openai:{name}", ModelOptions(base_url=url, api_key="k", **options))
    assert isinstance(model, OpenAIModel)
    return model


def _generate(model: OpenAIModel, request: GenerateRequest) -> Any:
    async def go() -> Any:
        try:
            return await model.generate(request)
        finally:
            await model.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize(("body", "message", "dropped"), [
    # OpenAI: the param field names it
    ({"param": "temperature", "code": "unsupported_parameter"},
     "Unsupported parameter: 'temperature' is not supported with this model.", ["temperature"]),
    ({"param": "temperature", "code": "unsupported_value"},
     "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default "
     "(1) value is supported.", ["temperature"]),
    # the whole answer as the SDK hands it over: {"error": {...}}
    ({"error": {"param": "top_p", "message": "Unsupported parameter: 'top_p'."}}, "", ["top_p"]),
    # no param field: the name in the message, beside words that say it is not taken
    (None, "litellm.UnsupportedParamsError: openai does not support parameters: "
           "['temperature', 'top_p'], for model=o3", ["temperature", "top_p"]),
    ({"message": "seed is not supported for this model", "param": None}, "Error code: 400", ["seed"]),
    # named but not refused, refused but not sent, or not ours to drop: nothing is dropped
    (None, "temperature must be between 0 and 2, got 7", []),
    ({"param": "reasoning_effort"}, "Unsupported parameter: 'reasoning_effort'.", []),
    ({"param": "logprobs"}, "Unsupported parameter: 'logprobs' is not supported.", []),
    (None, "Unsupported parameter: 'max_tokens' is not supported with this model.", []),
])
def test_which_parameters_a_400_rejects(body: Any, message: str, dropped: list[str]) -> None:
    assert rejected_parameters(body, message, SENT) == dropped


@pytest.mark.parametrize(("content", "fields", "answer", "reasoning"), [
    ("The answer.", ("I thought.", None), "The answer.", "I thought."),  # reasoning_content
    ("The answer.", (None, "I thought."), "The answer.", "I thought."),  # reasoning
    ("The answer.", ("", ""), "The answer.", None),
    ("<think>\nI thought.\n</think>\n\nThe answer.", (), "The answer.", "I thought."),
    ("I thought.\n</think>\nThe answer.", (), "The answer.", "I thought."),  # template opened it
    ("<think>I thought and ran out of tok", (), "", "I thought and ran out of tok"),
    ("An answer that mentions <think> later.", (), "An answer that mentions <think> later.", None),
    (None, (), "", None),
])
def test_reasoning_is_split_from_the_answer(content: str | None, fields: tuple[Any, ...],
                                            answer: str, reasoning: str | None) -> None:
    assert split_reasoning(content, *fields) == (answer, reasoning)


def test_rejected_parameters_are_dropped_once_per_endpoint_and_recorded() -> None:
    server = ChatServer(reply=lambda body: (200, "Forty-two."), reasoning=True)
    try:
        model = _model(server.url)
        request = GenerateRequest.chat("Six times seven?", temperature=0.3, top_p=0.9,
                                       max_tokens=50, seed=1)
        first = _generate(model, request)
        # max_tokens -> max_completion_tokens, then without temperature, then without top_p
        assert server.rejected == {"max_tokens": 1, "temperature": 1, "top_p": 1}
        assert server.seen == 4
        assert [("temperature" in b, "top_p" in b) for b in server.bodies] == [
            (True, True), (True, True), (False, True), (False, False)]
        assert server.bodies[-1]["max_completion_tokens"] == 50
        assert server.bodies[-1]["seed"] == 1  # what was not rejected still goes
        [completion] = first
        assert completion.text == "Forty-two."
        assert completion.reasoning == "Reasoning: 10 characters to write."
        assert completion.not_applied == ["temperature", "top_p"]
        assert completion.usage.output_tokens == 2 + REASONING_TOKENS
        assert completion.usage.reasoning_tokens == REASONING_TOKENS
        # the same endpoint again, from another model object (a later run): no failed round trip
        again = _generate(_model(server.url), request.with_n(2))
        assert server.seen == 4 + 2  # the server gives one choice per call: n topped up
        assert server.rejected == {"max_tokens": 1, "temperature": 1, "top_p": 1}
        assert [c.not_applied for c in again] == [["temperature", "top_p"]] * 2
        assert sum(c.usage.reasoning_tokens for c in again) == 2 * REASONING_TOKENS
        # another model on the same server is another endpoint: it finds out for itself
        _generate(_model(server.url, name="other"), request)
        assert server.rejected == {"max_tokens": 2, "temperature": 2, "top_p": 2}
    finally:
        server.close()


def test_a_400_that_names_no_droppable_parameter_stays_an_error() -> None:
    server = ChatServer(script=[400], reasoning=True)  # "scripted 400": nothing named
    try:
        with pytest.raises(ModelError, match="scripted 400"):
            _generate(_model(server.url), GenerateRequest.chat("hi"))
        assert server.seen == 1
    finally:
        server.close()


def test_reasoning_effort_is_sent_and_part_of_the_identity() -> None:
    server = ChatServer(reply=lambda body: (200, "ok"))
    try:
        model = _model(server.url, reasoning_effort="high")
        [completion] = _generate(model, GenerateRequest.chat("hi"))
        assert server.bodies[0]["reasoning_effort"] == "high"
        assert completion.not_applied == []
        assert model.identity()["reasoning_effort"] == "high"
        assert "reasoning_effort" not in _model(server.url).identity()  # unset: as before
        _generate(_model(server.url), GenerateRequest.chat("hi"))
        assert "reasoning_effort" not in server.bodies[1]
    finally:
        server.close()


def test_a_plain_endpoint_applies_everything() -> None:
    server = ChatServer(reply=lambda body: (200, "<think>hmm</think>Plain answer."))
    try:
        [completion] = _generate(_model(server.url), GenerateRequest.chat("hi", temperature=0.5))
        assert server.bodies[0]["temperature"] == 0.5
        assert completion.not_applied == []
        assert (completion.text, completion.reasoning) == ("Plain answer.", "hmm")
        assert completion.usage.reasoning_tokens == 0
    finally:
        server.close()
