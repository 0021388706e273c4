"""The step-wise protocol of seed 001 (section 5): sample n next steps, extend greedily.

At every step the target model is asked for the next step of the solution only. ``n``
candidates are sampled (default 10, temperature 1.0, top-p 0.9); they are what semantic
entropy is computed on. Their log-probabilities are by default those of the model's own
distribution, ``log P(s|x) = sum_i log P(t_i | t_<i, x)`` (Eq. 1, ``logprob_source="model"``);
``logprob_source="sampling"`` asks for those of the distribution actually sampled (after
temperature and top-p) where the backend can give them. The choice is recorded in the
output (``logprob_source``). The solution is then extended by one step chosen by
``continuation``:

* ``greedy`` (the paper): a separate temperature-0 answer to the same prompt;
* ``highest_probability`` (the upstream code): the sampled candidate with the highest
  sequence probability (sum of token log-probabilities).

The model says it is finished by answering ``DONE`` (``STOP``, the upstream word, is also
recognised). Under ``finish="greedy"`` the solution ends when the continuation is DONE;
under ``finish="majority"`` (upstream) it ends when at least half the candidates are DONE.
With the greedy continuation the greedy answer is asked first, and when it is DONE no
candidates are sampled for that step: like upstream, the protocol stops before a step that
is not part of the solution (the scorer also leaves such a step out of older runs).
Candidates that are DONE or empty are recorded but are not steps: they are left out of
the clustering of that step. The solution also ends after ``max_steps`` steps.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from creval.benchmarks.common import answer_placeholders, format_prompt, is_placeholder
from creval.models.base import Completion, GenerateRequest, TokenLogprob

Generate = Callable[[GenerateRequest], Awaitable[list[Completion]]]
FINISH_WORDS = ("DONE", "STOP")


@dataclass(frozen=True)
class StepSettings:
    """How the step-wise protocol samples and continues."""

    n: int = 10
    temperature: float = 1.0
    top_p: float = 0.9
    max_steps: int = 10
    step_max_tokens: int = 96
    continuation: Literal["greedy", "highest_probability"] = "greedy"
    finish: Literal["greedy", "majority"] = "greedy"
    logprobs: bool = True
    logprob_source: Literal["model", "sampling"] = "model"
    seed: int = 0


@dataclass(frozen=True)
class ParsedStep:
    """One answer to the step prompt: the step text, or a finish signal."""

    text: str
    finished: bool
    start: int
    end: int

    @property
    def valid(self) -> bool:
        return not self.finished and bool(self.text)


def parse_step(raw: str, step: int) -> ParsedStep:
    """The step in an answer: the text after ``Step k:`` on its line, or DONE/STOP.

    ``start`` and ``end`` locate the kept text in ``raw`` (for trimming log-probabilities).

    >>> parse_step("Step 2: Tie the rope to the hook.\\nStep 3: Pull.", 2).text
    'Tie the rope to the hook.'
    >>> parse_step("  DONE.", 3).finished
    True
    >>> parse_step("Use the spoon as a lever.", 1).text
    'Use the spoon as a lever.'
    """
    stripped = raw.strip()
    bare = re.sub(r"[^A-Za-z]", "", stripped.split("\n", 1)[0]).upper()
    if bare in FINISH_WORDS or stripped.upper().startswith(FINISH_WORDS):
        return ParsedStep(text="", finished=True, start=0, end=0)
    match = re.search(rf"(?:step|passage)\s*{step}\s*[:.)-]\s*", raw, flags=re.IGNORECASE)
    begin = match.end() if match else len(raw) - len(raw.lstrip())
    line_end = raw.find("\n", begin)
    end = len(raw) if line_end < 0 else line_end
    # a second "Step k+1:" on the same line starts a later step: cut it off
    later = re.search(rf"(?:step|passage)\s*{step + 1}\s*[:.)-]", raw[begin:end], re.IGNORECASE)
    if later:
        end = begin + later.start()
    text = raw[begin:end].strip().strip('"').strip()
    return ParsedStep(text=text, finished=False, start=begin, end=end)


def trimmed_logprobs(
    tokens: Sequence[TokenLogprob], raw: str, start: int, end: int
) -> list[float]:
    """Log-probabilities of the tokens that overlap ``raw[start:end]``.

    When the tokens do not spell ``raw`` (some backends strip a leading space), every
    token is kept.

    >>> toks = [TokenLogprob(token=t, logprob=lp) for t, lp in [("Step", -1.0), (" 1:", -0.5),
    ...         (" Go", -2.0), ("\\n", -0.1), ("More", -3.0)]]
    >>> trimmed_logprobs(toks, "Step 1: Go\\nMore", 8, 10)
    [-2.0]
    """
    joined = "".join(t.token for t in tokens)
    offset = joined.find(raw) if raw else -1
    if offset < 0:
        return [t.logprob for t in tokens]
    kept: list[float] = []
    pos = -offset
    for token in tokens:
        lo, hi = pos, pos + len(token.token)
        if hi > start and lo < end and token.token.strip():
            kept.append(token.logprob)
        pos = hi
    return kept or [t.logprob for t in tokens]


def candidate_record(
    completion: Completion, step: int, *, placeholders: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """What the run store keeps of one sampled candidate.

    A step that only repeats a placeholder of the prompt's answer format (``<the step>``)
    is not valid: it is recorded with ``rejected`` saying so.
    """
    parsed = parse_step(completion.text, step)
    echo = parsed.valid and is_placeholder(parsed.text, placeholders)
    record: dict[str, Any] = {
        "raw": completion.text,
        "text": parsed.text,
        "finished": parsed.finished,
        "valid": parsed.valid and not echo,
        "finish_reason": completion.finish_reason,
        # what came back, not what the backend claims it can do
        "has_logprobs": completion.tokens is not None,
    }
    if echo:
        record["rejected"] = "copied the answer format's placeholder"
    if completion.tokens is not None and record["valid"]:
        values = trimmed_logprobs(completion.tokens, completion.text, parsed.start, parsed.end)
        record["logprob_sum"] = float(sum(values))
        record["logprob_mean"] = float(sum(values) / len(values)) if values else None
        record["n_tokens"] = len(values)
    return record


def render_steps(steps: Sequence[str], *, label: str = "Step") -> str:
    """The steps so far as the prompt shows them.

    >>> render_steps(["A.", "B."])
    'Step 1: A.\\nStep 2: B.'
    >>> render_steps([])
    '(none yet)'
    """
    if not steps:
        return "(none yet)"
    return "\n".join(f"{label} {i}: {s}" for i, s in enumerate(steps, start=1))


def _continue_with(
    candidates: list[dict[str, Any]], greedy: dict[str, Any] | None, settings: StepSettings
) -> tuple[dict[str, Any] | None, bool]:
    """The chosen continuation and whether the solution is finished."""
    done_votes = sum(c["finished"] for c in candidates)
    if settings.finish == "majority" and done_votes * 2 >= len(candidates):
        return None, True
    if settings.continuation == "greedy" and greedy is not None:
        if greedy["finished"] and settings.finish == "greedy":
            return None, True
        if greedy["valid"]:
            return greedy, False
    # upstream's choice, and the fallback when the greedy answer is not a usable step
    valid = [c for c in candidates if c["valid"]]
    if not valid:
        return None, True
    if all("logprob_sum" in c for c in valid):
        return max(valid, key=lambda c: c["logprob_sum"]), False
    return valid[0], False


async def solve_stepwise(
    generate: Generate, template: str, source: str, fields: dict[str, str], settings: StepSettings
) -> dict[str, Any]:
    """Run the protocol for one problem; returns what the run store keeps.

    ``template`` has ``{steps}``, ``{step}`` and ``{max_steps}`` placeholders besides the
    problem ``fields``.
    """
    steps: list[str] = []
    trace: list[dict[str, Any]] = []
    stop_reason = "max_steps"
    placeholders = answer_placeholders(template)
    for number in range(1, settings.max_steps + 1):
        prompt = format_prompt(
            template, source, **fields, steps=render_steps(steps), step=str(number),
            max_steps=str(settings.max_steps),
        )
        greedy: dict[str, Any] | None = None
        if settings.continuation == "greedy":
            request = GenerateRequest.chat(
                prompt, temperature=0.0, max_tokens=settings.step_max_tokens, seed=settings.seed
            )
            (answer,) = await generate(request)
            greedy = candidate_record(answer, number, placeholders=placeholders)
        candidates: list[dict[str, Any]] = []
        if not (greedy is not None and greedy["finished"] and settings.finish == "greedy"):
            sampled = GenerateRequest.chat(
                prompt, n=settings.n, temperature=settings.temperature, top_p=settings.top_p,
                max_tokens=settings.step_max_tokens, seed=settings.seed,
                logprobs=settings.logprobs, logprob_source=settings.logprob_source,
            )
            candidates = [candidate_record(c, number, placeholders=placeholders)
                          for c in await generate(sampled)]
        chosen, finished = _continue_with(candidates, greedy, settings)
        trace.append(
            {"step": number, "candidates": candidates, "greedy": greedy,
             "chosen": None if chosen is None else chosen["text"]}
        )
        if finished or chosen is None:
            stop_reason = "finished" if finished else "no_valid_candidate"
            break
        steps.append(chosen["text"])
    return {
        "steps": trace,
        "solution": render_steps(steps) if steps else "",
        "solution_steps": steps,
        "stop_reason": stop_reason,
        "continuation": settings.continuation,
        "logprob_source": settings.logprob_source,
    }
