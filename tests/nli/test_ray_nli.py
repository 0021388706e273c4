"""Entailment batches on Ray actors (``ExecutorEntailment``) give the local executor's
partitions, verdicts and call counts, on a tiny NLI cross-encoder built from a config and on
the embedding fallback (the packaged MiniLM); each actor builds its model once."""

from __future__ import annotations

import asyncio
import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")
pytest.importorskip("torch")
pytest.importorskip("transformers")

from creval.nli import CachingEntailment, NLIResult, get_entailment, partition_texts  # noqa: E402
from creval.nli.hf import HFEntailment  # noqa: E402
from creval.runner.executors import (  # noqa: E402
    LocalExecutor,
    RayExecutor,
    factory_key,
    using_executor,
)
from creval.runner.remote_nli import (  # noqa: E402
    EntailmentWorker,
    ExecutorEntailment,
    entailment_on_executor,
)
from nli.tiny_nli import SENTENCES, save_tiny_nli  # noqa: E402
from tests._ray import ray_executor_here  # noqa: E402

pytestmark = pytest.mark.slow

# Several steps' samples, with repeats so that some classes have more than one member.
STEPS = [SENTENCES, SENTENCES[:4] + SENTENCES[:2], [SENTENCES[0]] * 3 + SENTENCES[4:]]


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[RayExecutor]:
    """A local Ray instance of 2 CPUs for this module, stopped in teardown."""
    with ray_executor_here(sys.modules[__name__]) as executor:
        yield executor


@pytest.fixture(scope="module")
def tiny_spec(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = save_tiny_nli(tmp_path_factory.mktemp("nli"),
                         {0: "entailment", 1: "neutral", 2: "contradiction"})
    return f"hf:{path}"


@pytest.fixture(scope="module")
def built_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the actors of this module's cross-encoder write their pid when built."""
    return tmp_path_factory.mktemp("built") / "built.txt"


class CountingWorker(EntailmentWorker):
    """An :class:`EntailmentWorker` that appends its process id to ``log`` when built."""

    def __init__(self, spec: str, log: str) -> None:
        super().__init__(spec)
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")


def _cluster(nli: Any, lookup: str) -> tuple[list[tuple[int, ...]], list[NLIResult], dict[str, int]]:
    """Partitions of every step through one shared cache, the verdicts and the counts."""
    cache = CachingEntailment(nli)

    async def run() -> list[tuple[int, ...]]:
        return [(await partition_texts(texts, cache, lookup=lookup)).class_ids for texts in STEPS]

    classes = asyncio.run(run())
    verdicts = [r for _, r in sorted(cache._done.items())]
    return classes, verdicts, cache.counts()


def _same(remote: list[NLIResult], local: list[NLIResult]) -> None:
    assert [r.label for r in remote] == [r.label for r in local]
    for a, b in zip(remote, local, strict=True):
        assert a.approximate == b.approximate
        if b.probabilities is not None:  # same slices, same padding: the same numbers
            assert a.probabilities == pytest.approx(b.probabilities, abs=1e-6)
        if b.score is not None:
            assert a.score == pytest.approx(b.score, abs=1e-6)


@pytest.mark.parametrize("lookup", ["both", "lazy"])
def test_partitions_verdicts_and_counts_on_ray_equal_the_local_ones(
        ray_executor: RayExecutor, tiny_spec: str, built_log: Path, lookup: str) -> None:
    with using_executor(ray_executor):
        remote = entailment_on_executor(tiny_spec)
    assert isinstance(remote, ExecutorEntailment) and remote.chunk == 16
    assert factory_key(remote.factory) == factory_key(functools.partial(EntailmentWorker, tiny_spec))
    # the same worker, counting its builds; small slices, so both actors share a batch
    remote.factory = functools.partial(CountingWorker, tiny_spec, str(built_log))
    remote.chunk = 5
    local = entailment_on_executor(tiny_spec, LocalExecutor())
    assert isinstance(local, HFEntailment)
    r_classes, r_verdicts, r_counts = _cluster(remote, lookup)
    l_classes, l_verdicts, l_counts = _cluster(local, lookup)
    assert r_classes == l_classes
    assert r_counts == l_counts and r_counts["calls"] > 10
    _same(r_verdicts, l_verdicts)
    assert remote.identity() == local.identity()
    assert len(set(r_classes[0])) > 1  # the random tiny model does tell texts apart


def test_the_embedding_fallback_on_ray_equals_the_local_one(ray_executor: RayExecutor) -> None:
    spec = "embedding:0.5"
    remote = entailment_on_executor(spec, ray_executor)
    assert isinstance(remote, ExecutorEntailment) and remote.chunk is None
    r_classes, r_verdicts, r_counts = _cluster(remote, "lazy")
    l_classes, l_verdicts, l_counts = _cluster(get_entailment(spec), "lazy")
    assert (r_classes, r_counts) == (l_classes, l_counts)
    _same(r_verdicts, l_verdicts)
    assert all(r.approximate for r in r_verdicts)
    assert remote.identity()["approximate"] is True


def test_each_actor_builds_its_model_once(ray_executor: RayExecutor, tiny_spec: str,
                                          built_log: Path) -> None:
    """Over this module's batches (the tests above and these), each of the two actors built
    the cross-encoder once."""
    log = built_log
    factory = functools.partial(CountingWorker, tiny_spec, str(log))
    nli = ExecutorEntailment(tiny_spec, ray_executor, factory=factory, chunk=3)
    pairs = [(a, b) for a in SENTENCES[:3] for b in SENTENCES]
    for _ in range(3):  # three batches of 7 slices each, over the same two actors
        results = asyncio.run(nli.classify(pairs))
        assert len(results) == len(pairs)
    nli.identity()
    pids = log.read_text().split()
    assert len(pids) == 2 and len(set(pids)) == 2  # one build per actor, two actors
    assert str(os.getpid()) not in pids  # built on the workers, not here
