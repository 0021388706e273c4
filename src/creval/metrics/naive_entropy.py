"""Naive (surface-form) entropy of sampled texts: the ablation baseline of semantic entropy.

Seed 001 (appendix C.9.1, Table 15) compares semantic entropy with a *naive* entropy that
does not cluster by meaning. The paper does not define it further; Figure 1 shows it as the
entropy of the raw sample probabilities. Here it is the same estimator as semantic entropy
with the meaning classes replaced by exact-text classes: texts that are character-for-character
equal (after stripping surrounding white space) share a class, every other text is its own
class. So the two numbers differ only in the clustering, which is what the ablation isolates.
:func:`predictive_entropy` is the other common baseline (Kuhn et al. 2023): the Monte-Carlo
estimate ``-mean(log P(s|x))`` over the samples.

>>> texts = ["Use the rope.", "Use the rope.", "Use a rope.", "Burn it."]
>>> exact_classes(texts)
[0, 0, 1, 2]
>>> round(naive_entropy(texts), 4)  # discrete: sizes 2, 1, 1 of 4
1.0397
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from creval.metrics.semantic_entropy import discrete_semantic_entropy, rao_blackwell_entropy

__all__ = ["exact_classes", "naive_entropy", "predictive_entropy"]


def exact_classes(texts: Sequence[str]) -> list[int]:
    """A class id per text: equal texts (surrounding white space ignored) share one.

    >>> exact_classes(["a", " a ", "b"])
    [0, 0, 1]
    """
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise ValueError("texts must be a sequence of strings.")
    ids: dict[str, int] = {}
    out = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"texts[{i}] must be a string, got {text!r}.")
        out.append(ids.setdefault(text.strip(), len(ids)))
    return out


def naive_entropy(texts: Sequence[str], sequence_logprobs: Sequence[float] | None = None) -> float:
    """Entropy (nats) over exact-text classes: with ``sequence_logprobs`` (one per text, the
    mean or the sum of its token log-probabilities) the Rao-Blackwellised estimate, without
    them the class sizes.

    Hand check: texts a, a, b with mean log-probabilities -1, -1, -1 give P(a) = 2/3,
    P(b) = 1/3 and H = -(2/3 ln 2/3 + 1/3 ln 1/3) = 0.6365.

    >>> round(naive_entropy(["a", "a", "b"], [-1.0, -1.0, -1.0]), 4)
    0.6365
    >>> naive_entropy(["same", "same"])
    0.0
    """
    ids = exact_classes(texts)
    if sequence_logprobs is None:
        return discrete_semantic_entropy(ids)
    return rao_blackwell_entropy(ids, sequence_logprobs)


def predictive_entropy(sequence_logprobs: Sequence[float]) -> float:
    """The Monte-Carlo predictive entropy ``-mean(log P(s|x))`` of the samples.

    >>> predictive_entropy([-1.0, -2.0, -3.0])
    2.0
    """
    values = list(sequence_logprobs)
    if not values:
        raise ValueError("predictive_entropy needs at least one sample.")
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"sequence_logprobs[{i}] must be a finite number, got {v!r}.")
    return -math.fsum(values) / len(values) + 0.0
