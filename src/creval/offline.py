"""Benchmarks without a model: list what a run would ask (:func:`dry_run`), and score a file
of answers written elsewhere (:func:`score_answers`).

Both drive a benchmark's own units through a stand-in for the runner's context, so they
work for every benchmark, plug-ins included, without a method of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from creval.benchmarks.base import Benchmark, BenchmarkOptions
from creval.errors import CrevalError
from creval.models.base import Capabilities, Completion, GenerateRequest
from creval.records import Record
from creval.runner.engine import Unit


class _Stop(Exception):
    """Ends a unit at a model call the stand-in cannot answer."""


class _Context:
    """Stands in for :class:`creval.runner.engine.UnitContext`. With ``answers`` it serves
    them to the target role in order; otherwise (or when they run out) it records the
    request and stops the unit there."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.answers = list(answers or [])
        self.request: GenerateRequest | None = None
        self.role = "target"
        self.calls: list[dict[str, Any]] = []

    def capabilities(self, role: str = "target") -> Capabilities:
        return Capabilities(n=True, seed=True)

    async def generate(
        self, request: GenerateRequest, *, role: str = "target", first_sample: int = 0
    ) -> list[Completion]:
        if role != "target" or len(self.answers) < request.n:
            self.request, self.role = request, role
            raise _Stop
        served = [Completion(text=a) for a in self.answers[: request.n]]
        del self.answers[: request.n]
        self.calls.append({"role": role, "model": "answers-file",
                           "request": request.model_dump(mode="json"),
                           "first_sample": first_sample,
                           "completions": [c.model_dump(mode="json") for c in served]})
        return served


def dry_run(benchmark: Benchmark[Any], options: BenchmarkOptions) -> list[dict[str, Any]]:
    """The first request of every unit, without calling a model or writing anything: its key,
    the role asked, ``n`` and the messages (later requests depend on the answers)."""

    async def first(unit: Unit) -> dict[str, Any]:
        ctx = _Context()
        with contextlib.suppress(_Stop):
            await unit.run(ctx)  # type: ignore[arg-type]
        request = ctx.request
        return {
            "key": unit.key,
            "role": ctx.role if request is not None else None,
            "n": request.n if request is not None else 0,
            "messages": [m.model_dump(mode="json") for m in request.messages] if request else [],
        }

    async def every() -> list[dict[str, Any]]:
        return [await first(u) for u in benchmark.units(options)]

    return asyncio.run(every())


def score_answers(
    benchmark: Benchmark[Any], options: BenchmarkOptions, answers: list[dict[str, Any]]
) -> dict[str, Any]:
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
    scores.setdefault("notes", []).append(
        f"Scored {len(records)} answer(s) from a file; {len(units) - len(records)} unit(s) had none."
    )
    return scores
