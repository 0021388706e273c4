"""ChatEval-style multi-agent debate judge: the token-cost baseline of the retrieval judge.

Implemented as ChatEval (Chan et al., 2023) runs it, with the *one-by-one* communication
strategy: referees with different personas speak in a fixed order for ``rounds`` rounds,
and every prompt carries the **full** discussion so far (each answer is appended to the
shared history as soon as it is given, the variant the seed-001 paper used). In the last
round each referee's prompt also asks for its final verdict, as ChatEval's
``final_prompt`` does. The prompt therefore grows with every turn: that growth is the cost
the retrieval-based judge avoids.

One debate is held per criterion (as in the seed paper's own ChatEval baseline), with the
same model and criteria as the other judges; debates for different criteria run
concurrently. The verdict for a criterion is, by ``aggregate``:

* ``"majority"`` (ChatEval's rule, the default): the majority of the referees' parsed final
  ``[[YES]]``/``[[NO]]`` votes; a tie (possible with an even number of parsed votes) gives
  None, recorded in ``details``. Confidence = share of parsed votes agreeing with it.
* ``"judge"``: one extra call in which a presiding judge reads the whole transcript and
  answers ``[[YES]]``/``[[NO]]`` with a ``[[0.x]]`` confidence (the seed paper's variant).

Usage is counted per persona (``general_public``, ``critic``, ``scientist``) plus ``judge``.

With ``structured=True`` (the judge model's backend can constrain decoding) the answers that
are verdicts ask for their JSON shape (:mod:`creval.judges.structured`): each referee's
last-round turn a ``reasoning`` and a YES/NO ``verdict``, the presiding judge's answer those
and a ``confidence``. They are rendered back into the ``... Verdict: [[YES]] [[0.8]]`` text
that joins the shared history and that the same strict parsers read; the discussion turns
before the last round stay free text. ``JudgeVerdict.constrained`` records it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

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

__all__ = ["DEFAULT_PERSONAS", "ChatEvalJudge", "Persona", "format_history"]

PROMPTS = ("judge_debate_turn", "judge_debate_final", "judge_debate_judge")


@dataclass(frozen=True)
class Persona:
    """A referee: display ``name`` and the role description put into its prompt.

    >>> Persona("Critic", "You question the others.").key
    'critic'
    """

    name: str
    description: str

    @property
    def key(self) -> str:
        """The usage-role name: the display name in snake case."""
        return re.sub(r"\W+", "_", self.name.strip().lower()).strip("_")


DEFAULT_PERSONAS: tuple[Persona, ...] = (
    Persona("General Public", "You are General Public, one of the referees. You judge as a "
            "sensible ordinary person would: could someone like you really follow these "
            "steps, and would the result be what was asked for? Think for yourself rather "
            "than echoing the others."),
    Persona("Critic", "You are Critic, one of the referees. You probe the other referees' "
            "arguments, challenge judgements that look hasty or poorly supported, and point "
            "out what they have missed."),
    Persona("Scientist", "You are Scientist, one of the referees. You check the physical, "
            "technical and factual claims the solution depends on and whether each step is "
            "sound."),
)  # fmt: skip
"""Three ChatEval-style personas written for judging solutions (ChatEval's own set had
General Public, Critic, News Author, Psychologist and Scientist)."""


def format_history(turns: Sequence[tuple[str, str]]) -> str:
    """The shared discussion as ``Name: text`` blocks (ChatEval's sender-prefixed memory).

    >>> format_history([("Critic", "Step 2 fails."), ("Scientist", "Agreed.")])
    'Critic: Step 2 fails.\\n\\nScientist: Agreed.'
    >>> format_history([])
    '(no one has spoken yet)'
    """
    if not turns:
        return "(no one has spoken yet)"
    return "\n\n".join(f"{name}: {text.strip()}" for name, text in turns)


@dataclass
class _Debate:
    verdict: bool | None
    confidence: float | None
    details: dict[str, Any]


@dataclass
class ChatEvalJudge:
    """One-by-one ChatEval debate per criterion (see the module docstring).

    ``personas`` speak in order each round (ChatEval's best setting: 3 roles, 2 rounds);
    ``temperature`` 0 and ``max_tokens`` 512 are ChatEval's settings. ``prompt_files`` maps
    any of :data:`PROMPTS` to a replacement template file. ``structured``: the verdict
    answers ask for their JSON shape (see the module docstring).
    """

    generate: GenerateFn
    criteria: Sequence[JudgeCriterion] | Mapping[str, str] | None = None
    personas: Sequence[Persona] = DEFAULT_PERSONAS
    rounds: int = 2
    aggregate: Literal["majority", "judge"] = "majority"
    temperature: float = 0.0
    max_tokens: int = 512
    prompt_files: Mapping[str, str] = field(default_factory=dict)
    structured: bool = False
    name: str = "chateval"
    _templates: dict[str, str] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or self.rounds < 1:
            raise CrevalError(f"rounds must be a positive integer, got {self.rounds!r}.")
        if self.max_tokens < 1:
            raise CrevalError(f"max_tokens must be positive, got {self.max_tokens!r}.")
        if self.aggregate not in ("majority", "judge"):
            raise CrevalError(f"aggregate must be 'majority' or 'judge', got {self.aggregate!r}.")
        self.personas = tuple(self.personas)
        keys = [p.key for p in self.personas]
        if not keys or len(set(keys)) != len(keys) or "judge" in keys:
            raise CrevalError(
                f"personas must be non-empty with distinct names other than 'judge', got {keys}."
            )
        check_prompt_files(self.prompt_files, PROMPTS, "ChatEvalJudge")
        self._templates = {name: judge_prompt(name, self.prompt_files) for name in PROMPTS}

    def _fill(self, name: str, **fields: str) -> str:
        source = self.prompt_files.get(name, f"built-in prompt {name}")
        return format_prompt(self._templates[name], source, **fields)

    async def evaluate(self, problem: str, solution: str, *, domain: str) -> JudgeVerdict:
        """Hold one debate per criterion of ``domain`` and return the verdicts."""
        criteria = criteria_for(domain, self.criteria)
        ledger = UsageLedger()
        failures: list[ParseFailure] = []
        debates = await asyncio.gather(
            *(self._debate(problem, solution, c, ledger, failures) for c in criteria)
        )
        names = [c.name for c in criteria]
        return JudgeVerdict(
            judge=self.name,
            domain=domain,
            verdicts={n: d.verdict for n, d in zip(names, debates, strict=True)},
            confidence={n: d.confidence for n, d in zip(names, debates, strict=True)},
            rounds={n: self.rounds for n in names},
            parse_failures=tuple(failures),
            usage=ledger.by_role(),
            stage_usage=ledger.by_stage(),
            details={n: d.details for n, d in zip(names, debates, strict=True)},
            constrained=self.structured,
        )

    def _verdict_schema(self, *, confidence: bool) -> dict[str, Any] | None:
        """The JSON shape of a verdict answer when structured (None: free text)."""
        if not self.structured:
            return None
        return verdict_schema(reasoning=True, confidence=confidence,
                              reasoning_chars=text_budget(self.max_tokens))  # fmt: skip

    async def _ask(self, prompt: str, schema: dict[str, Any] | None, *, role: str, stage: str,
                   ledger: UsageLedger) -> str:  # fmt: skip
        """One call; a constrained answer comes back as the text the parsers read."""
        request = GenerateRequest.chat(prompt, temperature=self.temperature,
                                       max_tokens=self.max_tokens, response_schema=schema)  # fmt: skip
        text = await ask(self.generate, request, role=role, stage=stage, ledger=ledger)
        return as_text(text, render_verdict) if schema is not None else text

    async def _debate(self, problem: str, solution: str, criterion: JudgeCriterion,
                      ledger: UsageLedger, failures: list[ParseFailure]) -> _Debate:  # fmt: skip
        about = {"problem": problem, "solution": solution, "criterion": criterion.title,
                 "definition": criterion.definition}  # fmt: skip
        final = self._fill("judge_debate_final", criterion=criterion.title)
        history: list[tuple[str, str]] = []
        votes: dict[str, bool | None] = {}
        for round_no in range(1, self.rounds + 1):
            last = round_no == self.rounds
            for persona in self.personas:
                prompt = self._fill(
                    "judge_debate_turn", **about, chat_history=format_history(history),
                    persona_name=persona.name, persona_description=persona.description,
                    final_instruction=final if last else "",
                )  # fmt: skip
                schema = self._verdict_schema(confidence=False) if last else None
                text = await self._ask(prompt, schema, role=persona.key,
                                       stage="final" if last else "debate", ledger=ledger)  # fmt: skip
                history.append((persona.name, text))
                if last and self.aggregate == "majority":
                    votes[persona.key], error = parse_binary(text)
                    if error:
                        failures.append(ParseFailure(persona.key, "final", criterion.name,
                                                     error, text))  # fmt: skip
        if self.aggregate == "judge":
            return await self._judge(about, history, criterion, ledger, failures)
        return _majority(votes)

    async def _judge(self, about: dict[str, str], history: list[tuple[str, str]],
                     criterion: JudgeCriterion, ledger: UsageLedger,
                     failures: list[ParseFailure]) -> _Debate:  # fmt: skip
        prompt = self._fill("judge_debate_judge", **about, chat_history=format_history(history))
        text = await self._ask(prompt, self._verdict_schema(confidence=True), role="judge",
                               stage="judge", ledger=ledger)  # fmt: skip
        verdict, error = parse_binary(text)
        if error:
            failures.append(ParseFailure("judge", "judge", criterion.name, error, text))
        confidence, conf_error = parse_confidence(text)
        if conf_error:
            failures.append(ParseFailure("judge", "judge_confidence", criterion.name,
                                         conf_error, text))  # fmt: skip
        return _Debate(verdict, confidence if verdict is not None else None,
                       {"aggregate": "judge", "turns": len(history)})  # fmt: skip


def _majority(votes: Mapping[str, bool | None]) -> _Debate:
    """Majority of parsed votes; a tie or no parsed vote gives None.

    >>> _majority({"a": True, "b": False, "c": True}).verdict
    True
    >>> d = _majority({"a": True, "b": False, "c": None}); d.verdict, d.details["tie"]
    (None, True)
    """
    yes = sum(v is True for v in votes.values())
    no = sum(v is False for v in votes.values())
    verdict = True if yes > no else False if no > yes else None
    share = max(yes, no) / (yes + no) if verdict is not None else None
    return _Debate(verdict, share, {"aggregate": "majority", "votes": dict(votes),
                                    "tie": verdict is None and yes + no > 0})  # fmt: skip
