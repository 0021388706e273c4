"""Homogeneity against a direct computation: pair loops for the similarities, the documented
resampling replayed by hand for the intervals, exact enumeration for the permutation test."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.spatial.distance import cosine

from creval.metrics.homogeneity import (
    cosine_similarity_matrix,
    homogeneity,
    jaccard_similarity_matrix,
)

WORDS = [  # three items; C is absent from item 2 and A has one answer on item 3
    [("A", "cat dog sun"), ("A", "cat sun moon"), ("B", "cat tree"), ("B", "rock tree sun"),
     ("C", "sea")],
    [("A", "cat"), ("A", "dog cat"), ("B", "dog"), ("B", "cat dog")],
    [("A", "moon sea"), ("B", "sea sun"), ("B", "moon"), ("C", "sea moon"), ("C", "rock")],
]


def _jaccard(x: str, y: str) -> float:
    a, b = set(x.split()), set(y.split())
    return len(a & b) / len(a | b)


def _direct(items: list[list[tuple[str, str]]], sim: object) -> tuple[dict[str, list[float]], dict[tuple[str, str], list[float]]]:
    """Per-item within and across means by explicit loops over answer pairs."""
    within: dict[str, list[float]] = {}
    across: dict[tuple[str, str], list[float]] = {}
    for item in items:
        groups = sorted({g for g, _ in item})
        for g in groups:
            mine = [x for h, x in item if h == g]
            pairs = [sim(x, y) for x, y in itertools.combinations(mine, 2)]  # type: ignore[operator]
            if pairs:
                within.setdefault(g, []).append(sum(pairs) / len(pairs))
        for a, b in itertools.combinations(groups, 2):
            values = [sim(x, y) for g, x in item if g == a for h, y in item if h == b]  # type: ignore[operator]
            across.setdefault((a, b), []).append(sum(values) / len(values))
    return within, across


def _word_items() -> list[tuple[np.ndarray, list[str]]]:
    return [(jaccard_similarity_matrix([t.split() for _, t in item]), [g for g, _ in item])
            for item in WORDS]


def test_jaccard_and_cosine_matrices_match_pair_by_pair() -> None:
    texts = [t for item in WORDS for _, t in item]
    J = jaccard_similarity_matrix([t.split() for t in texts])
    for i, j in itertools.product(range(len(texts)), repeat=2):
        assert J[i, j] == pytest.approx(_jaccard(texts[i], texts[j]))
    X = np.random.default_rng(3).normal(size=(6, 4))
    C = cosine_similarity_matrix(X)
    for i, j in itertools.product(range(6), repeat=2):
        assert C[i, j] == pytest.approx(1 - cosine(X[i], X[j]))


def test_similarities_match_a_direct_computation() -> None:
    within, across = _direct(WORDS, _jaccard)
    result = homogeneity(_word_items(), permutations=0, resamples=50)
    assert result.groups == ("A", "B", "C")
    for g, values in within.items():
        assert result.within[g].similarity == pytest.approx(sum(values) / len(values))
        assert result.within[g].items == len(values)
    assert result.within["A"].items == 2 and result.within["C"].items == 1
    for pair in result.pairs:
        values = across[(pair.a, pair.b)]
        assert pair.similarity == pytest.approx(sum(values) / len(values))
        assert pair.items == len(values) and pair.p is None
    i = result.groups.index
    assert result.matrix[i("A")][i("B")] == result.matrix[i("B")][i("A")] == result.pairs[0].similarity


def test_cosine_similarities_match_a_direct_computation() -> None:
    rng = np.random.default_rng(7)
    items = []
    vectors: list[list[tuple[str, np.ndarray]]] = []
    for sizes in ({"A": 3, "B": 2}, {"A": 2, "B": 2, "C": 2}):
        answers = [(g, rng.normal(size=5)) for g, n in sizes.items() for _ in range(n)]
        vectors.append(answers)
        items.append((cosine_similarity_matrix(np.stack([v for _, v in answers])), [g for g, _ in answers]))
    within, across = _direct(vectors, lambda x, y: 1 - cosine(x, y))  # type: ignore[arg-type]
    result = homogeneity(items, permutations=0, resamples=20)
    for g, values in within.items():
        assert result.within[g].similarity == pytest.approx(float(np.mean(values)))
    for pair in result.pairs:
        assert pair.similarity == pytest.approx(float(np.mean(across[(pair.a, pair.b)])))


def test_item_interval_is_a_mean_interval_from_ten_items() -> None:
    """With ``unit="item"`` a cell's interval is that of the mean of its per-item values
    (t + Hall, never narrower than Student's t below 15 values), none below ten items."""
    from scipy import stats

    result = homogeneity(_word_items(), permutations=0)
    assert result.pairs[0].similarity is not None and result.pairs[0].low is None  # 3 items
    rng = np.random.default_rng(4)
    items = []
    for _ in range(12):
        x = rng.normal(size=(4, 5)) + rng.exponential(1.0, (1, 5))
        items.append((cosine_similarity_matrix(x), ["A", "A", "B", "B"]))
    per_item = [float(S[:2, 2:].mean()) for S, _ in items]
    result = homogeneity(items, permutations=0, confidence=0.9)
    ab = result.pairs[0]
    t_low, t_high = stats.t.interval(0.9, 11, loc=np.mean(per_item), scale=stats.sem(per_item))
    assert ab.similarity == pytest.approx(np.mean(per_item))
    assert ab.low is not None and ab.high is not None
    assert ab.low <= t_low + 1e-12 and ab.high >= t_high - 1e-12
    assert ab.high - ab.low < 1.5 * (t_high - t_low)


def test_answer_interval_is_a_brute_force_jackknife_on_fishers_z() -> None:
    """``unit="answer"``: leave each answer out in turn, recompute the cell, the jackknife
    variance, Student's t with the smaller group's answers less one, on atanh and back; no
    interval for a group of fewer than ``HOMOGENEITY_MIN_ANSWERS`` answers."""
    from scipy import stats

    from creval.metrics.homogeneity import HOMOGENEITY_MIN_ANSWERS, item_block_means

    rng = np.random.default_rng(8)
    sizes = {"A": HOMOGENEITY_MIN_ANSWERS, "B": HOMOGENEITY_MIN_ANSWERS + 2, "C": 3}
    labels = [g for g, n in sizes.items() for _ in range(n)]
    S = cosine_similarity_matrix(rng.normal(size=(len(labels), 4)) + 1.0)
    codes = np.array([{"A": 0, "B": 1, "C": 2}[x] for x in labels])
    result = homogeneity([(S, labels)], unit="answer", permutations=0, confidence=0.9)

    def brute(i: int, j: int) -> tuple[float, float]:
        full = item_block_means(S, codes, 3)[i, j]
        var = 0.0
        for g in {i, j}:
            left = [item_block_means(np.delete(np.delete(S, x, 0), x, 1), np.delete(codes, x), 3)[i, j]
                    for x in np.flatnonzero(codes == g)]
            var += (len(left) - 1) / len(left) * float(np.sum((np.array(left) - np.mean(left)) ** 2))
        df = min(sizes["AB"[i]], sizes["AB"[j]]) - 1
        half = stats.t.ppf(0.95, df) * math.sqrt(var) / (1 - full**2)
        return math.tanh(math.atanh(full) - half), math.tanh(math.atanh(full) + half)

    ab = result.pairs[0]
    assert (ab.low, ab.high) == pytest.approx(brute(0, 1))
    assert (result.within["A"].low, result.within["A"].high) == pytest.approx(brute(0, 0))
    assert result.within["C"].similarity is not None and result.within["C"].low is None
    assert all(p.low is None for p in result.pairs if "C" in (p.a, p.b))


def test_permutation_p_matches_exact_enumeration() -> None:
    items = [_word_items()[0], _word_items()[2]]
    labelings = [sorted(set(itertools.permutations(labels))) for _, labels in items]

    def ab(assignment: tuple[tuple[str, ...], ...]) -> float:
        per_item = [_direct([[(g, t) for g, (_, t) in zip(labels, item, strict=True)]], _jaccard)[1][("A", "B")][0]
                    for labels, item in zip(assignment, (WORDS[0], WORDS[2]), strict=True)]
        return sum(per_item) / len(per_item)

    observed = ab(tuple(tuple(labels) for _, labels in items))
    stats = [ab(combo) for combo in itertools.product(*labelings)]
    exact = sum(s >= observed - 1e-12 for s in stats) / len(stats)
    result = homogeneity(items, permutations=3000, resamples=10)
    p = result.pairs[0].p
    assert p is not None and abs(p - exact) < 0.03, (p, exact)


def test_a_pair_far_closer_than_chance_gets_a_small_p() -> None:
    rng = np.random.default_rng(1)
    items = []
    for _ in range(6):
        shared, other = rng.normal(size=8), rng.normal(size=8)
        X = np.stack([shared + 0.1 * rng.normal(size=8) for _ in range(4)]
                     + [other + 0.1 * rng.normal(size=8) for _ in range(2)])
        items.append((cosine_similarity_matrix(X), ["A", "A", "B", "B", "C", "C"]))
    result = homogeneity(items, permutations=200, resamples=100)
    by_pair = {(p.a, p.b): p for p in result.pairs}
    assert by_pair[("A", "B")].p == pytest.approx(1 / 201)
    assert by_pair[("A", "C")].p > 0.5 and by_pair[("A", "B")].similarity > 0.9


@pytest.mark.parametrize(("call", "message"), [
    (lambda: homogeneity([]), "non-empty"),
    (lambda: homogeneity([([[1.0]], ["A"])]), "at least two"),
    (lambda: homogeneity([([[1.0, 0.2], [0.3, 1.0]], ["A", "B"])] * 2), "not symmetric"),
    (lambda: homogeneity([([[1.0]], ["A", "B"])] * 2), "one label per row"),
    (lambda: homogeneity([([[1.0]], ["A"])] * 2, groups=["B"]), "does not list 'A'"),
    (lambda: homogeneity([([[1.0]], ["A"])] * 2, unit="prompt"), "unit must be"),  # type: ignore[arg-type]
    (lambda: homogeneity([([[1.0]], ["A"])] * 2, confidence=1.0), "confidence"),
    (lambda: homogeneity([([[1.0]], ["A"])] * 2, permutations=-1), "permutations"),
    (lambda: homogeneity([([[math.nan]], ["A"])] * 2), "NaN"),
    (lambda: jaccard_similarity_matrix([["a"], []]), r"sets\[1\] is empty"),
])
def test_bad_input_names_the_argument(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
