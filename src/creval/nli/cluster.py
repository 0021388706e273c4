"""Greedy entailment clustering of texts with an async backend, batched per representative.

The greedy algorithm of :func:`creval.metrics.partition.partition` visits samples in order
and compares each with the representative of every earlier class. Equivalently, class by
class: the first unassigned sample becomes the next representative, and every later
unassigned sample is compared with it; those equivalent to it join its class. That order
needs the same comparisons, so :func:`partition_texts` sends, for each representative, all
its pairs (both directions) to the backend in one batch, through a
:class:`~creval.nli.cache.CachingEntailment` so that no ordered pair is classified twice.
It then hands the collected verdicts to the pure :func:`~creval.metrics.partition.partition`,
so the classes are exactly the pure function's.
"""

from __future__ import annotations

from collections.abc import Sequence

from creval.metrics.partition import Partition, check_mode, equivalent, partition
from creval.nli.base import Entailment
from creval.nli.cache import CachingEntailment

__all__ = ["partition_texts"]


async def partition_texts(
    texts: Sequence[str], entailment: Entailment, *, mode: str = "strict"
) -> Partition:
    """Cluster ``texts`` by bidirectional entailment with ``entailment``.

    ``entailment`` is wrapped in a :class:`CachingEntailment` unless it is one already (pass
    one shared cache to reuse verdicts across calls and read its call counts). The result's
    ``entailment_calls`` counts the ordered pairs the algorithm needed, whether or not the
    cache already held them.
    """
    check_mode(mode)
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, not one string.")
    texts = list(texts)
    cache = entailment if isinstance(entailment, CachingEntailment) else CachingEntailment(entailment)
    relation: dict[tuple[str, str], str] = {}
    unassigned = list(range(len(texts)))
    while unassigned:
        rep, rest = texts[unassigned[0]], unassigned[1:]
        pairs: list[tuple[str, str]] = []
        for j in rest:
            if texts[j] != rep:
                pairs += [(rep, texts[j]), (texts[j], rep)]
        pairs = list(dict.fromkeys(pairs))
        if pairs:
            results = await cache.classify(pairs)
            relation.update((p, r.label) for p, r in zip(pairs, results, strict=True))
        unassigned = [
            j for j in rest
            if texts[j] != rep
            and not equivalent(relation[(rep, texts[j])], relation[(texts[j], rep)], mode=mode)
        ]
    return partition(texts, relation, mode=mode)
