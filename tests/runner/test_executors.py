"""Executors on a real local Ray instance: ordered results equal to the local executor's, a
task whose worker dies retried by Ray with its result once, a model loaded once per actor."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from creval.errors import CrevalError
from creval.runner.executors import (
    LocalExecutor,
    RayExecutor,
    current_executor,
    get_executor,
    split,
    using_executor,
)
from tests._ray import ray_executor_here

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[RayExecutor]:
    """A local Ray instance of 2 CPUs for this module, stopped in teardown."""
    with ray_executor_here(sys.modules[__name__]) as executor:
        yield executor


def square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def test_map_is_ordered_and_equal_to_the_local_executor(ray_executor: RayExecutor) -> None:
    items = list(range(23))
    remote = ray_executor.map(square_and_pid, items, label="squares")
    local = LocalExecutor().map(square_and_pid, items)
    assert [r for r, _ in remote] == [r for r, _ in local] == [x * x for x in items]
    assert os.getpid() not in {pid for _, pid in remote}  # ran on workers, not here
    described = ray_executor.describe()
    assert described["executor"] == "ray" and described["workers"] == 2
    assert described["tasks"] >= len(items)
    assert sum(described["per_worker"].values()) == described["tasks"]
    assert ray_executor.map(square_and_pid, []) == []


def die_once_then_double(job: tuple[str, int]) -> int:
    """Item 3 kills its worker on the first attempt; each finished item leaves a line."""
    folder, x = job
    marker = Path(folder) / f"died-{x}"
    if x == 3 and not marker.exists():
        marker.touch()
        os._exit(1)
    with open(Path(folder) / "finished.txt", "a") as f:
        f.write(f"{x}\n")
    return 2 * x


def test_a_task_whose_worker_dies_is_retried_and_counted_once(
        ray_executor: RayExecutor, tmp_path: Path) -> None:
    results = ray_executor.map(die_once_then_double, [(str(tmp_path), x) for x in range(6)])
    assert results == [0, 2, 4, 6, 8, 10]
    assert (tmp_path / "died-3").exists()  # the first attempt did die
    finished = (tmp_path / "finished.txt").read_text().split()
    assert sorted(finished) == [str(x) for x in range(6)]  # each item finished once


def refuse(x: int) -> int:
    raise CrevalError(f"Item {x} is bad input; pass another.")


def test_bad_input_in_a_task_is_its_own_error_not_a_remote_traceback(
        ray_executor: RayExecutor) -> None:
    with pytest.raises(CrevalError) as caught:
        ray_executor.map(refuse, [7])
    assert str(caught.value) == "Item 7 is bad input; pass another."


class CountingModel:
    """A stand-in 'model' that records each load in a file (one line per build)."""

    def __init__(self, log: str, scale: int) -> None:
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        self.scale = scale

    def predict(self, batch: list[int]) -> list[int]:
        return [self.scale * x for x in batch]


def test_an_actor_loads_its_model_once_and_reuses_it(
        ray_executor: RayExecutor, tmp_path: Path) -> None:
    log = tmp_path / "loads.txt"
    factory = functools.partial(CountingModel, str(log), 3)
    batches = split(list(range(40)), 8)
    first = ray_executor.map_with(factory, "predict", batches, label="model")
    second = ray_executor.map_with(factory, "predict", batches, label="model")
    assert first == second == [[3 * x for x in b] for b in batches]
    loads = log.read_text().split()
    assert 1 <= len(loads) <= 2  # one per actor (workers=2), not one per batch or per call
    assert os.getpid() not in {int(p) for p in loads}
    local_log = tmp_path / "local.txt"
    local = LocalExecutor().map_with(functools.partial(CountingModel, str(local_log), 3),
                                     "predict", batches)
    assert local == first and len(local_log.read_text().split()) == 1


def test_the_current_executor_is_set_in_a_block_and_seen_by_threads() -> None:
    import asyncio

    mine = LocalExecutor()
    assert current_executor().name == "local" and current_executor() is not mine
    with using_executor(mine):
        assert current_executor() is mine
        assert asyncio.run(asyncio.to_thread(current_executor)) is mine
    assert current_executor() is not mine


def test_ray_missing_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(CrevalError, match=r"pip install 'creval\[ray\]'"):
        get_executor("ray")
    with pytest.raises(CrevalError, match="--executor local"):
        get_executor("spark")
    with pytest.raises(CrevalError, match="--workers needs --executor ray"):
        get_executor("local", workers=2)


def test_sat_distances_from_embedding_actors_equal_the_local_ones(
        ray_executor: RayExecutor) -> None:
    """SAT's embedding batches go to actors that load the packaged MiniLM once; the
    distances are those of this process."""
    from creval.benchmarks.sat import SATOptions, rewrite_distances

    pairs = [("Once upon a time a wolf met a girl in the woods.",
              "A courier met a delivery drone on her ride through the city."),
             ("The frog was a prince.", "The app turned out to be run by one founder."),
             ("Three pigs built three houses.", "Three startups rented three offices.")]
    options = SATOptions()
    local = rewrite_distances(pairs, options)
    before = ray_executor.describe()["tasks"]
    with using_executor(ray_executor):
        remote = rewrite_distances(pairs, options)
        again = rewrite_distances(pairs[:1], options)
    assert remote[1] == local[1]  # the same embedder identity
    assert remote[0] == pytest.approx(local[0], abs=1e-6)
    assert again[0] == pytest.approx(local[0][:1], abs=1e-6)
    assert ray_executor.describe()["tasks"] - before == 3 + 3  # identity + 2 batches, twice


def test_creativity_index_queries_on_index_actors_equal_the_local_ones(
        ray_executor: RayExecutor) -> None:
    """Metric validity's index queries go in chunks to actors that open the (starter) index
    once; every score, table and the query count are those of this process."""
    from collections import Counter

    from creval.benchmarks.metric_validity.data import LabelledText
    from creval.benchmarks.metric_validity.scoring import creativity_scores
    from creval.index.local import LocalIndex
    from creval.index.starter import starter_index_dir

    texts = ["It was the best of times, it was the worst of times, it was the age of wisdom.",
             "The quick brown fox jumps over the lazy dog while the cat sleeps by the fire.",
             "Purple kettles hum sonnets to the moon whenever the tide forgets its own name.",
             "Once upon a time there lived a king who had three daughters and a golden ball.",
             "short text"]
    items = [LabelledText(id=str(i), text=t, label=i % 2) for i, t in enumerate(texts)]

    def scores() -> tuple[dict[str, Any], dict[str, dict[str, float]], Counter[str]]:
        per_text: dict[str, dict[str, float]] = {}
        excluded: Counter[str] = Counter()
        out = creativity_scores(items, LocalIndex(starter_index_dir()), min_l=5, max_l=7,
                                per_text=per_text, excluded=excluded)
        return out, per_text, excluded

    local = scores()
    before = ray_executor.describe()["tasks"]
    with using_executor(ray_executor):
        remote = scores()
    assert remote == local and local[0]["queries"] == 4  # the short text is excluded
    assert ray_executor.describe()["tasks"] - before == 4  # chunks of 1 over 2 x 2 workers
