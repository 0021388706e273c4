"""Denial Prompting (seed 000, Algorithm 1): harder and harder versions of a problem.

One multi-turn conversation asks for a solution to the problem, then to the problem with
one more technique denied, and so on; after every answer a separate, context-free call
detects the techniques the solution used, and one technique not yet denied is drawn with
a seeded random generator and added to the constraints. When a round finds nothing new,
the constraints stay as they were (the paper's tau_t = empty set) and the next round asks
the same constrained problem again, as upstream does; :func:`distinct_states` later keeps
one copy of each constraint set.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from creval.models.base import Message

CONSTRAINT_HEADER = "Programming constraints: DO NOT use the following techniques"
ORIGINAL_MARKER = "this is the og problem"  # upstream's constraint list of state 0

Chat = Callable[[list[Message]], Awaitable[str]]
Detect = Callable[[str], Awaitable[list[str] | None]]


def constrained_statement(statement: str, constraints: Sequence[str]) -> str:
    """The problem with its constraint block after the title line, newest constraint first.

    This is the upstream layout, so datasets built here read like NeoCoder's.

    >>> print(constrained_statement("A. Sum\\nAdd two numbers.", ["for loop", "recursion"]))
    A. Sum
    Programming constraints: DO NOT use the following techniques
    - recursion
    - for loop
    Add two numbers.
    >>> constrained_statement("A. Sum\\nAdd two numbers.", [])
    'A. Sum\\nAdd two numbers.'
    """
    if not constraints:
        return statement
    title, _, body = statement.partition("\n")
    block = "\n".join([CONSTRAINT_HEADER, *(f"- {c}" for c in reversed(constraints))])
    return f"{title}\n{block}\n{body}" if body else f"{title}\n{block}"


def draw_constraint(
    detected: Sequence[str], denied: Sequence[str], rng: random.Random
) -> str | None:
    """Line 4 of Algorithm 1: one technique from ``detected`` that is not yet denied.

    Candidates are sorted first, so the draw depends only on the seed and the sets.

    >>> draw_constraint(["for loop", "if statement"], ["for loop"], random.Random(0))
    'if statement'
    >>> draw_constraint(["for loop"], ["for loop"], random.Random(0)) is None
    True
    """
    candidates = sorted(set(detected) - set(denied))
    return rng.choice(candidates) if candidates else None


@dataclass
class DenialRound:
    """One round: the statement asked, the answer, and what detection found."""

    constraints: list[str]
    statement: str
    answer: str
    detected: list[str] | None = None  # None: the detector's answer did not parse
    new_constraint: str | None = None


@dataclass
class DenialResult:
    rounds: list[DenialRound] = field(default_factory=list)

    def upstream_entry(self, problem_id: str, extract: Callable[[str], str]) -> dict[str, Any]:
        """This problem as one object of upstream ``NeoCoder.json``."""
        return {
            "problem_id": problem_id,
            "problem_statements": [r.statement for r in self.rounds],
            "constraints_list": [
                list(r.constraints) if r.constraints else [ORIGINAL_MARKER] for r in self.rounds
            ],
            "codes": [extract(r.answer) for r in self.rounds],
        }


async def denial_prompting(
    statement: str,
    *,
    ask: Callable[[str], str],
    chat: Chat,
    detect: Detect,
    rounds: int,
    rng: random.Random,
) -> DenialResult:
    """Run Algorithm 1 for ``rounds`` denial rounds (``rounds + 1`` statements in all).

    ``ask`` turns a (constrained) statement into the user message; ``chat`` answers the
    whole conversation so far; ``detect`` names the techniques of one answer without any
    conversation context (None when its answer did not parse: then nothing is denied).
    """
    result = DenialResult()
    messages: list[Message] = []
    constraints: list[str] = []
    for number in range(rounds + 1):
        current = constrained_statement(statement, constraints)
        messages.append(Message(role="user", content=ask(current)))
        answer = await chat(list(messages))
        messages.append(Message(role="assistant", content=answer))
        entry = DenialRound(constraints=list(constraints), statement=current, answer=answer)
        result.rounds.append(entry)
        if number == rounds:
            break
        entry.detected = await detect(answer)
        entry.new_constraint = draw_constraint(entry.detected or [], constraints, rng)
        if entry.new_constraint is not None:
            constraints = [*constraints, entry.new_constraint]
    return result
