"""Pairwise novelty judge and ranking by sorting (seed 001, appendix C.7 and K).

A judge model is shown two (problem, solution) pairs and asked which solution is more
novel. Every comparison is asked in *both* orders, so that a preference for the first or
second position cancels out:

* both orders pick the same solution -> that solution wins;
* the two orders disagree (the model followed the position, not the content) -> tie;
* either answer does not parse -> the comparison ``failed``: it is kept with both raw
  answers and counted in ``NoveltyRanking.failures``, and the sort treats it as no
  preference (like a tie). It is never turned into a preference.

The answer must be exactly one of the two labels (default ``1`` and ``2``), optionally
preceded by ``Pair`` and wrapped in quotes, ``**`` or backticks, with an optional final
full stop; anything else (prose, both labels, ``EQUAL``) is a parse failure.

Rankings come from sorting with this comparison: :meth:`PairwiseNoveltyJudge.evaluate`
with ``method="merge"`` (default; at most ``n * ceil(log2 n)`` comparisons, halves sorted
concurrently) or ``method="bubble"`` (the paper's code; exactly ``n (n - 1) / 2``
comparisons). Ties keep the input order (both sorts are stable). Each distinct pair is sent
to the model once per order; a repeated comparison reuses the verdict.

The prompt (``creval/data/prompts/novelty_pairwise.txt``) is our own wording; pass
``prompt_file=`` to :meth:`PairwiseNoveltyJudge.create` to use another, for example the
published one with ``labels=("QA1", "QA2")``. Placeholders: ``{problem_1}``,
``{solution_1}``, ``{problem_2}``, ``{solution_2}``, ``{label_1}``, ``{label_2}``.

>>> parse_choice(" **2.** ", ("1", "2")).choice
'second'
>>> parse_choice("Pair 1 is more novel", ("1", "2")).error
"expected only '1' or '2', got 'Pair 1 is more novel'"
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from creval._util.prompts import format_prompt, load_prompt
from creval.errors import CrevalError
from creval.judges.structured import as_text
from creval.models.base import Completion, GenerateRequest, Usage
from creval.records import JudgeCheck

__all__ = [
    "NoveltyItem",
    "NoveltyRanking",
    "PairComparison",
    "PairwiseNoveltyJudge",
    "Verdict",
    "merge_sort_bound",
    "parse_choice",
]

Generate = Callable[[GenerateRequest], Awaitable[list[Completion]]]
Choice = Literal["first", "second"]
Outcome = Literal["a", "b", "tie", "failed"]
PROMPT_NAME = "novelty_pairwise"


@dataclass(frozen=True)
class NoveltyItem:
    """One (problem, solution) pair to rank; ``id`` must be unique within a ranking."""

    id: str
    problem: str
    solution: str


@dataclass(frozen=True)
class Verdict:
    """One model answer: ``choice`` of the first or second pair shown, or a parse ``error``."""

    raw: str
    choice: Choice | None
    error: str | None
    usage: Usage = field(default_factory=Usage)


def parse_choice(text: str, labels: tuple[str, str]) -> Verdict:
    """Read which of the two labelled pairs the answer picks; never guess.

    >>> parse_choice("1", ("1", "2")).choice, parse_choice("'QA2'", ("QA1", "QA2")).choice
    ('first', 'second')
    >>> parse_choice("EQUAL", ("1", "2")).choice is None
    True
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}.")
    core = text.strip()
    core = re.sub(r"^[\s*_`\"'“”‘’]+|[\s*_`\"'“”‘’.]+$", "", core)
    core = re.sub(r"^pair\s+", "", core, flags=re.IGNORECASE)
    folded = core.casefold()
    if folded == labels[0].casefold():
        return Verdict(raw=text, choice="first", error=None)
    if folded == labels[1].casefold():
        return Verdict(raw=text, choice="second", error=None)
    shown = text.strip()
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    return Verdict(
        raw=text, choice=None, error=f"expected only {labels[0]!r} or {labels[1]!r}, got {shown!r}"
    )


def _render_choice(value: Any) -> str:
    """``{"choice": "2"}`` -> ``2`` (the value as it came, for :func:`parse_choice`)."""
    return str(value["choice"])


@dataclass(frozen=True)
class PairComparison:
    """Item ``a`` against item ``b``: ``ab`` shows a first, ``ba`` shows b first.

    ``outcome`` is the more novel item (``"a"`` or ``"b"``), ``"tie"`` when the two orders
    disagree, or ``"failed"`` when an answer did not parse.
    """

    a: str
    b: str
    ab: Verdict
    ba: Verdict

    @property
    def outcome(self) -> Outcome:
        if self.ab.choice is None or self.ba.choice is None:
            return "failed"
        a_in_ab = self.ab.choice == "first"
        a_in_ba = self.ba.choice == "second"
        if a_in_ab and a_in_ba:
            return "a"
        if not a_in_ab and not a_in_ba:
            return "b"
        return "tie"

    @property
    def usage(self) -> Usage:
        return self.ab.usage + self.ba.usage


