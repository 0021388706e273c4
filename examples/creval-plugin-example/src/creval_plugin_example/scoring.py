"""Scoring Alternative Uses answers: pure functions over text and vectors, no models, no I/O.

Two classic scores of the Alternative Uses Task (Guilford 1967):

* **fluency**: how many distinct uses an answer lists (``len(parse_uses(text))``), an
  integer >= 0;
* **originality**: how far the uses are, in meaning, from the object itself: the mean
  cosine distance between the embedding of the object and the embedding of each use, in
  ``[0, 2]`` (0: the use says the object again; about 1: unrelated). This is the semantic
  distance scoring of Beaty & Johnson (2021, "Automating creativity assessment with SemDis"),
  with one sentence embedder in place of their word-vector spaces.

Worked example: the object ``(1, 0)`` and three uses ``(2, 0)``, ``(0, 1)``, ``(1, 1)`` are at
cosine distances 0, 1 and ``1 - 1/sqrt(2) = 0.2929``; the originality is their mean, 0.4310.

>>> uses = parse_uses("1. plant pot\\n2. Plant pot.\\n3. bird bath")
>>> len(uses), uses
(2, ['plant pot', 'bird bath'])
>>> round(originality([1.0, 0.0], [[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 4)
0.431
"""

from __future__ import annotations

import re

import numpy as np
from numpy.typing import ArrayLike

from creval.metrics import paired_cosine_distances

__all__ = ["originality", "parse_uses"]

#: A list marker at the start of a line: ``1.``, ``2)``, ``-``, ``*``, ``•``.
_MARKER = re.compile(r"^\s*(?:\d{1,3}[.)]\s*|[-*\u2022]\s+)")


def parse_uses(text: str) -> list[str]:
    """The distinct uses an answer lists, in order.

    When some lines are list items (numbered or bulleted), only those count, so that a
    preamble such as "Here are five uses:" is not a use; otherwise every non-blank line is
    one use. Markdown emphasis and trailing punctuation are removed; two uses that differ
    only in case, spacing or trailing punctuation count once.

    Examples
    --------
    >>> parse_uses("Here are some ideas:\\n1. A plant pot.\\n2) a plant pot\\n- **Bird bath**: fill it")
    ['A plant pot', 'Bird bath: fill it']
    >>> parse_uses("doorstop\\n\\nbook end")
    ['doorstop', 'book end']
    >>> parse_uses("   ")
    []
    """
    lines = [line for line in text.splitlines() if line.strip()]
    listed = [_MARKER.sub("", line) for line in lines if _MARKER.match(line)]
    uses: list[str] = []
    seen: set[str] = set()
    for item in listed or lines:
        use = " ".join(item.replace("**", "").replace("__", "").split()).strip(" .;,")
        if use and use.lower() not in seen:
            seen.add(use.lower())
            uses.append(use)
    return uses


def originality(object_vector: ArrayLike, use_vectors: ArrayLike) -> float:
    """Mean cosine distance between an object and each of its uses, in ``[0, 2]``.

    Parameters
    ----------
    object_vector : array-like of shape (d,)
        The embedding of the object (e.g. "a wooden spoon"), non-zero.
    use_vectors : array-like of shape (n, d)
        The embeddings of its ``n >= 1`` uses, non-zero, one per row.

    Raises
    ------
    ValueError
        If there is no use, the shapes do not match, or a vector is zero.

    Examples
    --------
    Hand calculation: distances 0 (same direction), 1 (orthogonal) and
    ``1 - 1/sqrt(2) = 0.2929``; their mean is ``1.2929 / 3 = 0.4310``.

    >>> round(originality([1.0, 0.0], [[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), 4)
    0.431
    >>> originality([1.0, 0.0], [[-3.0, 0.0]])
    2.0
    """
    obj = np.asarray(object_vector, dtype=np.float64)
    uses = np.asarray(use_vectors, dtype=np.float64)
    if obj.ndim != 1:
        raise ValueError(f"object_vector must be one vector (shape (d,)), got shape {obj.shape}.")
    if uses.ndim != 2 or uses.shape[0] == 0 or uses.shape[1] != obj.shape[0]:
        raise ValueError(
            f"use_vectors must hold at least one vector of length {obj.shape[0]} per row, "
            f"got shape {uses.shape}."
        )
    return float(paired_cosine_distances(np.broadcast_to(obj, uses.shape), uses).mean())
