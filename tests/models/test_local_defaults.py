"""The ``local`` backend's defaults take the whole machine (copies and threads chosen from the
CPUs this process may use and the model's size), for every command and the Python API; and
``--concurrency 1`` decodes one unit at a time through the runner."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from creval.models import GenerateRequest, ModelOptions, get_model, local_params
from creval.models.local import LocalModel
from creval.models.local_params import default_layout
from creval.runner import Runner, RunStore, Unit, UnitContext

GIB = 2**30


def test_a_small_model_gets_one_single_thread_copy_per_cpu_and_a_large_one_every_cpu() -> None:
    small, large = 100 * 2**20, 4 * GIB
    assert default_layout(small, cpus=2, memory=24 * GIB) == (1, 2)
    assert default_layout(small, cpus=16, memory=64 * GIB) == (1, 16)
    assert default_layout(large, cpus=16, memory=32 * GIB) == (16, 1)
    # as many copies as fit in half the memory (a copy reckoned at 10x the file), CPUs shared
    assert default_layout(1 * GIB, cpus=16, memory=64 * GIB) == (5, 3)
    assert default_layout(small, cpus=1, memory=24 * GIB) == (1, 1)


def test_what_is_given_is_kept_and_the_other_fills_the_cpus() -> None:
    small = 100 * 2**20
    assert default_layout(small, threads=2, cpus=8, memory=24 * GIB) == (2, 4)
    assert default_layout(small, threads=8, cpus=4, memory=24 * GIB) == (8, 1)
    assert default_layout(small, replicas=3, cpus=8, memory=24 * GIB) == (2, 3)
    assert default_layout(small, replicas=16, cpus=4, memory=24 * GIB) == (1, 16)
    assert default_layout(4 * GIB, threads=1, replicas=2, cpus=8, memory=8 * GIB) == (1, 2)


def _cpus(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(count)), raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: count)


def test_the_packaged_model_by_default_uses_every_cpu_of_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """What every command and the Python API build (``get_model``), with nothing given."""
    _cpus(monkeypatch, 3)
    model = get_model("local")
    assert isinstance(model, LocalModel)
    assert [r.threads for r in model.replicas] == [1, 1, 1]
    assert model.max_concurrency == 8  # in flight over all copies
    assert [r.slots for r in model.replicas] == [3, 3, 3]  # each copy its share
    assert not model.loaded
    _cpus(monkeypatch, 12)
    many = get_model("local")
    assert isinstance(many, LocalModel)
    assert len(many.replicas) == 12 and many.max_concurrency == 12
    assert {r.slots for r in many.replicas} == {1}


def test_a_model_too_large_for_copies_gets_one_copy_of_every_cpu(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _cpus(monkeypatch, 4)
    monkeypatch.setattr(local_params, "physical_memory", lambda: 1 * GIB)  # 10 x 0.1 GB > 0.5 GB
    model = get_model("local")
    assert isinstance(model, LocalModel)
    assert [(r.threads, r.slots) for r in model.replicas] == [(4, 8)]
    given = get_model("local", ModelOptions(threads=1, replicas=2, concurrency=3))
    assert isinstance(given, LocalModel)
    assert [(r.threads, r.slots) for r in given.replicas] == [(1, 2), (1, 2)]


def test_the_affinity_mask_is_what_counts() -> None:
    """``taskset`` and container limits: the CPUs the process may use, not the machine's."""
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no affinity mask on this system")
    assert local_params.usable_cpus() == len(os.sched_getaffinity(0))


def _units(count: int) -> list[Unit]:
    def unit(i: int) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, Any]:
            request = GenerateRequest.chat(f"Say a word about the number {i}.", seed=i, max_tokens=6)
            (completion,) = await ctx.generate(request)
            return {"text": completion.text}

        return Unit(key=f"u{i}", run=run)

    return [unit(i) for i in range(count)]


@pytest.mark.slow
@pytest.mark.parametrize("concurrency", [1, 3])
def test_concurrency_bounds_the_sequences_decoded_together(tmp_path: Path, concurrency: int) -> None:
    """``--concurrency 1``: the runner keeps two units at work, but only one is decoded at a
    time; with 3, several are (so the bound is what limits it)."""
    model = get_model("local", ModelOptions(threads=1, replicas=1, concurrency=concurrency, n_ctx=256))
    assert isinstance(model, LocalModel)
    runner = Runner(RunStore(tmp_path / "run"), {"target": model}, progress=False)
    try:
        records = asyncio.run(runner.run(_units(6)))
        engine = model.replicas[0].worker.engine  # type: ignore[union-attr]
        assert engine is not None
        peak = engine.peak
    finally:
        asyncio.run(model.aclose())
    assert len(records) == 6 and all(r.status == "ok" for r in records)
    assert peak == 1 if concurrency == 1 else peak > 1
