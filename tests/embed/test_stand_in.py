"""Stand-in embedders for ``--plan`` (creval.embed.stand_in): none is kept for real runs."""

from __future__ import annotations

import doctest

import numpy as np

from creval.embed import get_embedder, stand_in
from creval.embed.stand_in import StandInEmbedder, stand_in_embedders


def test_the_module_examples_run() -> None:
    assert doctest.testmod(stand_in).failed == 0


def test_within_the_block_every_spec_is_a_stand_in_and_none_is_kept() -> None:
    from creval.judges import registry

    before = registry._loaded_embedder.cache_info().currsize
    with stand_in_embedders():
        embedder = get_embedder("minilm")
        judge_side = registry._embedder("minilm")
    assert isinstance(embedder, StandInEmbedder) and isinstance(judge_side, StandInEmbedder)
    assert embedder.identity()["spec"] == "stand-in:minilm"
    assert registry._loaded_embedder.cache_info().currsize == before  # a later run loads minilm
    vectors = embedder.embed(["a flat tyre", "a flat tyre", "", "glue the tyre"])
    assert vectors.shape == (4, 64) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > 0.999 and vectors[0] @ vectors[3] < 0.999
