"""creval's model backends inside Inspect: ``--model creval/SPEC``.

``inspect eval creval/dat --model creval/local`` runs the packaged offline model;
``creval/local:/path/model.gguf``, ``creval/hf:NAME``, ``creval/replay:RUN_DIR`` ... any
creval model spec works. ``--model-base-url`` and ``-M`` arguments (``-M n_ctx=8192``,
``-M threads=4``) become creval's model options.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    StopReason,
    TopLogprob,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from creval.models.base import (
    Completion,
    GenerateRequest,
    ImagePart,
    Message,
    ModelError,
    TextPart,
)


def creval_messages(messages: list[ChatMessage]) -> tuple[Message, ...]:
    """Inspect chat messages as creval's: text and images; tool messages are refused."""
    from inspect_ai.model import ContentImage, ContentReasoning, ContentText

    out = []
    for message in messages:
        if message.role == "tool":
            raise ModelError("creval models take no tool calls; use a task without tools.")
        if isinstance(message.content, str):
            out.append(Message(role=message.role, content=message.content))
            continue
        parts: list[TextPart | ImagePart] = []
        for part in message.content:
            if isinstance(part, ContentText):
                parts.append(TextPart(text=part.text))
            elif isinstance(part, ContentImage):
                parts.append(ImagePart(url=part.image))
            elif not isinstance(part, ContentReasoning):  # earlier reasoning is not sent back
                raise ModelError(f"creval models take text and images, not {part.type}.")
        out.append(Message(role=message.role, content=parts))
    return tuple(out)


def _choice(completion: Completion, model: str) -> ChatCompletionChoice:
    logprobs = None
    if completion.tokens is not None:
        logprobs = Logprobs(content=[
            Logprob(token=t.token, logprob=t.logprob,
                    top_logprobs=[TopLogprob(token=k, logprob=v) for k, v in t.top.items()]
                    if t.top else None)
            for t in completion.tokens
        ])
    stop: StopReason = "max_tokens" if completion.finish_reason == "length" else "stop"
    return ChatCompletionChoice(
        message=ChatMessageAssistant(content=completion.text, model=model, source="generate"),
        stop_reason=stop, logprobs=logprobs,
    )


class CrevalModelAPI(ModelAPI):
    """An Inspect model API answering through a creval model backend."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key,
                         api_key_vars=[], config=config or GenerateConfig())
        from creval.models import ModelOptions, get_model

        self.model = get_model(model_name, ModelOptions(base_url=base_url, api_key=api_key,
                                                        **model_args))

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo],
                       tool_choice: ToolChoice, config: GenerateConfig) -> ModelOutput:
        if tools:
            raise ModelError("creval models take no tools.")
        logprobs = bool(config.logprobs) and self.model.capabilities.logprobs
        request = GenerateRequest(
            messages=creval_messages(input), n=config.num_choices or 1,
            temperature=1.0 if config.temperature is None else config.temperature,
            top_p=1.0 if config.top_p is None else config.top_p,
            max_tokens=config.max_tokens or GenerateRequest.model_fields["max_tokens"].default,
            stop=tuple(config.stop_seqs or ()), seed=config.seed, logprobs=logprobs,
            top_logprobs=(config.top_logprobs or 0) if logprobs else 0,
        )
        completions = await self.model.generate(request)
        usage = sum((c.usage for c in completions), start=completions[0].usage.__class__())
        return ModelOutput(
            model=self.model_name, choices=[_choice(c, self.model_name) for c in completions],
            usage=ModelUsage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                             total_tokens=usage.input_tokens + usage.output_tokens),
        )

    def max_connections(self) -> int:
        return max(1, self.model.max_concurrency)

    async def aclose(self) -> None:
        await self.model.aclose()


@modelapi(name="creval")
def creval_model_api() -> type[ModelAPI]:
    """``--model creval/SPEC``: a creval model backend (``creval/local``, ``creval/hf:NAME``)."""
    return CrevalModelAPI
