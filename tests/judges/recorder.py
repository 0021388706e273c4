"""A judge model for tests: the offline default model, or a fixed answer, with every request
recorded."""

from __future__ import annotations

from creval.models import Completion, GenerateRequest, Usage, get_model


class Recorder:
    """Answers with the local model (``answer`` None) or ``answer``; keeps the requests."""

    def __init__(self, answer: str | None = None) -> None:
        self.requests: list[GenerateRequest] = []
        self.answer = answer
        self.model = get_model("local") if answer is None else None

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        self.requests.append(request)
        if self.model is not None:
            return await self.model.generate(request)
        return [Completion(text=self.answer or "", usage=Usage(input_tokens=3, output_tokens=2))]