@dataclass(frozen=True)
class NoveltyRanking:
    """The items from most to least novel, with every comparison and what it cost.

    ``n_comparisons`` counts the comparisons the sort made (a repeat counts again);
    ``n_model_calls`` counts requests sent to the model (two per distinct pair).
    """

    order: list[str]
    method: str
    comparisons: list[PairComparison]
    n_comparisons: int
    n_model_calls: int
    usage: Usage

    @property
    def ranks(self) -> dict[str, int]:
        """Item id -> rank, 1 for the most novel."""
        return {item: i for i, item in enumerate(self.order, start=1)}

    @property
    def failures(self) -> list[PairComparison]:
        """Comparisons with an answer that did not parse (raw text kept)."""
        return [c for c in self.comparisons if c.outcome == "failed"]

    @property
    def ties(self) -> list[PairComparison]:
        """Comparisons whose two orders disagreed."""
        return [c for c in self.comparisons if c.outcome == "tie"]

    @property
    def positions(self) -> list[int | None]:
        """The position the judge picked in every answer (0 = the pair shown first, 1 = the
        second, None = did not parse), both orders of each comparison."""
        index = {"first": 0, "second": 1}
        return [None if v.choice is None else index[v.choice]
                for c in self.comparisons for v in (c.ab, c.ba)]

    def judge_checks(self, *, judge: str = "pairwise novelty judge") -> list[JudgeCheck]:
        """A :func:`~creval.judges.discrimination.position_bias` check when the judge picked
        one position far more often than chance (each pair is asked in both orders, so a
        judge that reads the solutions picks each position about half the time)."""
        from creval.judges.discrimination import position_bias

        return position_bias(self.positions, 2, judge=judge)


class _Session:
    """One ranking: memoised comparisons and counters."""

    def __init__(self, judge: PairwiseNoveltyJudge) -> None:
        self.judge = judge
        self.done: dict[tuple[str, str], asyncio.Task[PairComparison]] = {}
        self.comparisons = 0

    async def more_novel(self, x: NoveltyItem, y: NoveltyItem) -> bool:
        """True when ``y`` is strictly more novel than ``x`` (so ``y`` should come first)."""
        self.comparisons += 1
        key = (x.id, y.id) if x.id <= y.id else (y.id, x.id)
        task = self.done.get(key)
        if task is None:
            first, second = (x, y) if key[0] == x.id else (y, x)
            task = asyncio.ensure_future(self.judge.compare(first, second))
            self.done[key] = task
        comparison = await task
        winner = comparison.outcome
        return (winner == "a" and comparison.a == y.id) or (winner == "b" and comparison.b == y.id)

    async def merge_sort(self, items: list[NoveltyItem]) -> list[NoveltyItem]:
        if len(items) <= 1:
            return items
        mid = len(items) // 2
        left, right = await asyncio.gather(
            self.merge_sort(items[:mid]), self.merge_sort(items[mid:])
        )
        merged: list[NoveltyItem] = []
        i = j = 0
        while i < len(left) and j < len(right):
            if await self.more_novel(left[i], right[j]):
                merged.append(right[j])
                j += 1
            else:
                merged.append(left[i])
                i += 1
        return merged + left[i:] + right[j:]

    async def bubble_sort(self, items: list[NoveltyItem]) -> list[NoveltyItem]:
        out = list(items)
        for end in range(len(out) - 1, 0, -1):
            for k in range(end):
                if await self.more_novel(out[k], out[k + 1]):
                    out[k], out[k + 1] = out[k + 1], out[k]
        return out


