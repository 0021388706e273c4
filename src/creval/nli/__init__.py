"""Entailment (natural language inference) behind one protocol, selected by a spec string.

>>> from creval.nli import get_entailment, partition_texts
>>> nli = get_entailment("hf")                                  # doctest: +SKIP
>>> [r.label for r in await nli.classify([("A cat sleeps.", "An animal sleeps.")])]  # doctest: +SKIP
['entailment']
>>> (await partition_texts(samples, nli, mode="strict")).class_ids  # doctest: +SKIP
(0, 0, 1, ...)

Specs:

* ``hf`` / ``hf:NAME_OR_PATH``: an NLI sequence-classification model run by transformers
  (default ``tasksource/deberta-base-long-nli``); a hub name already cached or a local
  directory. Options: ``device``, ``batch_size``, ``label_map``.
* ``llm``: a language model asked for a one-word verdict; needs ``generate=`` (an async
  ``GenerateRequest -> list[Completion]`` callable, e.g. a model's ``generate``).
  Options: ``prompt_file``, ``max_tokens``.
* ``embedding`` / ``embedding:THRESHOLD``: cosine similarity of sentence embeddings
  (``embedder=``, default ``minilm``) at or above THRESHOLD (default 0.85) counts as
  entailment. An approximation, and labelled as one (``approximate: True``).
* ``similarity`` / ``similarity:NAME_OR_PATH``: NoveltyBench's same/different classifier
  (default ``yimingzhang/deberta-v3-large-generation-similarity``) with the paper's input
  format and threshold; "same" is entailment both ways, "different" neutral. Options:
  ``device``, ``batch_size``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from creval.embed.base import Embedder
from creval.errors import CrevalError
from creval.nli.base import LABELS, Entailment, Label, NLIResult, canonical_label
from creval.nli.cache import CachingEntailment
from creval.nli.cluster import partition_texts
from creval.nli.llm import Generate

__all__ = [
    "ENTAILMENT_SPECS",
    "LABELS",
    "CachingEntailment",
    "Entailment",
    "Label",
    "NLIResult",
    "canonical_label",
    "get_entailment",
    "partition_texts",
]

ENTAILMENT_SPECS = ("hf", "hf:NAME_OR_PATH", "llm", "embedding", "embedding:THRESHOLD",
                    "similarity", "similarity:NAME_OR_PATH")


def get_entailment(
    spec: str = "hf",
    *,
    generate: Generate | None = None,
    embedder: Embedder | str | None = None,
    device: str = "cpu",
    batch_size: int = 16,
    label_map: Mapping[str, str] | None = None,
    prompt_file: str | Path | None = None,
    max_tokens: int = 8,
) -> Entailment:
    """The entailment backend for ``spec`` (see the module docstring). Nothing is loaded
    until the first ``classify`` (or ``identity``) call.

    >>> get_entailment("embedding:0.9").spec
    'embedding:0.9'
    >>> get_entailment("llm")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: The 'llm' entailment backend needs generate=<async callable taking a GenerateRequest>, e.g. a model's generate method.
    >>> get_entailment("bert")
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: Unknown entailment spec 'bert'. Use one of: hf, hf:NAME_OR_PATH, llm, embedding, embedding:THRESHOLD, similarity, similarity:NAME_OR_PATH.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise CrevalError(f"An entailment spec must be a non-empty string, got {spec!r}.")
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "hf":
        from creval.nli.hf import DEFAULT_NLI_MODEL, HFEntailment

        return HFEntailment(
            rest.strip() or DEFAULT_NLI_MODEL, device=device, batch_size=batch_size,
            label_map=label_map,
        )
    if kind == "llm" and not rest:
        if generate is None:
            raise CrevalError(
                "The 'llm' entailment backend needs generate=<async callable taking a "
                "GenerateRequest>, e.g. a model's generate method."
            )
        from creval.nli.llm import LLMEntailment

        return LLMEntailment(generate, prompt_file=prompt_file, max_tokens=max_tokens)
    if kind == "embedding":
        from creval.nli.embedding import EmbeddingEntailment, parse_threshold

        return EmbeddingEntailment(embedder, threshold=parse_threshold(rest))
    if kind == "similarity":
        from creval.nli.similarity import DEFAULT_SIMILARITY_MODEL, SimilarityEntailment

        return SimilarityEntailment(
            rest.strip() or DEFAULT_SIMILARITY_MODEL, device=device, batch_size=batch_size
        )
    raise CrevalError(
        f"Unknown entailment spec {spec!r}. Use one of: {', '.join(ENTAILMENT_SPECS)}."
    )
