"""The prompt an in-process backend (``hf:``, ``vllm:``) gives its model: the request's
messages through the tokenizer's chat template, or a plain ``role: content`` prompt when the
tokenizer has none."""

from __future__ import annotations

from typing import Any

from creval.models.base import GenerateRequest

__all__ = ["chat_prompt_ids", "plain_prompt"]


def plain_prompt(messages: list[dict[str, str]]) -> str:
    """The fallback prompt for tokenizers without a chat template.

    >>> plain_prompt([{"role": "user", "content": "Hi"}])
    'user: Hi\\nassistant:'
    """
    return "\n".join([*(f"{m['role']}: {m['content']}" for m in messages), "assistant:"])


def chat_prompt_ids(tokenizer: Any, request: GenerateRequest) -> list[int]:
    """The request's messages through the tokenizer's chat template, as token ids."""
    messages = [{"role": m.role, "content": m.text()} for m in request.messages]
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return list(tokenizer.encode(text, add_special_tokens=False))
    return list(tokenizer.encode(plain_prompt(messages), add_special_tokens=True))
