"""Greedy bidirectional-entailment clustering, checked against hand-worked cases."""

from __future__ import annotations

import random

import pytest

from creval.metrics.partition import Partition, equivalent, partition


def _first_letter(a: str, b: str) -> str:
    """Entailment iff the texts start with the same letter; 'x' texts contradict the rest."""
    if a[0] == b[0]:
        return "entailment"
    return "contradiction" if "x" in (a[0], b[0]) else "neutral"


def test_hand_worked_strict_partition_and_call_count() -> None:
    # a1 founds class 0. b1 vs a1 (2 calls): no -> class 1. a2 vs a1 (2): yes -> 0.
    # b2 vs a1 (2): no; vs b1 (2): yes -> 1. c1 vs a1, b1 (4): no -> class 2.
    # Calls: 2 + 2 + 4 + 4 = 12.
    p = partition(["a1", "b1", "a2", "b2", "c1"], _first_letter)
    assert p.class_ids == (0, 1, 0, 1, 2)
    assert p.entailment_calls == 12
    assert p.n_classes == 3
    assert p.sizes == (2, 2, 1)
    assert p.representatives == (0, 1, 4)
    assert p.members(1) == (1, 3)
    assert p.mode == "strict"


def test_each_sample_is_compared_with_representatives_only() -> None:
    # a ~ b and b ~ c, but a !~ c. Greedy: b joins a's class; c is compared with the
    # representative a only (not with b), so it founds a new class.
    rel = {("a", "b"): "entailment", ("b", "a"): "entailment",
           ("a", "c"): "neutral", ("c", "a"): "neutral",
           ("b", "c"): "entailment", ("c", "b"): "entailment"}
    asked: list[tuple[str, str]] = []

    def implies(p: str, h: str) -> str:
        asked.append((p, h))
        return rel[(p, h)]

    result = partition(["a", "b", "c"], implies)
    assert result.class_ids == (0, 0, 1)
    assert sorted(asked) == [("a", "b"), ("a", "c"), ("b", "a"), ("c", "a")]
    assert result.entailment_calls == 4
    # Order matters: starting from b, both a and c join b's class.
    assert partition(["b", "a", "c"], rel).class_ids == (0, 0, 0)


def test_strict_and_lenient_differ_as_defined() -> None:
    #              forward       backward       strict  lenient
    cases = [("entailment", "entailment", True, True),
             ("entailment", "neutral", False, True),
             ("neutral", "entailment", False, True),
             ("neutral", "neutral", False, False),
             ("entailment", "contradiction", False, False),
             ("contradiction", "neutral", False, False)]
    for forward, backward, strict, lenient in cases:
        rel = {("p", "q"): forward, ("q", "p"): backward}
        assert equivalent(forward, backward, mode="strict") is strict
        assert equivalent(forward, backward, mode="lenient") is lenient
        assert partition(["p", "q"], rel, mode="strict").class_ids == ((0, 0) if strict else (0, 1))
        assert partition(["p", "q"], rel, mode="lenient").class_ids == ((0, 0) if lenient else (0, 1))


def test_both_directions_are_always_asked() -> None:
    # Even when the first direction already rules equivalence out (strict, neutral).
    asked: list[tuple[str, str]] = []

    def implies(p: str, h: str) -> str:
        asked.append((p, h))
        return "neutral"

    assert partition(["u", "v"], implies).entailment_calls == 2
    assert sorted(asked) == [("u", "v"), ("v", "u")]


def test_identical_texts_need_no_call_and_repeated_pairs_are_asked_once() -> None:
    calls: list[tuple[str, str]] = []

    def implies(p: str, h: str) -> str:
        calls.append((p, h))
        return _first_letter(p, h)

    # "b" vs "a" twice (same pair, memoised); "a" again joins class 0 without a call.
    p = partition(["a", "b", "b", "a"], implies)
    assert p.class_ids == (0, 1, 1, 0)
    assert calls == [("a", "b"), ("b", "a")]
    assert p.entailment_calls == 2


def test_true_clusters_are_recovered_in_first_appearance_order() -> None:
    rng = random.Random(7)
    for _ in range(50):
        n, k = rng.randint(1, 12), rng.randint(1, 5)
        truth = [rng.randrange(k) for _ in range(n)]
        texts = [f"{c}-{i}" for i, c in enumerate(truth)]
        oracle = lambda a, b: "entailment" if a.split("-")[0] == b.split("-")[0] else "neutral"  # noqa: E731
        result = partition(texts, oracle)
        renumber: dict[int, int] = {}
        expected = tuple(renumber.setdefault(c, len(renumber)) for c in truth)
        assert result.class_ids == expected
        # Each sample is compared with every representative before its own class (and with
        # its own class's unless it founds it): 2 calls per comparison.
        comparisons = sum(min(expected[i] + 1, len(set(expected[:i]))) for i in range(n))
        assert result.entailment_calls == 2 * comparisons


def test_validation_errors() -> None:
    with pytest.raises(ValueError, match="mode must be"):
        partition(["a"], _first_letter, mode="loose")
    with pytest.raises(ValueError, match="verdict must be one of"):
        partition(["a", "b"], lambda p, h: "yes")
    with pytest.raises(ValueError, match="no verdict for premise 'a' and hypothesis 'b'"):
        partition(["a", "b"], {("b", "a"): "entailment"})
    with pytest.raises(TypeError, match="not one string"):
        partition("ab", _first_letter)
    with pytest.raises(TypeError, match=r"texts\[1\] must be a string"):
        partition(["a", 3], _first_letter)  # type: ignore[list-item]
    with pytest.raises(TypeError, match="implies must be"):
        partition(["a", "b"], 42)  # type: ignore[arg-type]


def test_empty_and_single() -> None:
    assert partition([], _first_letter) == Partition(class_ids=(), entailment_calls=0, mode="strict")
    one = partition(["only"], _first_letter, mode="lenient")
    assert (one.class_ids, one.entailment_calls, one.sizes) == ((0,), 0, (1,))
