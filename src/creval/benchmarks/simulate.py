"""Every request a run would send, without a model: units driven to their end by stand-in
answers (:func:`simulate_units`), for a study's plan and cost (``creval run --plan``).

:func:`creval.benchmarks.offline.dry_run` stops each unit at its first model call; a plan
needs them all (every step of a step-wise unit, every judge call, every round of a game),
so here each call is answered by a caller-given function and the unit goes on. The answers
are stand-ins (``answer(role, request, sample) -> text``), so a unit that branches on what it
was told (a parse failure asked again, a game that ends when the answer matches) follows the
stand-in's branch: the counts are an estimate, and the caller says so.

>>> from creval.benchmarks.base import get_benchmark
>>> bench = get_benchmark("dat")
>>> calls, driven = simulate_units(bench, bench.parse_options({"trials": 2}),
...                        lambda role, request, i: "cat dog tree")
>>> [(c.unit, c.role, c.kind, c.n) for c in calls][:2]
[('trial-00000', 'target', 'generate', 1), ('trial-00001', 'target', 'generate', 1)]
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from creval.benchmarks.base import Benchmark, BenchmarkOptions
from creval.embed.stand_in import stand_in_embedders
from creval.models.base import Capabilities, Completion, GenerateRequest, TokenLogprob, Usage
from creval.models.prompt_scoring import PromptScores
from creval.runner.engine import Unit

#: ``answer(role, request, sample_index) -> text``: the stand-in answer of one sample.
Answer = Callable[[str, GenerateRequest, int], str]


@dataclass(frozen=True)
class SimulatedCall:
    """One request a unit made: its role, whether it generates or scores a text, the
    samples asked, the prompt (``(role, text)`` per message, images left out; a text to
    score is one message of role ``text``), the most tokens a sample may have, and the
    stand-in answers' texts."""

    unit: str
    role: str
    kind: Literal["generate", "score text"]
    n: int
    messages: tuple[tuple[str, str], ...]
    max_tokens: int
    answers: tuple[str, ...] = ()


class _Simulated:
    """Stands in for :class:`creval.runner.engine.UnitContext`: answers every role."""

    def __init__(self, unit: str, answer: Answer, capabilities: Capabilities,
                 calls: list[SimulatedCall]) -> None:
        self.unit, self.answer, self.caps, self.out = unit, answer, capabilities, calls
        self.calls: list[dict[str, Any]] = []

    def capabilities(self, role: str = "target") -> Capabilities:
        return self.caps

    async def generate(self, request: GenerateRequest, *, role: str = "target",
                       first_sample: int = 0) -> list[Completion]:
        texts = tuple(self.answer(role, request, first_sample + i) for i in range(request.n))
        messages = tuple((m.role, m.text()) for m in request.messages)
        self.out.append(SimulatedCall(self.unit, role, "generate", request.n, messages,
                                      request.max_tokens, texts))
        return [Completion(text=t, finish_reason="stop", usage=Usage()) for t in texts]

    async def prompt_logprobs(self, text: str, *, role: str = "target", window: int | None = None,
                              stride: int | None = None) -> PromptScores:
        """A text to score: one request, its tokens the input; the scores are stand-ins."""
        self.out.append(SimulatedCall(self.unit, role, "score text", 1, (("text", text),), 0))
        words = text.split() or [text]
        return PromptScores(tokens=[TokenLogprob(token=w, logprob=-1.0) for w in words])


def spread(count: int) -> list[int]:
    """``0 .. count-1`` in an order whose every prefix is spread evenly over the range (the
    base-2 van der Corput sequence), so that a sample cut short anywhere is still even.

    >>> spread(8)
    [0, 4, 2, 6, 1, 5, 3, 7]
    >>> sorted(spread(5)) == list(range(5))
    True
    """
    if count <= 0:
        return []
    bits = max(1, (count - 1).bit_length())
    order = (int(f"{i:0{bits}b}"[::-1], 2) for i in range(2 ** bits))
    return [i for i in order if i < count]


def simulate_units(
    benchmark: Benchmark[Any], options: BenchmarkOptions, answer: Answer, *,
    units: Sequence[Unit] | None = None, capabilities: Capabilities | None = None,
    budget: float | None = None, at_least: int = 3,
) -> tuple[list[SimulatedCall], int]:
    """The requests of ``units`` (default: all of the benchmark's) answered by ``answer``,
    and how many units were driven.

    No model is called, nothing is written and no sentence model is loaded (embedders are
    stand-ins: :func:`creval.embed.stand_in.stand_in_embedders`). A unit that fails on a stand-in answer (it
    expected another shape) keeps the calls it made before. ``capabilities`` are what the
    units are told the models can do (default: everything, so ``n`` samples go in one call).
    With ``budget`` (seconds), units are taken in :func:`spread` order and no new one is
    started once the budget is spent and ``at_least`` were driven (a unit's own local work,
    an embedder or a sandbox, can take seconds), so a sample of any length stays even.
    """
    given = list(benchmark.units(options) if units is None else units)
    chosen = [given[i] for i in spread(len(given))] if budget is not None else given
    caps = capabilities or Capabilities(logprobs=True, sampling_logprobs=True,
                                        prompt_logprobs=True, n=True, seed=True,
                                        structured_output=True)
    calls: list[SimulatedCall] = []
    driven = 0

    async def every() -> None:
        nonlocal driven
        start = time.perf_counter()
        for unit in chosen:
            if budget is not None and driven >= at_least and time.perf_counter() - start > budget:
                return
            driven += 1
            ctx = _Simulated(unit.key, answer, caps, calls)
            try:
                await unit.run(ctx)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - a stand-in answer of the wrong shape ends it
                continue

    with stand_in_embedders():  # a unit's retrieval needs no sentence model to be counted
        asyncio.run(every())
    return calls, driven
