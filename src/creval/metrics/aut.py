"""The Alternative Uses Task's classic scores of one answer (Guilford 1967; Torrance):
fluency, flexibility and elaboration, beside originality (scored per use elsewhere).

* **fluency**: the number of valid, distinct uses (the count; parsing is the benchmark's);
* **flexibility**: the number of *categories* the uses fall into. People's AUT answers are
  coded into categories by raters; here the categories are clusters of the uses' embeddings:
  average-linkage agglomerative clustering on cosine distance, cut at ``threshold`` (two uses
  whose clusters are on average closer than it share a category), the automated flexibility
  of e.g. Hass (2017) and Beaty and Johnson (2021, SemDis) with another embedder. An integer
  in ``1..n`` (0 for no use); it depends on the embedder and the threshold, so compare only
  runs with the same ones.
* **elaboration**: the mean number of words per use (the detail added to the bare idea; the
  word count is the usual automated elaboration, e.g. Dumas, Organisciak and Doherty 2021
  take its log). A float >= 1 for non-empty uses.

Worked example: three uses whose vectors are two near-duplicates (cosine distance about
0.005) and one orthogonal to both (distance 1) form two categories at threshold 0.5.

>>> flexibility([[1.0, 0.0], [0.995, 0.1], [0.0, 1.0]], threshold=0.5)
2
>>> elaboration(["a doorstop", "build a tiny bookshelf for a dollhouse"])
4.5
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["elaboration", "flexibility"]


def flexibility(use_vectors: ArrayLike, *, threshold: float = 0.5) -> int:
    """The number of categories among the uses: clusters of their vectors (average linkage,
    cosine distance, cut at ``threshold`` in ``(0, 2)``).

    >>> flexibility([[1.0, 0.0]] * 4)
    1
    >>> flexibility(np.eye(3))  # three unrelated uses
    3
    >>> flexibility(np.zeros((0, 4)))
    0
    """
    if not 0.0 < threshold < 2.0:
        raise ValueError(f"threshold must be a cosine distance in (0, 2), got {threshold!r}.")
    vectors = np.asarray(use_vectors, dtype=np.float64)
    if vectors.ndim != 2:
        raise ValueError(f"use_vectors must be a matrix (one row per use), got shape {vectors.shape}.")
    if not np.isfinite(vectors).all():
        raise ValueError("use_vectors must hold finite numbers.")
    norms = np.linalg.norm(vectors, axis=1)
    if (norms == 0).any():
        raise ValueError(f"use_vectors row {int(np.flatnonzero(norms == 0)[0])} is a zero vector.")
    if len(vectors) < 2:
        return len(vectors)
    from scipy.cluster.hierarchy import fcluster, linkage
    from scipy.spatial.distance import pdist

    distances = np.clip(pdist(vectors, metric="cosine"), 0.0, 2.0)
    tree = linkage(distances, method="average")
    return int(len(set(fcluster(tree, t=threshold, criterion="distance").tolist())))


def elaboration(uses: Sequence[str]) -> float | None:
    """The mean number of words (whitespace-separated) per use; None for no use.

    >>> elaboration([]) is None
    True
    """
    if isinstance(uses, str):
        raise ValueError("uses must be a sequence of texts, got one string.")
    counts = [len(str(u).split()) for u in uses]
    return sum(counts) / len(counts) if counts else None
