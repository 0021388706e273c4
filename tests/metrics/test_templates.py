"""Syntactic templates: hand calculations, a brute-force check, batch independence."""

from __future__ import annotations

import gzip
import random

import pytest

from creval.metrics.templates import (
    mine_templates,
    pos_compression_ratio,
    template_counts,
    template_rate,
    templates_per_token,
)

TAGS = ["DT", "NN", "VBD", "IN", "JJ", "PRP", "."]


def test_hand_calculation() -> None:
    # text 1: [DT NN VBD .] ; text 2: [DT NN] [VBD DT NN .]
    # trigrams (within sentences): (DT NN VBD), (NN VBD .) | (VBD DT NN), (DT NN .)
    # each once; ties broken by tag text -> top 2 = (DT NN .), (DT NN VBD)
    texts = [[["DT", "NN", "VBD", "."]], [["DT", "NN"], ["VBD", "DT", "NN", "."]]]
    templates = mine_templates(texts, n=3, top_k=2)
    assert templates == [("DT", "NN", "."), ("DT", "NN", "VBD")]
    assert template_counts(texts, templates) == [1, 1]  # (DT NN VBD) never crosses sentences
    assert template_rate(texts, templates) == 1.0
    assert templates_per_token(texts, templates) == pytest.approx([1 / 4, 1 / 6])


def test_compression_ratio_is_one_gzip_pass() -> None:
    texts = [[["DT", "NN", "VBD"]], [["PRP", "VBD", "."]]]
    joined = b"DT NN VBD PRP VBD ."
    assert pos_compression_ratio(texts) == pytest.approx(len(joined) / len(gzip.compress(joined, 9, mtime=0)))


def _random_texts(rng: random.Random, count: int) -> list[list[list[str]]]:
    return [
        [[rng.choice(TAGS) for _ in range(rng.randint(1, 9))] for _ in range(rng.randint(1, 4))]
        for _ in range(count)
    ]


def test_against_brute_force() -> None:
    rng = random.Random(3)
    texts = _random_texts(rng, 30)
    n, k = 3, 5
    # brute force: every window of every sentence, counted in a plain dict
    counts: dict[tuple[str, ...], int] = {}
    for text in texts:
        for s in text:
            for i in range(len(s) - n + 1):
                counts[tuple(s[i : i + n])] = counts.get(tuple(s[i : i + n]), 0) + 1
    best = sorted(counts, key=lambda g: (-counts[g], g))[:k]
    assert mine_templates(texts, n=n, top_k=k) == best
    for text, c in zip(texts, template_counts(texts, best), strict=True):
        expected = sum(
            1 for s in text for i in range(len(s) - n + 1) if tuple(s[i : i + n]) in set(best)
        )
        assert c == expected


def test_independent_of_order_and_batch_size() -> None:
    rng = random.Random(5)
    texts = _random_texts(rng, 40)
    templates = mine_templates(texts, n=2, top_k=4)
    shuffled = texts[:]
    rng.shuffle(shuffled)
    assert mine_templates(shuffled, n=2, top_k=4) == templates
    whole = templates_per_token(texts, templates)
    for size in (1, 7, 40):
        batched = [v for i in range(0, len(texts), size) for v in templates_per_token(texts[i : i + size], templates)]
        assert batched == whole


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        template_counts([[["DT"]], "DT NN"], [("DT",)])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="same length"):
        template_rate([[["DT"]]], [("DT",), ("DT", "NN")])
    with pytest.raises(ValueError, match="templates is empty"):
        template_rate([[["DT"]]], [])
    with pytest.raises(ValueError, match=r"texts\[0\] has no tokens"):
        templates_per_token([[]], [("DT",)])
    with pytest.raises(ValueError, match="top_k"):
        mine_templates([[["DT"]]], n=1, top_k=0)
