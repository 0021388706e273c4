"""Semantic Novelty Score (seed 002, section 5.2.6): concept-level distances.

An LLM (the ``--judge`` model) names the five most distinct core concepts of a text; SNS
is the mean cosine distance over the ten pairs of their embeddings (any creval embedder),
:func:`creval.metrics.distance.mean_pairwise_cosine_distance`. Parsing is strict: exactly
five numbered, non-empty, distinct concepts, or a parse failure with the raw answer.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

N_CONCEPTS = 5
_LINE = re.compile(r"^\s*(\d)[.)]\s*(.+?)\s*$")


def concepts_template() -> str:
    return (resources.files("creval") / "data" / "metric_validity" / "prompts" / "sns_concepts.txt"
            ).read_text(encoding="utf-8")


def parse_concepts(text: str) -> dict[str, Any]:
    """``{"concepts": [...]}`` (five, in order) or ``{"parse_error": ...}``.

    >>> parse_concepts("1. rope\\n2. knot\\n3) railing\\n4. bucket\\n5. well")["concepts"]
    ['rope', 'knot', 'railing', 'bucket', 'well']
    >>> parse_concepts("1. rope\\n2. rope\\n3. a\\n4. b\\n5. c")
    {'parse_error': 'the concepts repeat'}
    """
    found: dict[int, str] = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        match = _LINE.match(line)
        if not match:
            return {"parse_error": f"not a numbered concept line: {line.strip()[:60]!r}"}
        number, concept = int(match.group(1)), match.group(2).strip().strip("*").strip()
        if number in found:
            return {"parse_error": f"concept {number} is given twice"}
        found[number] = concept
    if sorted(found) != list(range(1, N_CONCEPTS + 1)):
        return {"parse_error": f"expected concepts numbered 1..{N_CONCEPTS}, got {sorted(found)}"}
    concepts = [found[i] for i in range(1, N_CONCEPTS + 1)]
    if any(not c for c in concepts):
        return {"parse_error": "an empty concept"}
    if len({c.lower() for c in concepts}) < N_CONCEPTS:
        return {"parse_error": "the concepts repeat"}
    return {"concepts": concepts}


def sns_scores(concepts: dict[str, list[str]], embedder_spec: str) -> dict[str, float]:
    """SNS per text id from its five concepts (one embedding batch for all texts)."""
    from creval.embed import get_embedder
    from creval.metrics.distance import mean_pairwise_cosine_distance

    if not concepts:
        return {}
    embedder = get_embedder(embedder_spec)
    ids = list(concepts)
    flat = [c for i in ids for c in concepts[i]]
    vectors = embedder.embed(flat)
    return {
        text_id: mean_pairwise_cosine_distance(vectors[k * N_CONCEPTS:(k + 1) * N_CONCEPTS])
        for k, text_id in enumerate(ids)
    }
