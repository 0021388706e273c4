"""LoTbench's evaluators (seed 003, sections 5.5-5.6, 7.2), as small judge dataclasses.

* :class:`DaesoJudge` (E1) decides whether a fill R_t and the human response R are DAESO
  (different approach, equally satisfactory outcome). ``mode="causal"`` is the paper's
  method: first (once per sample, independent of R_t) the causal chains of the scene C and
  of R are built from C and the explanation Exp, and the creative mapping from R's key text
  onto a node of C is named; then, per fill, the key text is intervened on (replaced by the
  fill) and the judge says whether the fill achieves an equally satisfying mapping. The two
  weaker settings of section 7.2 are ``zeroshot`` (R and R_t only) and ``zeroshot-context``
  (with C and Exp).
* :class:`AnswerJudge` (E2) answers the tested model's yes/no question from R and Exp.

Both parse strictly: a verdict is one ``Verdict: DAESO`` / ``Verdict: NOT DAESO`` line (all
such lines must agree), an answer one ``Answer: YES|NO|IRRELEVANT`` line. Anything else is a
parse failure recorded with the raw text; the game treats it as "not DAESO" / "no answer".
Prompts are ours and replaceable from a file. With ``structured=True`` (the judge's backend
can constrain decoding) the verdict and the answer are asked for as JSON of that shape
(:func:`daeso_schema`, :func:`answer_schema`) and read from their fields only
(:func:`parse_constrained_verdict`, :func:`parse_constrained_answer`); JSON that does not
decode is a parse failure.

>>> parse_verdict("The mapping holds.\\nVerdict: DAESO").daeso
True
>>> parse_verdict("Verdict: maybe").error
'no line "Verdict: DAESO" or "Verdict: NOT DAESO"'
>>> parse_answer("**Answer:** No").answer
'NO'
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from creval.benchmarks.common import format_prompt, load_prompt
from creval.benchmarks.lotbench.data import Sample
from creval.judges.usage import GenerateFn, UsageLedger, ask
from creval.models.base import GenerateRequest

E1Mode = Literal["causal", "zeroshot", "zeroshot-context"]
E1_PROMPTS: dict[str, str] = {
    "causal": "lotbench_e1_causal",
    "zeroshot": "lotbench_e1_zeroshot",
    "zeroshot-context": "lotbench_e1_zeroshot_context",
}
CHAIN_PROMPT = "lotbench_e1_chain"
E2_PROMPT = "lotbench_e2"

_VERDICT = re.compile(r"^[\W_]*verdict[\W_]*[:：][\W_]*(?P<v>not[\s_-]*daeso|daeso)[\W_]*$",
                      re.IGNORECASE | re.MULTILINE)
_ANSWER = re.compile(r"^[\W_]*answer[\W_]*[:：][\W_]*(?P<v>yes|no|irrelevant)[\W_]*$",
                     re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class Verdict:
    daeso: bool | None
    raw: str
    error: str | None = None


@dataclass(frozen=True)
class Answer:
    answer: str | None  # YES, NO, IRRELEVANT
    raw: str
    error: str | None = None


def parse_verdict(raw: str) -> Verdict:
    """E1's verdict, strictly (see the module docstring)."""
    found = {m.group("v").upper().replace("_", " ").replace("-", " ").split()[0]
             for m in _VERDICT.finditer(unicodedata.normalize("NFKC", raw))}
    if not found:
        return Verdict(None, raw, 'no line "Verdict: DAESO" or "Verdict: NOT DAESO"')
    if len(found) > 1:
        return Verdict(None, raw, "both DAESO and NOT DAESO verdict lines")
    return Verdict(found == {"DAESO"}, raw)


def parse_answer(raw: str) -> Answer:
    """E2's answer, strictly (see the module docstring)."""
    found = {m.group("v").upper() for m in _ANSWER.finditer(unicodedata.normalize("NFKC", raw))}
    if not found:
        return Answer(None, raw, 'no line "Answer: YES", "Answer: NO" or "Answer: IRRELEVANT"')
    if len(found) > 1:
        return Answer(None, raw, f"conflicting answers {sorted(found)}")
    return Answer(found.pop(), raw)


def daeso_schema() -> dict[str, Any]:
    """E1's constrained answer: a short reasoning, then the verdict."""
    return {"type": "object", "additionalProperties": False, "required": ["reasoning", "verdict"],
            "properties": {"reasoning": {"type": "string", "maxLength": 400},
                           "verdict": {"type": "string", "enum": ["DAESO", "NOT DAESO"]}}}


def answer_schema() -> dict[str, Any]:
    """E2's constrained answer."""
    return {"type": "object", "additionalProperties": False, "required": ["answer"],
            "properties": {"answer": {"type": "string", "enum": ["YES", "NO", "IRRELEVANT"]}}}


