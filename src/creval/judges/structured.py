"""Answer shapes for instruments: JSON schemas built from what the strict parsers accept.

A judge whose backend can constrain decoding (``Capabilities.structured_output``) sends the
schema with its request (``GenerateRequest.response_schema``), so even a small model writes
an answer of the right shape. Strict parsing stays: the constrained JSON is rendered back
into the text format the judge's parser reads (:func:`as_text`), and that parser decides, as
it does for a free answer. JSON that does not decode (an answer cut at ``max_tokens``) is
passed on unchanged and fails to parse like any other malformed answer: nothing is coerced.

>>> raw = '{"Fluency": 4, "Flexibility": 3, "Originality": 2, "Elaboration": 5}'
>>> print(as_text(raw, render_rubric))
Fluency: 4
Flexibility: 3
Originality: 2
Elaboration: 5
>>> as_text('{"verdict": "YES", "confidence": "0.8"}', render_verdict)
'Verdict: [[YES]] [[0.8]]'
>>> as_text('{"verdict": "YES", "conf', render_verdict)  # cut off: left to the strict parser
'{"verdict": "YES", "conf'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "CONFIDENCES", "as_text", "text_budget", "confidence_schema", "discussion_schema", "list_schema",
    "render_confidence", "render_discussion", "render_numbered", "render_rubric",
    "render_scales", "render_short_verdict", "render_verdict", "rubric_schema", "scales_schema",
    "short_verdict_schema", "verdict_schema",
]  # fmt: skip

#: Confidence values a constrained answer may give (one decimal, as the prompts ask).
CONFIDENCES: tuple[str, ...] = tuple(f"{i / 10:.1f}" for i in range(11))
#: Upper bound on free-text fields, so a small model cannot ramble into ``max_tokens``.
REASON_CHARS = 400


def _text(max_length: int = REASON_CHARS) -> dict[str, Any]:
    return {"type": "string", "maxLength": max_length}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}  # fmt: skip


def as_text(raw: str, render: Callable[[Any], str]) -> str:
    """``raw`` decoded as JSON and rendered by ``render`` into the parser's text format;
    ``raw`` unchanged when it is not JSON, or not JSON of the shape ``render`` reads."""
    try:
        # strict=False: a raw line break inside a string is the only leniency (some
        # grammar-constrained decoders let one through); the content is not touched
        value = json.loads(raw, strict=False)
        return render(value)
    except (ValueError, TypeError, KeyError, AttributeError):
        return raw


# -- rubric (TTCT / JCQ): "Label: n" lines, read by judges.rubric.parse_rubric ----------------
def rubric_schema(labels: Sequence[str], *, low: int = 1, high: int = 5) -> dict[str, Any]:
    """One integer in ``low..high`` per label, in order.

    >>> rubric_schema(["Fluency"])["properties"]["Fluency"]["enum"]
    [1, 2, 3, 4, 5]
    """
    return _object({label: {"type": "integer", "enum": list(range(low, high + 1))}
                    for label in labels})  # fmt: skip


def render_rubric(value: Any) -> str:
    """``{"Fluency": 4, ...}`` -> ``Fluency: 4`` lines (the values as they came)."""
    return "\n".join(f"{label}: {json.dumps(v, ensure_ascii=False)}" for label, v in value.items())


def scales_schema(scales: Sequence[tuple[Sequence[str], int]], *,
                  analysis_chars: int = 0) -> dict[str, Any]:  # fmt: skip
    """An ``analysis`` first (when ``analysis_chars``), then one integer in ``1..high`` per
    label, for rubrics whose criteria have different scales (``(labels, high)`` groups).

    >>> s = scales_schema([(["logic"], 5), (["overall"], 10)], analysis_chars=200)
    >>> list(s["properties"]), s["properties"]["overall"]["enum"][-1]
    (['analysis', 'logic', 'overall'], 10)
    """
    properties: dict[str, Any] = {"analysis": _text(analysis_chars)} if analysis_chars else {}
    for labels, high in scales:
        properties.update(rubric_schema(labels, low=1, high=high)["properties"])
    return _object(properties)


def render_scales(value: Any) -> str:
    """``{"analysis": "...", "logic": 4}`` -> the analysis, then ``logic: 4`` lines."""
    scores = {k: v for k, v in value.items() if k != "analysis"}
    analysis = str(value.get("analysis", "")).strip()
    return "\n".join([analysis, render_rubric(scores)] if analysis else [render_rubric(scores)])


# -- numbered list: "1. x" lines (SNS concepts) -------------------------------------------------
def list_schema(n: int, *, item_chars: int = 60) -> dict[str, Any]:
    """Exactly ``n`` strings of 1 to ``item_chars`` characters, each one line: no line break,
    quote or backslash (so no escape can smuggle a line break into a numbered line) and not
    starting with a space. As a ``pattern``, which llama.cpp grammars and llguidance both
    enforce.

    >>> print(list_schema(5, item_chars=20)["items"]["pattern"])
    ^[^"\\\\\\n\\r ][^"\\\\\\n\\r]{0,19}$
    """
    line = r'[^"\\\n\r'
    return {"type": "array", "minItems": n, "maxItems": n,
            "items": {"type": "string", "pattern": f"^{line} ]{line}]{{0,{item_chars - 1}}}$"}}  # fmt: skip


def render_numbered(value: Any) -> str:
    """``["rope", "knot"]`` -> ``1. rope`` / ``2. knot`` lines (the strings as they came).

    >>> print(render_numbered(["rope", "knot"]))
    1. rope
    2. knot
    """
    if not isinstance(value, list):
        raise TypeError("not a list")
    return "\n".join(f"{i}. {item}" for i, item in enumerate(value, 1))


# -- binary verdict with optional reasoning and confidence (single-agent, multi-agent verdict) --
def text_budget(max_tokens: int, *, overhead: int = 48, cap: int = REASON_CHARS) -> int:
    """Characters a free-text field may use so that the whole JSON answer fits ``max_tokens``
    even for text costing a token per character (an answer cut off does not parse).

    >>> text_budget(512), text_budget(128), text_budget(40)
    (400, 80, 16)
    """
    return max(16, min(cap, max_tokens - overhead))


def verdict_schema(*, reasoning: bool = False, confidence: bool = True,
                   reasoning_chars: int = REASON_CHARS) -> dict[str, Any]:  # fmt: skip
    """``reasoning`` (first, when asked), ``verdict`` YES/NO and ``confidence`` 0.0..1.0."""
    properties: dict[str, Any] = {}
    if reasoning:
        properties["reasoning"] = _text(reasoning_chars)
    properties["verdict"] = {"type": "string", "enum": ["YES", "NO"]}
    if confidence:
        properties["confidence"] = {"type": "string", "enum": list(CONFIDENCES)}
    return _object(properties)


def render_verdict(value: Any) -> str:
    """-> ``[reasoning] Verdict: [[YES]] [[0.8]]``, read by ``parse_binary``/``parse_confidence``."""
    parts = [str(value["reasoning"]).strip()] if value.get("reasoning") else []
    line = f"Verdict: [[{value['verdict']}]]"
    if "confidence" in value:
        line += f" [[{value['confidence']}]]"
    return " ".join([*parts, line])


def short_verdict_schema(justification_chars: int = 80) -> dict[str, Any]:
    """The verdict first, then a one-sentence justification short enough for a small
    ``max_tokens`` (a JSON answer cut off mid-way does not parse)."""
    return _object({"verdict": {"type": "string", "enum": ["YES", "NO"]},
                    "justification": _text(justification_chars)})  # fmt: skip


def render_short_verdict(value: Any) -> str:
    """-> ``[[YES]] justification``."""
    return f"[[{value['verdict']}]] {str(value['justification']).strip()}".strip()


# -- multi-agent confidence: "explanation [[0.6]] ([NO])" ---------------------------------------
def confidence_schema() -> dict[str, Any]:
    """A short explanation, a confidence 0.0..1.0 and a YES/NO stance."""
    return _object({"explanation": _text(80),
                    "confidence": {"type": "string", "enum": list(CONFIDENCES)},
                    "stance": {"type": "string", "enum": ["YES", "NO"]}})  # fmt: skip


def render_confidence(value: Any) -> str:
    return f"{str(value['explanation']).strip()} [[{value['confidence']}]] ([{value['stance']}])"


# -- multi-agent discussion turn: [[ANSWERS]] / [[OPINION]] / [[QUESTIONS]] ---------------------
def discussion_schema(max_tokens: int = 512) -> dict[str, Any]:
    """Answers, a non-empty opinion, and up to two questions addressed to an analyst, their
    lengths shared out so that the answer fits ``max_tokens`` (:func:`text_budget`)."""
    budget = text_budget(max_tokens, overhead=80, cap=1100)
    question = _object({"to": {"type": "string", "enum": ["problem", "solution", "criterion"]},
                        "question": _text(max(16, budget * 15 // 100))})  # fmt: skip
    return _object({
        "answers": _text(max(16, budget * 25 // 100)),
        "opinion": {"type": "string", "minLength": 1, "maxLength": max(16, budget * 45 // 100)},
        "questions": {"type": "array", "items": question, "maxItems": 2},
    })  # fmt: skip


def render_discussion(value: Any) -> str:
    """-> the three labelled parts ``parse_discussion`` reads."""
    questions = "\n".join(f"To {q['to']} analyst: {q['question']}" for q in value["questions"])
    return (f"[[ANSWERS]] {str(value['answers']).strip() or 'None'}\n"
            f"[[OPINION]] {str(value['opinion']).strip()}\n"
            f"[[QUESTIONS]] {questions or 'None'}")  # fmt: skip
