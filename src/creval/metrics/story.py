"""Story metrics of Bellemare-Pepin et al. (2024): Lempel-Ziv complexity and divergent
semantic integration (DSI).

**Lempel-Ziv complexity** (:func:`lempel_ziv_complexity`): the number of new phrases met when
a sequence is read left to right, each phrase the shortest piece not seen before (Lempel and
Ziv 1976, counted with Kaspar and Schuster's 1987 algorithm). For text the sequence is the
characters (their code points). Normalised, the count is divided by ``n / log_b(n)``, where
``n`` is the length and ``b`` the number of distinct characters (at least 2): the count a random
sequence of that alphabet approaches. This is what ``antropy.lziv_complexity(text,
normalize=True)`` computes, the function the authors used on the raw story text.

**Divergent semantic integration** (:func:`divergent_semantic_integration`, Johnson et al.
2023): the mean cosine distance ``1 - cos`` over all pairs of a story's word-token vectors
(the authors: bert-large-uncased, layers 6 and 7 of each token, both kept as two vectors).
It takes the vectors, so any embedding fits; creval does not ship BERT.

>>> lempel_ziv_complexity("0001101001000101", normalize=False)
6
>>> round(divergent_semantic_integration([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), 4)
0.6667
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: What every output of Lempel-Ziv complexity says about it (docs/benchmarks/dat.md, computed by
#: :func:`creval.benchmarks.dat.stories.story_validity` from the staged data).
LZIV_VALIDITY = ("Lempel-Ziv does not track people: on 179 human flash fictions rated by 5 people "
                 "it correlates r = -0.34 [-0.46, -0.20] with their mean rating, and 0.07 "
                 "[-0.08, 0.21] with length held fixed (docs/benchmarks/dat.md).")

__all__ = ["LZIV_VALIDITY", "PartialCorrelation", "divergent_semantic_integration", "lempel_ziv_complexity",
           "partial_pearson"]


def _lz_count(s: Sequence[int]) -> int:
    """Kaspar and Schuster's (1987) count of Lempel-Ziv phrases of ``s`` (length >= 2)."""
    u, v, w, v_max = 0, 1, 1, 1
    n = len(s)
    complexity = 1
    while True:
        if s[u + v - 1] == s[w + v - 1]:
            v += 1
            if w + v >= n:
                complexity += 1
                break
        else:
            v_max = max(v, v_max)
            u += 1
            if u == w:
                complexity += 1
                w += v_max
                if w >= n:
                    break
                u, v, v_max = 0, 1, 1
            else:
                v = 1
    return complexity


def lempel_ziv_complexity(sequence: str | Sequence[Any], *, normalize: bool = True) -> float:
    """The Lempel-Ziv complexity of ``sequence`` (a text: its characters; or a sequence of
    hashable symbols), normalised by ``n / log_b(n)`` unless ``normalize=False`` (then the
    phrase count, an int).

    Parameters
    ----------
    sequence : str or sequence
        At least 2 symbols.
    normalize : bool
        Divide by ``n / log_b(n)``, ``b`` the number of distinct symbols (at least 2).

    Examples
    --------
    Kaspar and Schuster's example ``0001101001000101`` parses as ``0 | 001 | 10 | 100 | 1000 |
    101``: 6 phrases. Normalised: 16 symbols of 2 kinds, ``6 / (16 / log2 16) = 1.5``.

    >>> lempel_ziv_complexity("0001101001000101", normalize=False)
    6
    >>> lempel_ziv_complexity("0001101001000101")
    1.5
    >>> lempel_ziv_complexity("aaaa", normalize=False)
    2
    """
    if isinstance(sequence, bytes) or not isinstance(sequence, (str, Sequence, np.ndarray)):
        raise ValueError(f"sequence must be a text or a sequence of symbols, got "
                         f"{type(sequence).__name__}.")
    if len(sequence) < 2:
        raise ValueError(f"sequence must hold at least 2 symbols, got {len(sequence)}.")
    if isinstance(sequence, str):
        symbols = [ord(c) for c in sequence]
    else:
        codes: dict[Any, int] = {}
        symbols = [codes.setdefault(x, len(codes)) for x in sequence]
    count = _lz_count(symbols)
    if not normalize:
        return count
    n = len(symbols)
    base = max(len(set(symbols)), 2)
    return count / (n / math.log(n, base))


