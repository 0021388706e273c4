"""Constrained decoding for the ``hf`` backend: a JSON schema enforced token by token.

The grammar engine is `llguidance <https://github.com/guidance-ai/llguidance>`_ (the one
behind llama.cpp's ``--grammar`` alternative, vLLM's and SGLang's guided decoding; one
small wheel with no dependencies): the schema is compiled to a grammar, and at every step
a transformers logits processor sets the logits of the tokens that cannot continue an
answer of that shape to ``-inf``, before temperature and top-p. Once the JSON value is
complete only an end-of-sequence token remains allowed. JSON is written with the usual
``", "`` and ``": "`` separators and no other whitespace, so a small model cannot spend its
tokens on blank lines.

This module imports torch, transformers and llguidance; :mod:`creval.models.hf` imports it
only when a request carries a schema (and looks llguidance up without importing it to
declare ``Capabilities.structured_output``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import llguidance
import llguidance.hf
import torch
from transformers import LogitsProcessor

from creval.models.base import ModelError

if TYPE_CHECKING:
    from llguidance._lib import JsonCompileOptions

__all__ = ["SchemaConstraint", "SchemaProcessor"]

#: How the JSON is laid out: compact but readable, and no free whitespace.
JSON_OPTIONS: JsonCompileOptions = {"whitespace_flexible": False, "item_separator": ", ",
                                "key_separator": ": "}  # fmt: skip


class SchemaConstraint:
    """The llguidance view of one model's tokenizer, and the grammars compiled for it.

    Building the token trie takes up to a second for a large vocabulary, so one instance
    is kept per model and reused for every request.
    """

    def __init__(self, tokenizer: Any, eos: set[int], spec: str) -> None:
        self.spec = spec
        try:
            self._tokenizer = llguidance.hf.from_tokenizer(tokenizer, eos_token=sorted(eos) or None)
        except ValueError as exc:  # a slow (Python) tokenizer
            raise ModelError(f"{spec}: constrained decoding needs a fast tokenizer ({exc})") from exc
        self._grammars: dict[str, str] = {}

    def grammar(self, schema: dict[str, Any]) -> str:
        """The checked llguidance grammar of ``schema`` (cached)."""
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            try:
                grammar = llguidance.LLMatcher.grammar_from_json_schema(schema, overrides=JSON_OPTIONS)
            except ValueError as exc:
                raise ModelError(f"{self.spec}: not a usable JSON schema: {exc}") from exc
            error = llguidance.LLMatcher.validate_grammar(grammar, self._tokenizer)
            if error:
                raise ModelError(f"{self.spec}: cannot constrain decoding to this JSON schema: {error}")
            self._grammars[key] = grammar
        return self._grammars[key]

    def processor(self, schema: dict[str, Any], prompt_length: int, rows: int) -> SchemaProcessor:
        """A fresh logits processor for one ``generate`` call of ``rows`` sequences."""
        grammar = self.grammar(schema)
        matchers = [llguidance.LLMatcher(self._tokenizer, grammar, log_level=0) for _ in range(rows)]
        return SchemaProcessor(matchers, prompt_length, set(self._tokenizer.eos_tokens), self.spec)


class SchemaProcessor(LogitsProcessor):
    """Masks, for each sequence, the tokens its grammar matcher does not allow next."""

    def __init__(self, matchers: list[Any], prompt_length: int, eos: set[int], spec: str) -> None:
        self._matchers = matchers
        self._prompt_length = prompt_length
        self._eos = eos
        self._done = [False] * len(matchers)
        self._spec = spec

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        generated = input_ids.shape[1] > self._prompt_length
        for row, matcher in enumerate(self._matchers):
            if self._done[row]:
                continue  # finished: transformers pads this row from now on
            if generated:
                token = int(input_ids[row, -1])
                if token in self._eos:
                    self._done[row] = True
                    continue
                matcher.consume_token(token)
            if matcher.is_error():
                raise ModelError(f"{self._spec}: constrained decoding failed: {matcher.get_error()}")
            bias = torch.frombuffer(bytearray(matcher.compute_logit_bias()), dtype=torch.uint8)
            allowed = torch.zeros(scores.shape[-1], dtype=torch.bool, device=scores.device)
            width = min(len(bias), scores.shape[-1])
            allowed[:width] = bias[:width].to(scores.device) > 0
            if not bool(allowed.any()):
                raise ModelError(f"{self._spec}: no token of the vocabulary continues the JSON "
                                 "schema (constrained decoding)")  # fmt: skip
            scores[row, ~allowed] = float("-inf")
        return scores
