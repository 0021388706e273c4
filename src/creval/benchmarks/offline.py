"""Benchmarks without a model: list what a run would ask (:func:`dry_run`), and score a file
of answers written elsewhere (:func:`score_answers`).

Both drive a benchmark's own units through a stand-in for the runner's context, so they
work for every benchmark, plug-ins included, without a method of their own.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from creval.benchmarks.base import Benchmark, BenchmarkOptions
from creval.errors import CrevalError
from creval.models.base import Capabilities, Completion, GenerateRequest
from creval.models.prompt_scoring import PromptRequest, PromptScores
from creval.records import Record, Scores
from creval.runner.engine import Unit


class _Stop(Exception):
    """Ends a unit at a model call the stand-in cannot answer."""


class _Context:
    """Stands in for :class:`creval.runner.engine.UnitContext`. With ``answers`` it serves
    them to the target role in order; otherwise (or when they run out) it records the
    request and stops the unit there."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.answers = list(answers or [])
        self.request: GenerateRequest | PromptRequest | None = None
        self.role = "target"
        self.first_sample = 0
        self.calls: list[dict[str, Any]] = []

    def capabilities(self, role: str = "target") -> Capabilities:
        return Capabilities(n=True, seed=True, prompt_logprobs=True)

    async def prompt_logprobs(self, text: str, *, role: str = "target", window: int | None = None,
                              stride: int | None = None) -> PromptScores:
        """A text to score: no answer file can stand in for a model's log-probabilities."""
        self.request, self.role = PromptRequest(text=text, window=window, stride=stride), role
        raise _Stop

    async def generate(
        self, request: GenerateRequest, *, role: str = "target", first_sample: int = 0
    ) -> list[Completion]:
        if role != "target" or len(self.answers) < request.n:
            self.request, self.role, self.first_sample = request, role, first_sample
            raise _Stop
        served = [Completion(text=a) for a in self.answers[: request.n]]
        del self.answers[: request.n]
        self.calls.append({"role": role, "model": "answers-file",
                           "request": request.model_dump(mode="json"),
                           "first_sample": first_sample,
                           "completions": [c.model_dump(mode="json") for c in served]})
        return served


@dataclass(frozen=True)
class FirstRequest:
    """A unit's first model call: the request (a generation, or a text whose tokens the model
    scores), the role asked and its first sample index."""

    request: GenerateRequest | PromptRequest
    role: str
    first_sample: int


def first_request(unit: Unit) -> FirstRequest | None:
    """The first request ``unit`` makes, without calling a model; None when it asks none.

    Synchronous: the unit's coroutine is stepped by hand up to its first model call, so it
    works inside a running event loop too. A unit that awaits other work first (a thread)
    runs on a loop of its own, which needs no loop to be running.
    """
    ctx = _Context()
    coroutine = unit.run(ctx)  # type: ignore[arg-type]
    try:
        coroutine.send(None)  # type: ignore[attr-defined]
    except _Stop:
        pass
    except StopIteration:
        return None
    except RuntimeError:  # it needs a running loop (tasks, threads) before its first call
        return _on_a_loop(unit)
    else:  # it awaits other work first (a thread, an embedder)
        coroutine.close()  # type: ignore[attr-defined]
        return _on_a_loop(unit)
    assert ctx.request is not None
    return FirstRequest(ctx.request, ctx.role, ctx.first_sample)


def _on_a_loop(unit: Unit) -> FirstRequest | None:
    """:func:`first_request` for a unit that needs an event loop: a loop of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_first_request_on_a_loop(unit))
    raise CrevalError(f"Unit {unit.key} waits on something before asking its model, so "
                      "its first request cannot be listed inside a running event loop.")


async def _first_request_on_a_loop(unit: Unit) -> FirstRequest | None:
    ctx = _Context()
    try:
        await unit.run(ctx)  # type: ignore[arg-type]
    except _Stop:
        assert ctx.request is not None
        return FirstRequest(ctx.request, ctx.role, ctx.first_sample)
    return None


def dry_run(benchmark: Benchmark[Any], options: BenchmarkOptions) -> list[dict[str, Any]]:
    """The first request of every unit, without calling a model or writing anything: its key,
    the role asked, ``n`` and the messages (later requests depend on the answers)."""
    out = []
    for unit in benchmark.units(options):
        first = first_request(unit)
        item: dict[str, Any] = {"key": unit.key, "role": None, "kind": None, "n": 0, "messages": []}
        request = first.request if first is not None else None
        if isinstance(request, PromptRequest):
            item.update(role=first.role if first else None, kind="score text", n=1,
                        messages=[{"role": "text to score", "content": request.text}])
        elif request is not None:
            item.update(role=first.role if first else None, kind="generate", n=request.n,
                        messages=[m.model_dump(mode="json") for m in request.messages])
        out.append(item)
    return out


def score_answers(
    benchmark: Benchmark[Any], options: BenchmarkOptions, answers: list[dict[str, Any]]
) -> Scores:
    """Score answers written elsewhere as if the tested model had given them.

    Each item is ``{"key": UNIT_KEY, "answer": TEXT}`` (``answers``: a list, for a unit that
    asks for several samples); items without ``key`` go to the units in order (see
    ``creval run BENCH --dry-run`` for the keys and prompts). Units with no answer are left
    out and counted. A unit that needs more than the file gives (a judge's verdict, a second
    turn) is an error that says so: score such runs with ``--model replay:RUN_DIR``.
    """
    units = benchmark.units(options)
    by_key = {u.key: u for u in units}
    given: dict[str, list[str]] = {}
    for position, item in enumerate(answers):
        key = item.get("key")
        if key is None:
            if position >= len(units):
                raise CrevalError(f"Answer {position + 1} has no key and {benchmark.name} has "
                                  f"only {len(units)} unit(s) with these options.")
            key = units[position].key
        if key not in by_key:
            raise CrevalError(f"No unit {key!r} in {benchmark.name} with these options; "
                              f"`creval run {benchmark.name} --dry-run` lists the keys.")
        texts = item.get("answers", item.get("answer", item.get("text")))
        given[str(key)] = [texts] if isinstance(texts, str) else [str(t) for t in texts or []]

    async def one(unit: Unit) -> Record:
        ctx = _Context(given[unit.key])
        try:
            output = await unit.run(ctx)  # type: ignore[arg-type]
        except _Stop:
            raise CrevalError(
                f"{benchmark.name} unit {unit.key} needs more than the answers file gives "
                f"(a {ctx.role} call); score such runs with `creval run {benchmark.name} "
                "--model replay:RUN_DIR`."
            ) from None
        return Record(key=unit.key, status="ok", unit=unit.meta, output=output, calls=ctx.calls)

    async def every() -> list[Record]:
        return [await one(u) for u in units if u.key in given]

    records = asyncio.run(every())
    scores = benchmark.score(records, options)
    note = f"Scored {len(records)} answer(s) from a file; {len(units) - len(records)} unit(s) had none."
    return scores.model_copy(update={"notes": [*scores.notes, note]})
