"""Backend ``llm``: a language model asked, pair by pair, whether A entails B.

The question is a prompt template (``creval/data/prompts/entailment_llm.txt``, our own
wording, or the user's file) with two placeholders, ``{premise}`` and ``{hypothesis}``; the
model must answer with one word. :func:`parse_entailment_answer` is strict: the whole reply,
once surrounding whitespace, quotes, Markdown emphasis and a final full stop are removed,
must be one of ``entailment``, ``neutral``, ``contradiction`` (any case). Anything else is a
recorded failure: the result is ``neutral`` with ``failure`` set and the raw reply kept, so
that a caller can count and report unparsed answers instead of trusting a guess.

Generation goes through a ``generate`` callable (a model's ``generate`` or the runner's
cached, counted one), greedily (temperature 0), one request per pair, all pairs concurrently.

When the model can constrain decoding (``structured``; by default, when ``generate`` is a
bound method of a model whose ``Capabilities.structured_output`` is True) the answer is
asked for as ``{"label": "entailment" | "neutral" | "contradiction"}`` (:func:`label_schema`,
8 more tokens for the JSON); the label goes to the same strict parser, and ``identity()``
says ``structured``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from creval._util.prompts import load_prompt
from creval.errors import CrevalError
from creval.models.base import Completion, GenerateRequest
from creval.nli.base import LABELS, Label, NLIResult, check_pairs

__all__ = ["LLMEntailment", "default_entailment_prompt", "label_schema", "parse_entailment_answer"]

Generate = Callable[[GenerateRequest], Awaitable[list[Completion]]]
_STRIP = " \t\r\n\"'`*_"


def default_entailment_prompt() -> str:
    """The packaged prompt template (placeholders ``{premise}`` and ``{hypothesis}``)."""
    return load_prompt("entailment_llm")


def parse_entailment_answer(text: str) -> Label | None:
    """The label a reply states, or None when the reply is anything but one label word.

    >>> parse_entailment_answer("Entailment.")
    'entailment'
    >>> parse_entailment_answer("**contradiction**")
    'contradiction'
    >>> parse_entailment_answer("Neutral, because B adds a detail") is None
    True
    >>> parse_entailment_answer("not entailment") is None
    True
    """
    word = text.strip(_STRIP)
    if word.endswith("."):
        word = word[:-1].strip(_STRIP)
    word = word.lower()
    return word if word in LABELS else None


def label_schema() -> dict[str, Any]:
    """``{"label": one of the three labels}`` (an object: OpenAI-compatible servers want one)."""
    return {"type": "object", "properties": {"label": {"type": "string", "enum": list(LABELS)}},
            "required": ["label"], "additionalProperties": False}  # fmt: skip


def _label_text(raw: str) -> str:
    """The ``label`` of a JSON answer, for the strict parser; ``raw`` itself when it is not
    JSON of that shape (an answer cut off is left to fail, never completed).

    >>> _label_text('{"label": "neutral"}'), _label_text('{"lab')
    ('neutral', '{"lab')
    """
    try:
        return str(json.loads(raw)["label"])
    except (ValueError, TypeError, KeyError):
        return raw


def _check_template(template: str, source: str) -> str:
    try:
        template.format(premise="", hypothesis="")
    except (KeyError, IndexError, ValueError) as exc:
        raise CrevalError(
            f"The entailment prompt from {source} has a placeholder creval cannot fill ({exc}). "
            "Use {premise} and {hypothesis}; write literal braces as {{ and }}."
        ) from None
    for field in ("{premise}", "{hypothesis}"):
        if field not in template:
            raise CrevalError(f"The entailment prompt from {source} must contain {field}.")
    return template


class LLMEntailment:
    """Entailment by asking a language model (see the module docstring)."""

    def __init__(
        self,
        generate: Generate,
        *,
        prompt_file: str | Path | None = None,
        max_tokens: int = 8,
        model_identity: dict[str, Any] | None = None,
        structured: bool | None = None,
    ) -> None:
        if not callable(generate):
            raise CrevalError("The llm entailment backend needs generate=<async callable>.")
        if prompt_file is not None:
            self.template = _check_template(load_prompt("", str(prompt_file)), str(prompt_file))
        else:
            self.template = _check_template(default_entailment_prompt(), "entailment_llm.txt")
        self.spec = "llm"
        self.generate = generate
        self.max_tokens = max_tokens
        owner = getattr(generate, "__self__", None)
        if model_identity is None and callable(getattr(owner, "identity", None)):
            model_identity = owner.identity()  # type: ignore[union-attr]
        self.model_identity = model_identity
        if structured is None:
            structured = bool(getattr(getattr(owner, "capabilities", None), "structured_output", False))
        self.structured = structured

    def identity(self) -> dict[str, Any]:
        """Backend, the prompt's SHA-256, decoding settings and the model's identity."""
        identity = {
            "backend": "llm",
            "prompt_sha256": hashlib.sha256(self.template.encode("utf-8")).hexdigest(),
            "temperature": 0.0,
            "max_tokens": self.max_tokens,
            "model": self.model_identity,
        }
        if self.structured:  # only then, so that free identities stay as they were
            identity["structured"] = True
        return identity

    def request(self, premise: str, hypothesis: str) -> GenerateRequest:
        """The generation request for one pair."""
        text = self.template.format(premise=premise, hypothesis=hypothesis)
        if self.structured:
            return GenerateRequest.chat(text, temperature=0.0, max_tokens=self.max_tokens + 8, seed=0,
                                        response_schema=label_schema())  # fmt: skip
        return GenerateRequest.chat(text, temperature=0.0, max_tokens=self.max_tokens, seed=0)

    async def _one(self, premise: str, hypothesis: str) -> NLIResult:
        completions = await self.generate(self.request(premise, hypothesis))
        if not completions:
            return NLIResult(label="neutral", failure="the model returned no completion", raw="")
        raw = completions[0].text
        label = parse_entailment_answer(_label_text(raw) if self.structured else raw)
        if label is None:
            return NLIResult(
                label="neutral",
                failure="unparseable answer (expected one word: entailment, neutral or contradiction)",
                raw=raw,
            )
        return NLIResult(label=label, raw=raw)

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        """Ask about every pair concurrently; results in the order of ``pairs``."""
        checked = check_pairs(pairs)
        return list(await asyncio.gather(*(self._one(p, h) for p, h in checked)))
