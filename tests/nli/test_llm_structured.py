"""The ``llm`` entailment backend asking for ``{"label": ...}`` when its model can constrain
decoding: the real small model (llama.cpp) answers in that shape and the strict parser reads
the label; a model without structured output is asked as before."""

from __future__ import annotations

import asyncio

from creval.models import Completion, GenerateRequest, ModelOptions, get_model
from creval.nli import get_entailment
from creval.nli.llm import LLMEntailment, label_schema

PAIRS = [("The kettle boils water.", "Water is heated in the kettle."),
         ("The kettle boils water.", "Someone sings.")]  # fmt: skip


def test_small_model_is_asked_for_the_label_shape_and_every_answer_parses() -> None:
    model = get_model("local")
    nli = get_entailment("llm", generate=model.generate)
    assert isinstance(nli, LLMEntailment) and nli.structured  # read from the model's capabilities
    assert nli.identity()["structured"] is True
    results = asyncio.run(nli.classify(PAIRS))
    assert all(r.failure is None for r in results), results
    assert all((r.raw or "").lstrip().startswith("{") for r in results)  # the model's JSON is kept

    requests: list[GenerateRequest] = []

    async def recording(request: GenerateRequest) -> list[Completion]:
        requests.append(request)
        return await model.generate(request)

    explicit = LLMEntailment(recording, structured=True)
    asyncio.run(explicit.classify(PAIRS[:1]))
    assert requests[0].response_schema == label_schema() and requests[0].max_tokens == 16


def test_model_without_structured_output_is_asked_freely() -> None:
    model = get_model("openai:judge", ModelOptions(base_url="http://127.0.0.1:9", api_key="sk-test"))
    nli = get_entailment("llm", generate=model.generate)
    assert isinstance(nli, LLMEntailment) and not nli.structured
    assert "structured" not in nli.identity()  # free identities are as they were
    request = nli.request(*PAIRS[0])
    assert request.response_schema is None and request.max_tokens == 8
