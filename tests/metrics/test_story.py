"""Story metrics against independent computations: Lempel-Ziv by exhaustive phrase search
and against the authors' values (antropy's, in the staged DAT_GPT file), DSI against scipy's
pairwise cosine distances, the partial correlation against regression residuals."""

from __future__ import annotations

import csv
import random

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.distance import pdist

from creval.metrics.story import (
    divergent_semantic_integration,
    lempel_ziv_complexity,
    partial_pearson,
)
from tests.tests_paths import shared_data_path


def _lz76_brute(s: str) -> int:
    """Lempel-Ziv (1976) by definition: each phrase is the shortest piece starting at ``i``
    that is not a substring of everything read before its last symbol."""
    i, count = 0, 0
    while i < len(s):
        length = 1
        while i + length <= len(s) and s[i:i + length] in s[:i + length - 1]:
            length += 1
        count += 1
        i += length
    return count


@pytest.mark.parametrize("alphabet", ["01", "abc", "abcdefgh"])
def test_lempel_ziv_counts_match_the_definition(alphabet: str) -> None:
    rnd = random.Random(len(alphabet))
    for _ in range(300):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(2, 60)))
        assert lempel_ziv_complexity(text, normalize=False) == _lz76_brute(text), text
    # symbols other than characters: words as symbols
    words = ["the", "cat", "saw", "the", "cat", "saw", "a", "dog"]
    assert lempel_ziv_complexity(words, normalize=False) == _lz76_brute("abcabcde")


def test_lempel_ziv_reproduces_the_authors_values() -> None:
    path = shared_data_path("dat-100k", "all_stories_dsi_lziv_ratings_num-words.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["lziv"] and len(r["story"]) > 1]
    sample = random.Random(0).sample(rows, 60)
    for row in sample:
        assert lempel_ziv_complexity(row["story"]) == pytest.approx(float(row["lziv"]), abs=1e-12)


def test_lempel_ziv_refuses_what_it_cannot_read() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        lempel_ziv_complexity("a")
    with pytest.raises(ValueError, match="text or a sequence"):
        lempel_ziv_complexity(b"ab")


def test_dsi_is_the_mean_pairwise_cosine_distance() -> None:
    vectors = np.random.default_rng(2).normal(size=(40, 16))
    assert divergent_semantic_integration(vectors) == pytest.approx(
        float(np.mean(pdist(vectors, metric="cosine"))), abs=1e-12)
    with pytest.raises(ValueError, match="is zero"):
        divergent_semantic_integration([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="at least 2 rows"):
        divergent_semantic_integration([[1.0, 0.0]])


def test_partial_correlation_is_that_of_the_residuals() -> None:
    rng = np.random.default_rng(9)
    length = rng.normal(size=200)
    x = length + rng.normal(size=200)
    y = 0.5 * length + 0.3 * x + rng.normal(size=200)
    design = np.column_stack([np.ones(200), length])
    residual = [v - design @ np.linalg.lstsq(design, v, rcond=None)[0] for v in (x, y)]
    expected = stats.pearsonr(*residual).statistic
    p = partial_pearson(list(x), list(y), list(length))
    assert p.r == pytest.approx(expected, abs=1e-10)
    se = 1 / np.sqrt(200 - 4)
    assert p.low == pytest.approx(np.tanh(np.arctanh(expected) - 1.959964 * se), abs=1e-5)
    assert p.low < p.r < p.high
