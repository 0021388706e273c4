"""The lazy lookup and the batched steps give the classes of the original greedy algorithm.

``_reference`` is the greedy partition as it was written before ``lookup`` existed (each
sample against each earlier representative, both directions asked, memoised): the classes
of ``lookup="lazy"`` and of :func:`partition_steps` must be identical to it on every
relation, transitive or not, and ``lookup="both"`` must also keep its call count.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from creval.metrics.partition import Partition, equivalent, partition, partition_steps

LABELS = ("entailment", "neutral", "contradiction")


def _reference(texts: list[str], implies: Callable[[str, str], str], mode: str
               ) -> tuple[tuple[int, ...], int]:  # fmt: skip
    memo: dict[tuple[str, str], str] = {}

    def verdict(a: str, b: str) -> str:
        if (a, b) not in memo:
            memo[(a, b)] = implies(a, b)
        return memo[(a, b)]

    reps: list[str] = []
    ids: list[int] = []
    for text in texts:
        for c, rep in enumerate(reps):
            if text == rep or equivalent(verdict(rep, text), verdict(text, rep), mode=mode):
                ids.append(c)
                break
        else:
            ids.append(len(reps))
            reps.append(text)
    return tuple(ids), len(memo)


def _as_function(table: dict[tuple[str, str], str]) -> Callable[[str, str], str]:
    return lambda a, b: table[(a, b)]


def _noisy_relation(rng: random.Random, vocab: list[str], k: int, noise: float
                    ) -> dict[tuple[str, str], str]:  # fmt: skip
    """Entailment within a fixed equivalence of ``k`` classes, neutral across, then a share
    ``noise`` of the ordered verdicts replaced at random (asymmetric, non-transitive)."""
    meaning = {t: rng.randrange(k) for t in vocab}
    table = {}
    for a in vocab:
        for b in vocab:
            label = "entailment" if meaning[a] == meaning[b] else "neutral"
            if rng.random() < noise:
                label = rng.choice(LABELS)
            table[(a, b)] = label
    return table


def _cases(seed: int, count: int) -> list[tuple[list[str], dict[tuple[str, str], str]]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        # Realistic: texts of different lengths (the lazy order looks at lengths), repeats.
        vocab = [f"s{i}" + "x" * rng.randrange(8) for i in range(rng.randint(1, 12))]
        texts = [rng.choice(vocab) for _ in range(rng.randint(0, 14))]
        noise = rng.choice([0.0, 0.05, 0.2, 0.5, 1.0])
        cases.append((texts, _noisy_relation(rng, vocab, rng.randint(1, 6), noise)))
    return cases


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_lazy_and_both_give_the_reference_classes_on_random_relations(mode: str) -> None:
    saved = 0
    for texts, table in _cases(21 if mode == "strict" else 22, 1500):
        ids, calls = _reference(texts, _as_function(table), mode)
        both = partition(texts, table, mode=mode)
        lazy = partition(texts, table, mode=mode, lookup="lazy")
        assert both == Partition(class_ids=ids, entailment_calls=calls, mode=mode)
        assert lazy.class_ids == ids
        assert lazy.entailment_calls <= calls
        saved += calls - lazy.entailment_calls
    assert saved > 0


def test_lazy_asks_only_pairs_that_decide_and_never_twice() -> None:
    asked: list[tuple[str, str]] = []

    def implies(p: str, h: str) -> str:
        asked.append((p, h))
        return "entailment" if p[0] == h[0] else "neutral"

    # strict: 'b' vs 'aa' -> the shorter premise first, ('b', 'aa'): neutral, done (1 call).
    # 'ab' vs 'aa': ('aa', 'ab') entailment, then ('ab', 'aa') (2 calls). Then 'b' founds a
    # class; 'ab' already joined 'aa'.
    result = partition(["aa", "b", "ab"], implies, lookup="lazy")
    assert result.class_ids == (0, 1, 0)
    assert asked == [("b", "aa"), ("aa", "ab"), ("ab", "aa")]
    assert result.entailment_calls == 3 and result.lookup == "lazy"


def test_lenient_lazy_stops_only_on_contradiction() -> None:
    rel = {("p", "q"): "neutral", ("q", "p"): "entailment",
           ("p", "r"): "contradiction", ("r", "p"): "entailment"}
    result = partition(["p", "q", "r"], rel, mode="lenient", lookup="lazy")
    assert result.class_ids == (0, 0, 1)
    assert result.entailment_calls == 3  # ('r', 'p') never asked
    strict = partition(["p", "q"], rel, mode="strict", lookup="lazy")
    assert strict.class_ids == (0, 1) and strict.entailment_calls == 1


@pytest.mark.parametrize("lookup", ["both", "lazy"])
def test_batched_steps_equal_the_sequential_function(lookup: str) -> None:
    for texts, table in _cases(23, 300):
        steps = partition_steps(texts, lookup=lookup)
        asked: list[tuple[str, str]] = []
        batches = 0
        try:
            pairs = next(steps)
            while True:
                batches += 1
                asked += pairs
                pairs = steps.send({p: table[p] for p in pairs})
        except StopIteration as done:
            result = done.value
        assert result == partition(texts, table, lookup=lookup)
        assert len(asked) == len(set(asked)) == result.entailment_calls
        assert batches <= result.n_classes * (1 if lookup == "both" else 2)


def test_batched_steps_validate() -> None:
    steps = partition_steps(["a", "b"])
    assert next(steps) == [("a", "b"), ("b", "a")]
    with pytest.raises(ValueError, match="No verdict was sent"):
        steps.send({("a", "b"): "entailment"})
    with pytest.raises(ValueError, match="lookup must be"):
        partition(["a"], {}, lookup="lenient")
    with pytest.raises(ValueError, match="lookup must be"):
        next(partition_steps(["a"], lookup="half"))


def test_lazy_saves_on_a_fixed_equivalence() -> None:
    # 10 samples, 3 meanings, an exact oracle: every comparison across meanings costs 1
    # call instead of 2, every match still 2.
    texts = [f"{c}/{i}" for i, c in enumerate([0, 1, 0, 2, 1, 0, 2, 2, 1, 0])]
    oracle = lambda a, b: "entailment" if a[0] == b[0] else "neutral"  # noqa: E731
    both, lazy = partition(texts, oracle), partition(texts, oracle, lookup="lazy")
    assert both.class_ids == lazy.class_ids == (0, 1, 0, 2, 1, 0, 2, 2, 1, 0)
    matches, mismatches = 7, 1 + 2 + 1 + 2 + 2 + 1  # samples 1, 3, 4, 6, 7, 8
    assert both.entailment_calls == 2 * (matches + mismatches)
    assert lazy.entailment_calls == 2 * matches + mismatches
