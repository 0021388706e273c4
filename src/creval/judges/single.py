"""Single-agent convergent judges: one-shot, chain-of-thought, few-shot, few-shot with CoT.

The seed-001 paper's single-agent baselines (Table 2). One model call per criterion (calls
for different criteria run concurrently), each answering ``[[YES]]``/``[[NO]]`` plus a
``[[0.x]]`` confidence in that verdict:

* ``"oneshot"``: the verdict directly;
* ``"cot"``: step-by-step reasoning first, then the verdict line;
* ``"fewshot"``: judged examples for the same criterion, then the verdict directly;
* ``"fewshot_cot"``: judged examples with their reasoning, then reasoning and verdict.

Few-shot examples are the user's (``examples``) or :data:`BUILTIN_EXAMPLES`, a small set of
our own MacGyver-style items covering feasibility, safety and effectiveness with both
outcomes. A criterion with no example is an error that says what to pass.

A missing or ambiguous verdict makes that criterion None (recorded); a verdict without a
parsable confidence keeps the verdict, with confidence None and a recorded failure.
Usage is counted under the single role ``judge``.

With ``structured=True`` (the judge model's backend can constrain decoding) each call asks
for a JSON answer (:func:`~creval.judges.structured.verdict_schema`: reasoning first in the
chain-of-thought modes, then the verdict and confidence), rendered back to the verdict line
that the same strict parsers read; ``JudgeVerdict.constrained`` records it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from creval._util.prompts import format_prompt
from creval.errors import CrevalError
from creval.judges.criteria import (
    JudgeCriterion,
    JudgeVerdict,
    ParseFailure,
    check_prompt_files,
    criteria_for,
    judge_prompt,
    parse_binary,
    parse_confidence,
)
from creval.judges.structured import as_text, render_verdict, text_budget, verdict_schema
from creval.judges.usage import GenerateFn, UsageLedger, ask
from creval.models.base import GenerateRequest

__all__ = ["BUILTIN_EXAMPLES", "FewShotExample", "SingleAgentJudge", "format_examples"]

Mode = Literal["oneshot", "cot", "fewshot", "fewshot_cot"]
MODES: tuple[str, ...] = ("oneshot", "cot", "fewshot", "fewshot_cot")


@dataclass(frozen=True)
class FewShotExample:
    """A judged example for one criterion: the verdict, a short rationale, a confidence."""

    problem: str
    solution: str
    criterion: str
    verdict: bool
    rationale: str
    confidence: float = 0.9


_WATER = (
    "The potted plants on your windowsill are drying out and you have no watering can. You "
    "have an empty plastic shampoo bottle, a kitchen sponge, a colander, scissors and a tap. "
    "How can you water the plants?",
    "Step 1: Rinse the shampoo bottle until no soap is left. Step 2: Fill it at the tap. "
    "Step 3: Pour the water slowly onto the soil of each pot.",
)
_GUTTER = (
    "A tennis ball is stuck in a roof gutter 4 metres up and there is no ladder. You have a "
    "1-metre broom, a garden hose, a roll of duct tape and a bucket. How can you get the "
    "ball down?",
    "Step 1: Tape the broom to the end of the garden hose to make a 5-metre pole. Step 2: "
    "Hold the hose upright and push the ball out of the gutter with the broom.",
)
_CHARGE = (
    "Your phone is dead during a power cut and you must make a call. You have a car with a "
    "12 V battery, a phone charging cable, a kitchen knife and a roll of tape. How can you "
    "charge the phone?",
    "Step 1: Cut the charging cable and strip its wires with the knife. Step 2: Twist the "
    "bare wires directly onto the car battery's terminals. Step 3: Plug in the phone.",
)

BUILTIN_EXAMPLES: tuple[FewShotExample, ...] = (
    FewShotExample(*_WATER, "feasibility", True, "Every item is available and each step is "
                   "easy for anyone to carry out."),
    FewShotExample(*_WATER, "safety", True, "Rinsing and pouring water carry no real risk "
                   "of injury."),
    FewShotExample(*_WATER, "effectiveness", True, "Pouring water onto the soil fully "
                   "solves the problem of the dry plants."),
    FewShotExample(*_GUTTER, "feasibility", False, "A garden hose is floppy, so it cannot "
                   "be held upright as a rigid 5-metre pole.", 0.8),
    FewShotExample(*_GUTTER, "safety", True, "Standing on the ground and pushing with a "
                   "light pole poses little risk."),
    FewShotExample(*_GUTTER, "effectiveness", False, "The hose cannot lift the broom to "
                   "the gutter, so the ball stays stuck.", 0.8),
    FewShotExample(*_CHARGE, "feasibility", True, "Cutting, stripping and twisting wires "
                   "onto terminals can be done with these items.", 0.7),
    FewShotExample(*_CHARGE, "safety", False, "Bare wires on a car battery risk sparks, "
                   "burns and a battery fire."),
    FewShotExample(*_CHARGE, "effectiveness", False, "12 V applied directly would damage "
                   "the phone instead of charging it.", 0.8),
)  # fmt: skip
"""Our own small few-shot set (MacGyver domain): three items, each judged on all three
MacGyver criteria, with both verdicts represented for every criterion but safety."""


def format_examples(examples: Sequence[FewShotExample], *, with_rationale: bool) -> str:
    """Judged examples as prompt text; the rationale is shown only for chain-of-thought.

    >>> ex = FewShotExample("P?", "S.", "safety", False, "Sparks.", 0.8)
    >>> print(format_examples([ex], with_rationale=True))
    Example 1
    [Problem]
    P?
    [Proposed solution]
    S.
    Judgement: Sparks. Verdict: [[NO]] [[0.8]]
    """
    blocks = []
    for i, ex in enumerate(examples, start=1):
        verdict = f"Verdict: [[{'YES' if ex.verdict else 'NO'}]] [[{ex.confidence:.1f}]]"
        judgement = f"{ex.rationale} {verdict}" if with_rationale else verdict
        blocks.append(f"Example {i}\n[Problem]\n{ex.problem}\n[Proposed solution]\n"
                      f"{ex.solution}\nJudgement: {judgement}")  # fmt: skip
    return "\n\n".join(blocks)


@dataclass
class SingleAgentJudge:
    """One call per criterion in ``mode`` (module docstring). ``examples`` feed few-shot modes.

    ``prompt_files`` maps ``judge_single_<mode>`` to a replacement template file.
    """

    generate: GenerateFn
    mode: Mode = "oneshot"
    criteria: Sequence[JudgeCriterion] | Mapping[str, str] | None = None
    examples: Sequence[FewShotExample] | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    prompt_files: Mapping[str, str] = field(default_factory=dict)
    structured: bool = False
    _template: str = field(init=False, repr=False, default="")

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise CrevalError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}.")
        if self.max_tokens < 1:
            raise CrevalError(f"max_tokens must be positive, got {self.max_tokens!r}.")
        check_prompt_files(self.prompt_files, [self.prompt_name], "SingleAgentJudge")
        self._template = judge_prompt(self.prompt_name, self.prompt_files)

    @property
    def prompt_name(self) -> str:
        return f"judge_single_{self.mode}"

    @property
    def name(self) -> str:
        return f"single-{self.mode}"

    def _examples_for(self, criterion: JudgeCriterion) -> str:
        if not self.mode.startswith("fewshot"):
            return ""
        pool = BUILTIN_EXAMPLES if self.examples is None else tuple(self.examples)
        chosen = [ex for ex in pool if ex.criterion == criterion.name]
        if not chosen:
            raise CrevalError(
                f"Few-shot judging of {criterion.name!r} needs examples for that criterion; "
                "the built-in set covers feasibility, safety and effectiveness (MacGyver). "
                "Pass examples=[FewShotExample(..., criterion=...)]."
            )
        return format_examples(chosen, with_rationale=self.mode == "fewshot_cot")

    async def evaluate(self, problem: str, solution: str, *, domain: str) -> JudgeVerdict:
        """Judge ``solution`` on every criterion of ``domain``, one call per criterion."""
        criteria = criteria_for(domain, self.criteria)
        examples = {c.name: self._examples_for(c) for c in criteria}  # fail before any call
        ledger = UsageLedger()
        source = self.prompt_files.get(self.prompt_name, f"built-in prompt {self.prompt_name}")

        async def one(c: JudgeCriterion) -> str:
            prompt = format_prompt(self._template, source, problem=problem, solution=solution,
                                   criterion=c.title, definition=c.definition,
                                   examples=examples[c.name])  # fmt: skip
            schema = None
            if self.structured:
                schema = verdict_schema(reasoning=self.mode in ("cot", "fewshot_cot"),
                                        reasoning_chars=text_budget(self.max_tokens))  # fmt: skip
            request = GenerateRequest.chat(prompt, temperature=self.temperature,
                                           max_tokens=self.max_tokens,
                                           response_schema=schema)  # fmt: skip
            text = await ask(self.generate, request, role="judge", stage=self.mode,
                             ledger=ledger)  # fmt: skip
            return as_text(text, render_verdict) if self.structured else text

        texts = await asyncio.gather(*(one(c) for c in criteria))
        verdicts: dict[str, bool | None] = {}
        confidence: dict[str, float | None] = {}
        failures: list[ParseFailure] = []
        for c, text in zip(criteria, texts, strict=True):
            verdicts[c.name], error = parse_binary(text)
            confidence[c.name], conf_error = parse_confidence(text)
            if error:
                failures.append(ParseFailure("judge", "verdict", c.name, error, text))
                confidence[c.name] = None
            elif conf_error:
                failures.append(ParseFailure("judge", "confidence", c.name, conf_error, text))
        return JudgeVerdict(
            judge=self.name, domain=domain, verdicts=verdicts, confidence=confidence,
            rounds={c.name: 0 for c in criteria}, parse_failures=tuple(failures),
            usage=ledger.by_role(), stage_usage=ledger.by_stage(), constrained=self.structured,
        )  # fmt: skip
