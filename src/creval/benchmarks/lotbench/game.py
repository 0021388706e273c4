"""One LoTbench game (seed 003, Algorithm 1), independent of who plays it.

Round t = 1, 2, ...: the player fills the masked key text given the history (R_t); E1
judges R_t against R; if DAESO the game ends at round t. Otherwise the player asks one
yes/no question Q_t, E2 answers it (A_t), a substantive clue is added after every
``clue_every``-th round (the other rounds get the empty clue), and the history grows. The
game stops unsolved after ``max_rounds``. An empty fill is not DAESO and is counted (E1 is
not asked); an unparsable E1 verdict is a recorded parse failure and counts as not DAESO; a
question without a question mark is no question (E2 is not asked) and is counted.

The player is any ``generate`` function: a model through the runner, or a person typing
(``creval play lotbench``). Every model call's tokens are counted per round and per role
(``tested``, ``e1``, ``e2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from creval.benchmarks.common import format_prompt
from creval.benchmarks.lotbench.data import MASK, Sample
from creval.benchmarks.lotbench.evaluators import AnswerJudge, DaesoJudge, E1Mode
from creval.judges.usage import GenerateFn
from creval.models.base import Completion, GenerateRequest, ImagePart, Message, TextPart

ROLES = ("tested", "e1", "e2")


@dataclass(frozen=True)
class GameSettings:
    max_rounds: int = 10
    clue_every: int = 5
    temperature: float = 1.0
    max_tokens: int = 32
    seed: int = 0
    e1_mode: E1Mode = "causal"
    e1_prompt_file: str | None = None
    e1_chain_prompt_file: str | None = None
    e2_prompt_file: str | None = None
    judge_max_tokens: int = 256


@dataclass(frozen=True)
class Templates:
    fill: tuple[str, str]  # (template, source)
    ask: tuple[str, str]


def _labelled(raw: str, label: str) -> str:
    # lines with no letter or digit (code fences, rules) carry no answer
    lines = [ln.strip().strip("`").strip() for ln in raw.splitlines() if re.search(r"\w", ln)]
    pattern = re.compile(rf"^[\W_]*{label}[\W_]*[:：]\s*(.*)$", re.IGNORECASE)
    found = [m.group(1) for ln in lines if (m := pattern.match(ln))]
    text = found[-1] if found else (lines[0] if lines else "")
    return text.strip().strip("\"'“”*").strip()


def parse_fill(raw: str, masked: str) -> str:
    """The words for ``<MASK>``: after ``Fill:`` (or the first line); when the whole answer
    was repeated, the part between the fixed text around the mask.

    >>> parse_fill("Fill: cell phone", "Vibrant <MASK>")
    'cell phone'
    >>> parse_fill("Vibrant cell phone.\\nBecause...", "Vibrant <MASK>.")
    'cell phone'
    """
    text = _labelled(raw, "fill")
    before, _, after = masked.partition(MASK)
    low, b, a = text.casefold(), before.strip().casefold(), after.strip().casefold()
    if (b or a) and low.startswith(b) and low.endswith(a) and len(low) > len(b) + len(a):
        text = text[len(b): len(text) - len(a)].strip()
    return text


def parse_question(raw: str) -> str:
    """The question after ``Question:`` (or the first line); "" unless it has a ``?``.

    >>> parse_question("Sure!\\nQuestion: Is it something in a kitchen?")
    'Is it something in a kitchen?'
    >>> parse_question("### PLAIN EXPLANATION:")
    ''
    """
    text = _labelled(raw, "question")
    return text if "?" in text else ""


def history_text(rounds: list[dict[str, Any]]) -> str:
    """The earlier rounds as the player sees them: fills, questions, answers and clues."""
    if not rounds:
        return "Nothing has been tried yet."
    lines = ["What happened so far:"]
    for r in rounds:
        lines.append(f"Round {r['round']}: you filled {MASK} with \"{r['fill']}\": not it.")
        if r.get("question"):
            lines.append(f"  You asked: \"{r['question']}\" The answer: {r.get('answer') or 'no usable answer'}.")
        if r.get("clue"):
            lines.append(f"  Clue: {r['clue']}")
    return "\n".join(lines)


class _Counter:
    """Wraps a generate function; adds each call's tokens to the current round's tally."""

    def __init__(self, generate: GenerateFn, role: str) -> None:
        self.generate, self.role = generate, role
        self.tally: dict[str, dict[str, int]] = {}

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        completions = await self.generate(request)
        row = self.tally.setdefault(self.role, {"input_tokens": 0, "output_tokens": 0, "calls": 0})
        row["calls"] += 1
        for c in completions:
            row["input_tokens"] += c.usage.input_tokens
            row["output_tokens"] += c.usage.output_tokens
        return completions


async def play_game(
    sample: Sample, settings: GameSettings, templates: Templates, *,
    tested: GenerateFn, e1: GenerateFn, e2: GenerateFn, image_url: str | None = None,
    structured: bool = False, e2_structured: bool | None = None,
) -> dict[str, Any]:
    """Play one game; returns its full transcript, the round solved (or None) and usage.

    ``image_url`` is shown to the player with every prompt; E1 and E2 read the caption C.
    ``structured``: the evaluators' backend constrains decoding, so they ask for JSON;
    ``e2_structured``, when E2 runs on another backend than E1: whether E2's does.
    """
    e2_structured = structured if e2_structured is None else e2_structured
    counters = {"tested": _Counter(tested, "tested"), "e1": _Counter(e1, "e1"),
                "e2": _Counter(e2, "e2")}
    judge1 = DaesoJudge(counters["e1"], mode=settings.e1_mode, prompt_file=settings.e1_prompt_file,
                        chain_prompt_file=settings.e1_chain_prompt_file,
                        max_tokens=settings.judge_max_tokens, structured=structured)
    judge2 = AnswerJudge(counters["e2"], prompt_file=settings.e2_prompt_file,
                         max_tokens=min(settings.judge_max_tokens, 128), structured=e2_structured)
    fields = {"input": sample.input or "(the image)", "caption": sample.caption,
              "masked": sample.masked}
    rounds: list[dict[str, Any]] = []
    solved: int | None = None
    clues = list(sample.clues)
    for t in range(1, settings.max_rounds + 1):
        for c in counters.values():
            c.tally = {}
        history = history_text(rounds)
        text = format_prompt(templates.fill[0], templates.fill[1], history=history,
                             round=str(t), **fields)
        raw = await _ask(counters["tested"], text, settings, image_url)
        fill = parse_fill(raw, sample.masked)
        entry: dict[str, Any] = {"round": t, "fill_raw": raw, "fill": fill,
                                 "candidate": sample.with_fill(fill) if fill else None}
        if not fill:
            entry |= {"verdict": None, "empty_fill": True}
        else:
            verdict = await judge1.evaluate(sample, fill)
            entry |= {"verdict": None if verdict.daeso is None else
                      ("DAESO" if verdict.daeso else "NOT DAESO"),
                      "e1_raw": verdict.raw, "e1_error": verdict.error}
            if verdict.daeso:
                solved = t
                entry["usage"] = _merge(counters)
                rounds.append(entry)
                break
        text = format_prompt(templates.ask[0], templates.ask[1], history=history,
                             round=str(t), fill=fill or "(nothing)", **fields)
        question_raw = await _ask(counters["tested"], text, settings, image_url)
        question = parse_question(question_raw)
        entry |= {"question_raw": question_raw, "question": question}
        if question:
            answer = await judge2.evaluate(sample, question)
            entry |= {"answer": answer.answer, "e2_raw": answer.raw, "e2_error": answer.error}
        if t % settings.clue_every == 0 and clues:
            entry["clue"] = clues.pop(0)
        entry["usage"] = _merge(counters)
        rounds.append(entry)
    return {
        "sample_id": sample.id, "solved_round": solved, "rounds": rounds,
        "e1_mode": settings.e1_mode, "evaluators_constrained": structured,
        "e2_constrained": e2_structured,
        "analysis": judge1.analyses.get(sample.id),
        "usage": _totals(rounds),
        "e1_parse_failures": sum(1 for r in rounds if r.get("e1_error")),
        "e1_verdicts": sum(1 for r in rounds if "e1_raw" in r),
        "e2_parse_failures": sum(1 for r in rounds if r.get("e2_error")),
        "e2_answers": sum(1 for r in rounds if "e2_raw" in r),
        "empty_fills": sum(1 for r in rounds if r.get("empty_fill")),
        "no_questions": sum(1 for r in rounds if "question" in r and not r["question"]),
    }


async def _ask(generate: GenerateFn, text: str, settings: GameSettings, image_url: str | None) -> str:
    content: str | list[TextPart | ImagePart] = text
    if image_url is not None:
        content = [ImagePart(url=image_url), TextPart(text=text)]
    request = GenerateRequest(messages=(Message(role="user", content=content),),
                              temperature=settings.temperature, max_tokens=settings.max_tokens,
                              seed=settings.seed)
    (completion,) = await generate(request)
    return completion.text


def _merge(counters: dict[str, _Counter]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for c in counters.values():
        out |= c.tally
    return out


def _totals(rounds: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    total: dict[str, dict[str, int]] = {}
    for r in rounds:
        for role, row in r.get("usage", {}).items():
            acc = total.setdefault(role, {"input_tokens": 0, "output_tokens": 0, "calls": 0})
            for k in acc:
                acc[k] += row[k]
    return total