_CUT = "not the JSON answer asked for (cut short?)"


def _json_field(raw: str, key: str, allowed: tuple[str, ...]) -> str | None:
    try:
        value = json.loads(raw)[key]
    except (ValueError, TypeError, KeyError):
        return None
    return value if value in allowed else None


def parse_constrained_verdict(raw: str) -> Verdict:
    """E1's constrained (JSON) verdict, read from its ``verdict`` field only: a verdict line
    inside the free ``reasoning`` cannot contradict it. JSON that does not decode or lacks
    the field (an answer cut at ``max_tokens``) is a parse failure with the raw text.

    >>> parse_constrained_verdict('{"reasoning": "Verdict: DAESO?", "verdict": "NOT DAESO"}').daeso
    False
    """
    value = _json_field(raw, "verdict", ("DAESO", "NOT DAESO"))
    return Verdict(None, raw, _CUT) if value is None else Verdict(value == "DAESO", raw)


def parse_constrained_answer(raw: str) -> Answer:
    """E2's constrained (JSON) answer, from its ``answer`` field.

    >>> parse_constrained_answer('{"answer": "Y').error
    'not the JSON answer asked for (cut short?)'
    """
    value = _json_field(raw, "answer", ("YES", "NO", "IRRELEVANT"))
    return Answer(None, raw, _CUT) if value is None else Answer(value, raw)


def _fields(sample: Sample) -> dict[str, str]:
    return {"input": sample.input or "(the image)", "caption": sample.caption,
            "response": sample.response, "key": sample.key, "masked": sample.masked,
            "explanation": sample.explanation}


@dataclass
class DaesoJudge:
    """E1. ``generate`` reaches the judge model; ``analyses`` caches the causal analysis."""

    generate: GenerateFn
    mode: E1Mode = "causal"
    prompt_file: str | None = None
    chain_prompt_file: str | None = None
    max_tokens: int = 256
    structured: bool = False
    ledger: UsageLedger = field(default_factory=UsageLedger)
    analyses: dict[str, str] = field(default_factory=dict)

    def _request(self, text: str, schema: dict[str, Any] | None = None) -> GenerateRequest:
        return GenerateRequest.chat(text, temperature=0.0, max_tokens=self.max_tokens, seed=0,
                                    response_schema=schema)

    async def analysis(self, sample: Sample) -> str:
        """The causal chains of C and R and the creative mapping (causal mode only)."""
        if sample.id not in self.analyses:
            template = load_prompt(CHAIN_PROMPT, self.chain_prompt_file)
            text = format_prompt(template, self.chain_prompt_file or CHAIN_PROMPT, **_fields(sample))
            self.analyses[sample.id] = await ask(
                self.generate, self._request(text), role="e1", stage="chain", ledger=self.ledger)
        return self.analyses[sample.id]

    async def evaluate(self, sample: Sample, fill: str) -> Verdict:
        """Whether ``sample.with_fill(fill)`` and R are DAESO."""
        name = E1_PROMPTS[self.mode]
        template = load_prompt(name, self.prompt_file)
        fields = _fields(sample) | {"candidate": sample.with_fill(fill), "fill": fill}
        if self.mode == "causal":
            fields["analysis"] = await self.analysis(sample)
        text = format_prompt(template, self.prompt_file or name, **fields)
        schema = daeso_schema() if self.structured else None
        raw = await ask(self.generate, self._request(text, schema), role="e1", stage="verdict",
                        ledger=self.ledger)
        return parse_constrained_verdict(raw) if self.structured else parse_verdict(raw)


@dataclass
class AnswerJudge:
    """E2: answers a yes/no question about the hidden key text from R and Exp."""

    generate: GenerateFn
    prompt_file: str | None = None
    max_tokens: int = 64
    structured: bool = False
    ledger: UsageLedger = field(default_factory=UsageLedger)

    async def evaluate(self, sample: Sample, question: str) -> Answer:
        template = load_prompt(E2_PROMPT, self.prompt_file)
        text = format_prompt(template, self.prompt_file or E2_PROMPT, question=question,
                             **_fields(sample))
        request = GenerateRequest.chat(
            text, temperature=0.0, max_tokens=self.max_tokens, seed=0,
            response_schema=answer_schema() if self.structured else None)
        raw = await ask(self.generate, request, role="e2", stage="answer", ledger=self.ledger)
        return parse_constrained_answer(raw) if self.structured else parse_answer(raw)


def usage_dict(ledger: UsageLedger) -> dict[str, Any]:
    return {role: u.to_dict() for role, u in ledger.by_role().items()}