@dataclass
class PairwiseNoveltyJudge:
    """Ask ``generate`` which of two solutions is more novel, in both orders.

    ``generate`` is any ``async (GenerateRequest) -> list[Completion]``, for example a
    model's ``generate`` or the runner's cached one. Requests are single-turn, ``n = 1``,
    with ``temperature``, ``max_tokens`` and ``seed`` as set here. With ``structured``
    (the judge's backend can constrain decoding) the answer is asked for as
    ``{"choice": LABEL}`` (:meth:`choice_schema`, 8 more tokens for the JSON) and the label
    goes to the same strict :func:`parse_choice`.
    """

    generate: Generate
    template: str
    template_source: str = PROMPT_NAME
    labels: tuple[str, str] = ("1", "2")
    temperature: float = 0.0
    max_tokens: int = 8
    seed: int | None = None
    structured: bool = False

    def __post_init__(self) -> None:
        if not callable(self.generate):
            raise ValueError(
                "generate must be an async function GenerateRequest -> list[Completion]."
            )
        a, b = self.labels
        if not a.strip() or not b.strip() or a.strip().casefold() == b.strip().casefold():
            raise ValueError(
                f"labels must be two different non-empty strings, got {self.labels!r}."
            )
        for needed in ("{solution_1}", "{solution_2}"):
            if needed not in self.template:
                raise CrevalError(
                    f"The novelty prompt from {self.template_source} lacks the placeholder "
                    f"{needed}; it needs {{solution_1}} and {{solution_2}} (and may use "
                    "{problem_1}, {problem_2}, {label_1}, {label_2})."
                )

    @classmethod
    def create(
        cls, generate: Generate, *, prompt_file: str | None = None, **options: object
    ) -> PairwiseNoveltyJudge:
        """A judge with the shipped prompt, or the prompt in ``prompt_file``."""
        template = load_prompt(PROMPT_NAME, prompt_file)
        return cls(generate, template, prompt_file or PROMPT_NAME, **options)  # type: ignore[arg-type]

    def prompt(self, first: NoveltyItem, second: NoveltyItem) -> str:
        """The prompt that shows ``first`` as pair 1 and ``second`` as pair 2."""
        return format_prompt(
            self.template, self.template_source,
            problem_1=first.problem, solution_1=first.solution, label_1=self.labels[0],
            problem_2=second.problem, solution_2=second.solution, label_2=self.labels[1],
        )  # fmt: skip

    def choice_schema(self) -> dict[str, Any]:
        """``{"choice": label_1 | label_2}`` (an object: OpenAI-compatible servers want one)."""
        return {"type": "object", "properties": {"choice": {"type": "string", "enum": list(self.labels)}},
                "required": ["choice"], "additionalProperties": False}  # fmt: skip

    async def _ask(self, first: NoveltyItem, second: NoveltyItem) -> Verdict:
        request = GenerateRequest.chat(
            self.prompt(first, second), temperature=self.temperature,
            max_tokens=self.max_tokens + 8 if self.structured else self.max_tokens, seed=self.seed,
            response_schema=self.choice_schema() if self.structured else None,
        )  # fmt: skip
        completions = await self.generate(request)
        if not completions:
            return Verdict(raw="", choice=None, error="the model returned no completion")
        usage = Usage()
        for completion in completions:
            usage = usage + completion.usage
        text = completions[0].text
        verdict = parse_choice(as_text(text, _render_choice) if self.structured else text, self.labels)
        return Verdict(raw=text, choice=verdict.choice, error=verdict.error, usage=usage)

    async def compare(self, a: NoveltyItem, b: NoveltyItem) -> PairComparison:
        """Compare ``a`` and ``b`` in both orders (two concurrent model calls)."""
        if a.id == b.id:
            raise ValueError(f"Cannot compare item {a.id!r} with itself.")
        ab, ba = await asyncio.gather(self._ask(a, b), self._ask(b, a))
        return PairComparison(a=a.id, b=b.id, ab=ab, ba=ba)

    async def evaluate(
        self, items: Sequence[NoveltyItem], *, method: Literal["merge", "bubble"] = "merge"
    ) -> NoveltyRanking:
        """Rank ``items`` from most to least novel by ``method`` (``merge`` or ``bubble``)."""
        if method not in ("merge", "bubble"):
            raise ValueError(f"method must be 'merge' or 'bubble', got {method!r}.")
        items = list(items)
        for i, item in enumerate(items):
            if not isinstance(item, NoveltyItem):
                raise ValueError(f"items[{i}] must be a NoveltyItem, got {type(item).__name__}.")
        ids = [item.id for item in items]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"Item ids must be unique; repeated: {', '.join(repeated)}.")
        session = _Session(self)
        if method == "merge":
            ordered = await session.merge_sort(items)
        else:
            ordered = await session.bubble_sort(items)
        comparisons = [task.result() for task in session.done.values()]
        usage = Usage()
        for comparison in comparisons:
            usage = usage + comparison.usage
        return NoveltyRanking(
            order=[item.id for item in ordered], method=method, comparisons=comparisons,
            n_comparisons=session.comparisons, n_model_calls=2 * len(comparisons), usage=usage,
        )  # fmt: skip


def merge_sort_bound(n: int) -> int:
    """``n * ceil(log2 n)``: an upper bound on merge sort's comparisons (0 for n <= 1).

    >>> merge_sort_bound(30), merge_sort_bound(1)
    (150, 0)
    """
    return n * math.ceil(math.log2(n)) if n > 1 else 0
