"""Log-probabilities computed from llama.cpp logits rows, the way its sampler sees them.

``model_logprobs``: the model's own distribution (float32, llama-cpp-python's order);
``sampled_distribution`` / ``sampled_logprob``: the distribution actually sampled (top-p on
the untempered softmax, then temperature over the kept tokens, renormalised). Pure numpy.
"""

from __future__ import annotations

from typing import Any


def _stable_top(x: Any, count: int) -> Any:
    """The first ``count`` ids of ``np.argsort(-x, kind="stable")`` (most probable first, ties
    by id), found with a partition instead of sorting the whole vocabulary."""
    import numpy as np

    n = len(x)
    if count >= n // 8:
        return np.argsort(-x, kind="stable")[:count]
    if count <= 0:
        return np.zeros(0, dtype=np.intp)
    threshold = np.partition(x, n - count)[n - count]
    ids = np.flatnonzero(x >= threshold)  # a prefix of the stable order: the ties are all in
    return ids[np.argsort(-x[ids], kind="stable")][:count]


def _nucleus(x: Any, top_p: float, chosen: int | None) -> Any:
    """Ids of the top-p set of float32 logits ``x``, most probable first (every id when
    ``top_p >= 1``), widened to ``chosen``. Only as much of the order as needed is sorted:
    the cumulative sums of a prefix are those of the full order (they are sequential)."""
    import numpy as np

    n = len(x)
    if top_p >= 1.0:
        return np.argsort(-x, kind="stable")
    need = 1
    if chosen is not None:  # chosen's place in the stable order
        need += int(np.count_nonzero(x > x[chosen]) + np.count_nonzero(x[:chosen] == x[chosen]))
    p = np.exp(x - x.max())
    p /= np.cumsum(p, dtype=np.float32)[-1]  # llama.cpp sums in order, in float32
    count = max(need, 64)
    while True:
        order = _stable_top(x, min(count, n))
        reached = np.flatnonzero(np.cumsum(p[order], dtype=np.float32) >= np.float32(top_p))
        if len(reached) or count >= n:
            keep = int(reached[0]) + 1 if len(reached) else n
            return order[: max(keep, need)]
        count *= 8


def sampled_distribution(
    logits: Any, *, temperature: float, top_p: float, chosen: int | None = None
) -> tuple[list[int], list[float]]:
    """The tokens llama.cpp's sampler could draw from one row of logits, most probable
    first, with their log-probabilities under the distribution it drew from.

    Mirrors llama-cpp-python's chain with top-k, typical-p and min-p off: top-p on the
    untempered softmax (in float32 like llama.cpp; the token whose cumulative probability
    reaches ``top_p`` is kept), then division by ``temperature``, renormalised over the kept
    tokens. ``temperature == 0`` is greedy: the argmax (or ``chosen``) with probability 1.
    ``chosen`` is always kept: a token the sampler drew lies in the nucleus, so one found just
    outside it is a float rounding tie at the boundary and the nucleus is widened to it.

    The untempered probabilities here are 0.66, 0.24, 0.09, 0.004: the first two reach 0.9,
    and at temperature 0.5 their logits become 4 and 2:

    >>> ids, logprobs = sampled_distribution([2.0, 1.0, 0.0, -3.0], temperature=0.5, top_p=0.9)
    >>> ids, [round(v, 4) for v in logprobs]
    ([0, 1], [-0.1269, -2.1269])
    >>> sampled_distribution([2.0, 1.0, 0.0], temperature=0.0, top_p=1.0)
    ([0], [0.0])
    """
    import numpy as np

    x = np.asarray(logits, dtype=np.float32)
    if temperature == 0:
        return [int(np.argmax(x)) if chosen is None else chosen], [0.0]
    kept = _nucleus(x, top_p, chosen)
    return [int(i) for i in kept], _log_softmax(x[kept].astype(np.float64) / temperature).tolist()


def _log_softmax(z: Any) -> Any:
    import numpy as np

    z = np.asarray(z, dtype=np.float64)
    peak = z.max()
    return z - (peak + np.log(np.exp(z - peak).sum()))


def sampled_logprob(
    logits: Any, chosen: int, *, temperature: float, top_p: float, top: int = 0
) -> tuple[float, list[tuple[int, float]]]:
    """``chosen``'s log-probability under the distribution of :func:`sampled_distribution`
    and its ``top`` most probable tokens, without listing the whole vocabulary when
    ``top_p`` is 1.

    >>> value, best = sampled_logprob([2.0, 1.0, 0.0, -3.0], 1, temperature=0.5, top_p=0.9, top=1)
    >>> round(value, 4), [(i, round(v, 4)) for i, v in best]
    (-2.1269, [(0, -0.1269)])
    """
    import numpy as np

    if temperature == 0:
        return 0.0, [(chosen, 0.0)][:top]
    x = np.asarray(logits, dtype=np.float32)
    if top_p >= 1.0:  # every token is kept: no sorting but for the alternatives
        logprobs = _log_softmax(x.astype(np.float64) / temperature)
        return float(logprobs[chosen]), [(int(i), float(logprobs[i])) for i in _stable_top(x, top)]
    kept = _nucleus(x, top_p, chosen)
    logprobs = _log_softmax(x[kept].astype(np.float64) / temperature)
    value = float(logprobs[int(np.flatnonzero(kept == chosen)[0])])
    return value, [(int(i), float(v)) for i, v in zip(kept[:top], logprobs[:top], strict=False)]


def model_logprobs(rows: Any, ids: Any, *, top: int = 0) -> tuple[list[float], list[list[tuple[int, float]]]]:
    """Each row's log-softmax at its id, and (``top > 0``) the row's ``top`` most probable
    ids, computed as llama-cpp-python does (in float32; ties ordered by higher id first) but
    only for these rows and without sorting the vocabulary.

    >>> values, best = model_logprobs([[0.0, 0.0, 1.0]], [0], top=2)
    >>> [round(v, 4) for v in values], [[(i, round(v, 4)) for i, v in row] for row in best]
    ([-1.5514], [[(2, -0.5514), (1, -1.5514)]])
    """
    import numpy as np

    if len(ids) == 0:
        return [], []
    x = np.asarray(rows, dtype=np.float32)
    peak = np.amax(x, axis=1, keepdims=True)
    peak[~np.isfinite(peak)] = 0
    shifted = np.subtract(x, peak, dtype=np.float32)
    with np.errstate(divide="ignore"):
        logz = np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    rows_at = np.arange(len(ids))
    values = (shifted[rows_at, np.asarray(ids, dtype=np.intp)] - logz[:, 0]).tolist()
    if top <= 0:
        return values, [[] for _ in ids]
    logprobs = shifted - logz
    n = logprobs.shape[1]
    count = min(top, n)
    thresholds = np.partition(logprobs, n - count, axis=1)[:, n - count]
    best: list[list[tuple[int, float]]] = []
    for row, threshold in zip(logprobs, thresholds, strict=True):
        candidates = np.flatnonzero(row >= threshold)
        order = candidates[np.lexsort((-candidates, -row[candidates]))][:count]
        best.append([(int(i), float(row[i])) for i in order])
    return values, best
