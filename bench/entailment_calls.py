"""Entailment calls per step: greedy representative clustering vs all-pairs clustering.

Each step's sample set is ``n`` texts (default 10, the paper's samples per step) falling into
``k`` true meaning classes, ``k = 1..n``: a random assignment in which every class has at least
one member, in random order. A deterministic oracle says ``entailment`` within a class and
``neutral`` across classes. The same sets go through
:func:`creval.nli.partition_texts` (greedy, each sample against each class's representative,
both directions, through the call-counting cache) and are compared with all-pairs clustering,
which classifies every ordered pair: ``n (n - 1)`` calls. The greedy partition is checked to
recover the true classes. Also reported: backend batches (one per representative that has
later samples left to compare with).

The same sets then go through the pure batched steps of the greedy partition with
``lookup="lazy"`` (:func:`creval.metrics.partition.partition_steps`: the second direction of
a comparison only when the first leaves it open), through the same call-counting cache; its
classes are checked to equal the ``both`` partition's.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
from collections.abc import Sequence
from typing import Any

from creval.metrics.partition import Partition, partition_steps
from creval.nli import CachingEntailment, NLIResult, partition_texts


class ClassOracle:
    """Entailment iff two texts carry the same class tag (``"c3/7"`` is sample 7 of class 3)."""

    spec = "oracle"

    def identity(self) -> dict[str, Any]:
        return {"backend": "oracle"}

    async def classify(self, pairs: Sequence[tuple[str, str]]) -> list[NLIResult]:
        return [
            NLIResult(label="entailment" if a.split("/")[0] == b.split("/")[0] else "neutral")
            for a, b in pairs
        ]


def sample_set(n: int, k: int, rng: random.Random) -> list[str]:
    """``n`` texts in ``k`` non-empty classes, shuffled."""
    classes = list(range(k)) + [rng.randrange(k) for _ in range(n - k)]
    rng.shuffle(classes)
    return [f"c{c}/{i}" for i, c in enumerate(classes)]


async def lazy_partition(texts: list[str], cache: CachingEntailment) -> Partition:
    """The greedy partition with ``lookup="lazy"``, its batches sent through ``cache``."""
    steps = partition_steps(texts, mode="strict", lookup="lazy")
    try:
        pairs = next(steps)
        while True:
            results = await cache.classify(pairs)
            pairs = steps.send({p: r.label for p, r in zip(pairs, results, strict=True)})
    except StopIteration as done:
        result: Partition = done.value
        return result


async def measure(texts: list[str]) -> tuple[int, int, int, int]:
    """Calls and batches of the current driver (both directions) and of the lazy lookup."""
    cache = CachingEntailment(ClassOracle())
    result = await partition_texts(texts, cache, mode="strict")
    truth = [t.split("/")[0] for t in texts]
    for i in range(len(texts)):
        for j in range(len(texts)):
            if (truth[i] == truth[j]) != (result.class_ids[i] == result.class_ids[j]):
                raise AssertionError(f"greedy partition disagrees with the truth on {texts}")
    assert cache.calls == result.entailment_calls
    lazy_cache = CachingEntailment(ClassOracle())
    lazy = await lazy_partition(texts, lazy_cache)
    if lazy.class_ids != result.class_ids:
        raise AssertionError(f"lazy lookup changed the partition of {texts}")
    assert lazy_cache.calls == lazy.entailment_calls
    return cache.calls, cache.batches, lazy_cache.calls, lazy_cache.batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10, help="samples per step (default 10)")
    parser.add_argument("--sets", type=int, default=200, help="random sets per k (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n, all_pairs = args.n, args.n * (args.n - 1)
    rng = random.Random(args.seed)
    print(f"n = {n} samples per step, {args.sets} random sets per k, seed {args.seed}; "
          f"all-pairs clustering = n(n-1) = {all_pairs} calls")
    print("| true classes k | both: calls mean | min | max | batches | / all pairs "
          "| lazy: calls mean | min | max | batches | / all pairs |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    overall: list[float] = []
    overall_lazy: list[float] = []
    for k in range(1, n + 1):
        runs = [asyncio.run(measure(sample_set(n, k, rng))) for _ in range(args.sets)]
        cells = []
        for calls, batches in (([r[0] for r in runs], [r[1] for r in runs]),
                               ([r[2] for r in runs], [r[3] for r in runs])):
            mean = statistics.mean(calls)
            cells.append(f"{mean:.1f} | {min(calls)} | {max(calls)} | "
                         f"{statistics.mean(batches):.1f} | {mean / all_pairs:.2f}")
        overall.append(statistics.mean(r[0] for r in runs))
        overall_lazy.append(statistics.mean(r[2] for r in runs))
        print(f"| {k} | {cells[0]} | {cells[1]} |")
    for label, values in (("both directions", overall), ("lazy lookup", overall_lazy)):
        print(f"{label}: mean over k = 1..{n}: {statistics.mean(values):.1f} calls "
              f"({statistics.mean(values) / all_pairs:.2f} of all-pairs n(n-1) = {all_pairs})")


if __name__ == "__main__":
    main()