def divergent_semantic_integration(vectors: Any) -> float:
    """Mean cosine distance (``1 - cos``) over all pairs of rows of ``vectors`` (one row per
    token vector of a story; Johnson et al. 2023).

    Examples
    --------
    Rows ``a, b, a`` with ``a`` orthogonal to ``b``: pairs (a, b), (a, a), (b, a) are at
    distances 1, 0, 1, so DSI is 2/3.

    >>> round(divergent_semantic_integration([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]), 12)
    0.666666666667
    """
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] < 2:
        raise ValueError(f"vectors must be a 2-D array of at least 2 rows, got shape {matrix.shape}.")
    if not np.isfinite(matrix).all():
        raise ValueError("vectors must be finite.")
    norms = np.linalg.norm(matrix, axis=1)
    if (norms == 0).any():
        raise ValueError(f"vector {int(np.argmin(norms))} is zero: its cosine is undefined.")
    unit = matrix / norms[:, None]
    similarity = unit @ unit.T
    rows, cols = np.tril_indices(matrix.shape[0], k=-1)
    return float(np.mean(1.0 - similarity[rows, cols]))


@dataclass(frozen=True)
class PartialCorrelation:
    """Pearson's ``r`` of ``x`` and ``y`` with ``control`` held fixed, its Fisher interval
    (standard error ``1 / sqrt(n - 4)``: one variable controlled) and ``n``."""

    r: float
    low: float
    high: float
    n: int
    confidence: float


def partial_pearson(x: Sequence[float], y: Sequence[float], control: Sequence[float], *,
                    confidence: float = 0.95) -> PartialCorrelation:
    """The correlation of ``x`` and ``y`` once the linear part of ``control`` is removed from
    both (for a story metric and raters' scores: with the story's length held fixed), from the
    three pairwise correlations: ``(r_xy - r_xc r_yc) / sqrt((1 - r_xc^2)(1 - r_yc^2))``.

    Examples
    --------
    ``y`` follows ``control`` exactly and ``x`` only through it: nothing is left.

    >>> p = partial_pearson([1.0, 2.0, 3.0, 5.0, 4.0], [2.0, 4.0, 6.0, 8.0, 10.0],
    ...                     [1.0, 2.0, 3.0, 4.0, 5.0])
    >>> round(p.r, 6), p.n
    (0.0, 5)
    """
    from scipy.stats import norm

    data = np.asarray([x, y, control], dtype=np.float64)
    if data.ndim != 2 or data.shape[1] < 4:
        raise ValueError("x, y and control must be equal-length sequences of at least 4 numbers.")
    if not np.isfinite(data).all():
        raise ValueError("x, y and control must be finite.")
    if (data.std(axis=1) == 0).any():
        raise ValueError("x, y and control must each vary: a constant has no correlation.")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}.")
    c = np.atleast_2d(np.asarray(np.corrcoef(data), dtype=np.float64))
    r_xy, r_xc, r_yc = c[0, 1], c[0, 2], c[1, 2]
    r = float((r_xy - r_xc * r_yc) / math.sqrt((1 - r_xc**2) * (1 - r_yc**2)))
    n = data.shape[1]
    z, half = math.atanh(max(min(r, 1 - 1e-12), -1 + 1e-12)), norm.ppf(0.5 + confidence / 2)
    se = 1 / math.sqrt(n - 4) if n > 4 else math.inf
    return PartialCorrelation(r, math.tanh(z - half * se), math.tanh(z + half * se), n, confidence)
