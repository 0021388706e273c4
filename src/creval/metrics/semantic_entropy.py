"""Semantic entropy of a set of sampled texts clustered into meaning classes.

All entropies use the natural logarithm (nats): with ``n`` samples the largest possible value
is ``ln n`` (``ln 10 = 2.303`` for the paper's 10 samples per step), reached when every
sample is its own class; one class gives 0.

Three estimators of the class distribution ``P(c)`` (the step-wise creativity paper, Sec. 3.2
and Appendix C.1; Farquhar et al. 2024):

* ``"length_normalised"`` (the paper's default): a sample's log-probability is the *mean* of
  its token log-probabilities (Eq. 5); ``P(c)`` is the sum of ``exp`` of it over the class's
  members, normalised over the classes (Eq. 2, 4: the Rao-Blackwellised estimate). This is
  also Farquhar et al.'s semantic entropy (length-normalised likelihoods, summed per class
  and normalised).
* ``"probability_weighted"``: the same with the *sum* of token log-probabilities, the joint
  probability of the sequence (Eq. 1). The paper's research code computes this one (it also
  drops token log-probabilities at or below -1000).
* ``"discrete"``: ``P(c) = |c| / n`` from class sizes alone; for backends that give no
  log-probabilities.

Then ``H = -sum_c P(c) ln P(c)`` (Eq. 3, 4). A solution's value is an aggregate of its
per-step values: the mean by default (Appendix C.9.2), or the min or the max.

>>> ids = [0, 0, 1, 2]
>>> round(semantic_entropy(ids, estimator="discrete"), 4)  # -(0.5 ln 0.5 + 2 * 0.25 ln 0.25)
1.0397
>>> lp = [[-0.1, -0.3], [-0.2], [-1.0, -3.0], [-2.0]]
>>> round(semantic_entropy(ids, lp), 4)                     # means -0.2, -0.2, -2.0, -2.0
0.5066
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "AGGREGATES",
    "ESTIMATORS",
    "SolutionEntropy",
    "aggregate_steps",
    "class_probabilities",
    "discrete_semantic_entropy",
    "rao_blackwell_entropy",
    "semantic_entropy",
    "sequence_logprob",
    "solution_semantic_entropy",
    "step_semantic_entropies",
]

Estimator = Literal["length_normalised", "probability_weighted", "discrete"]
ESTIMATORS: tuple[str, ...] = ("length_normalised", "probability_weighted", "discrete")
AGGREGATES: tuple[str, ...] = ("mean", "min", "max")
#: Token log-probabilities above this are rejected as not log-probabilities (rounding in a
#: log-softmax can give tiny positive values; probabilities or logits are far larger).
_POSITIVE_TOLERANCE = 1e-3


# -- validation -------------------------------------------------------------------------------
def _check_class_ids(class_ids: Sequence[int], where: str = "class_ids") -> list[int]:
    if isinstance(class_ids, (str, bytes)) or not isinstance(class_ids, Sequence):
        raise ValueError(f"{where} must be a sequence of integers, got {type(class_ids).__name__}.")
    if len(class_ids) == 0:
        raise ValueError(f"{where} is empty: semantic entropy needs at least one sample.")
    out = []
    for i, c in enumerate(class_ids):
        if isinstance(c, bool) or not isinstance(c, int):
            raise ValueError(f"{where}[{i}] must be an integer class id, got {c!r}.")
        out.append(int(c))
    return out


def _check_logprob(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{where} must be a number, got {value!r}.")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{where} is {v}: log-probabilities must be finite.")
    if v > _POSITIVE_TOLERANCE:
        raise ValueError(
            f"{where} is {v} > 0: pass log-probabilities (natural log), not probabilities or logits."
        )
    return v


def _check_estimator(estimator: str) -> Estimator:
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {', '.join(ESTIMATORS)}, got {estimator!r}.")
    return estimator  # type: ignore[return-value]


# -- building blocks --------------------------------------------------------------------------
def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


def _entropy(probabilities: Sequence[float]) -> float:
    h = -math.fsum(p * math.log(p) for p in probabilities if p > 0.0)
    return max(h, 0.0) + 0.0  # no -0.0 or rounding below zero


def sequence_logprob(token_logprobs: Sequence[float], *, length_normalised: bool) -> float:
    """A sample's log-probability from its token log-probabilities: the mean
    (``length_normalised=True``, Eq. 5) or the sum (the joint probability, Eq. 1).

    >>> sequence_logprob([-1.0, -2.0, -3.0], length_normalised=True)
    -2.0
    >>> sequence_logprob([-1.0, -2.0, -3.0], length_normalised=False)
    -6.0
    """
    if isinstance(token_logprobs, (str, bytes)) or not isinstance(token_logprobs, Sequence):
        raise ValueError("token_logprobs must be a sequence of numbers.")
    if len(token_logprobs) == 0:
        raise ValueError("A sample has no token log-probabilities: its probability is undefined.")
    values = [_check_logprob(v, f"token log-probability {i}") for i, v in enumerate(token_logprobs)]
    total = math.fsum(values)
    return total / len(values) if length_normalised else total


def discrete_semantic_entropy(class_ids: Sequence[int]) -> float:
    """Entropy of the class sizes: ``P(c) = |c| / n``.

    >>> discrete_semantic_entropy([3, 3, 3])
    0.0
    >>> round(discrete_semantic_entropy([0, 1]), 4)  # ln 2
    0.6931
    """
    ids = _check_class_ids(class_ids)
    counts: dict[int, int] = {}
    for c in ids:
        counts[c] = counts.get(c, 0) + 1
    return _entropy([k / len(ids) for k in counts.values()])


def class_probabilities(
    class_ids: Sequence[int], sequence_logprobs: Sequence[float]
) -> dict[int, float]:
    """``P(c)``: each class's summed sample probability, normalised over the classes (Eq. 2, 4).

    Computed with log-sum-exp, so very negative log-probabilities do not underflow.

    >>> {c: round(p, 4) for c, p in class_probabilities([0, 0, 1], [-1.0, -1.0, -1.0]).items()}
    {0: 0.6667, 1: 0.3333}
    """
    ids = _check_class_ids(class_ids)
    if isinstance(sequence_logprobs, (str, bytes)) or not isinstance(sequence_logprobs, Sequence):
        raise ValueError("sequence_logprobs must be a sequence of numbers.")
    if len(sequence_logprobs) != len(ids):
        raise ValueError(
            f"class_ids has {len(ids)} samples but sequence_logprobs has {len(sequence_logprobs)}."
        )
    logps = [_check_logprob(v, f"sequence_logprobs[{i}]") for i, v in enumerate(sequence_logprobs)]
    members: dict[int, list[float]] = {}
    for c, lp in zip(ids, logps, strict=True):
        members.setdefault(c, []).append(lp)
    class_log = {c: _logsumexp(v) for c, v in members.items()}
    total = _logsumexp(list(class_log.values()))
    return {c: math.exp(v - total) for c, v in class_log.items()}


def rao_blackwell_entropy(class_ids: Sequence[int], sequence_logprobs: Sequence[float]) -> float:
    """Entropy of :func:`class_probabilities` (the Rao-Blackwellised estimate, Eq. 4).

    >>> round(rao_blackwell_entropy([0, 1], [-0.5, -0.5]), 4)  # two equally likely classes
    0.6931
    """
    return _entropy(list(class_probabilities(class_ids, sequence_logprobs).values()))


def semantic_entropy(
    class_ids: Sequence[int],
    token_logprobs: Sequence[Sequence[float]] | None = None,
    *,
    estimator: str = "length_normalised",
) -> float:
    """Semantic entropy (nats) of one set of samples (one step).

    Parameters
    ----------
    class_ids : the class of each sample (e.g. ``partition(...).class_ids``).
    token_logprobs : for each sample, its tokens' log-probabilities (natural log). Needed by
        ``length_normalised`` and ``probability_weighted``; ``discrete`` ignores it.
    estimator : ``"length_normalised"`` (default, the paper's), ``"probability_weighted"``
        or ``"discrete"`` (see the module docstring).

    Examples
    --------
    Classes {0, 1} and {2}; token log-probabilities [-1, -1], [-2], [-3, -1]:

    * probability-weighted: sums -2, -2, -4, so P(c0) = 2e^-2 / (2e^-2 + e^-4) = 0.9366;
    * length-normalised: means -1, -2, -2, so P(c0) = (e^-1 + e^-2) / (e^-1 + 2e^-2) = 0.7881.

    >>> lp = [[-1.0, -1.0], [-2.0], [-3.0, -1.0]]
    >>> round(semantic_entropy([0, 0, 1], lp, estimator="probability_weighted"), 4)
    0.2362
    >>> round(semantic_entropy([0, 0, 1], lp), 4)
    0.5165
    >>> semantic_entropy([0, 1], [[-1.0]])
    Traceback (most recent call last):
    ...
    ValueError: class_ids has 2 samples but token_logprobs has 1.
    """
    kind = _check_estimator(estimator)
    ids = _check_class_ids(class_ids)
    if token_logprobs is not None and len(token_logprobs) != len(ids):
        raise ValueError(
            f"class_ids has {len(ids)} samples but token_logprobs has {len(token_logprobs)}."
        )
    if kind == "discrete":
        return discrete_semantic_entropy(ids)
    if token_logprobs is None:
        raise ValueError(
            f"The {kind} estimator needs token_logprobs; without log-probabilities use "
            "estimator='discrete'."
        )
    normalise = kind == "length_normalised"
    seq = []
    for i, tokens in enumerate(token_logprobs):
        try:
            seq.append(sequence_logprob(tokens, length_normalised=normalise))
        except ValueError as exc:
            raise ValueError(f"Sample {i}: {exc}") from None
    return rao_blackwell_entropy(ids, seq)


# -- steps and solutions ----------------------------------------------------------------------
@dataclass(frozen=True)
class SolutionEntropy:
    """A solution's semantic entropy: ``value`` aggregates ``per_step`` with ``aggregate``."""

    value: float
    per_step: tuple[float, ...]
    estimator: str
    aggregate: str


def step_semantic_entropies(
    steps_class_ids: Sequence[Sequence[int]],
    steps_token_logprobs: Sequence[Sequence[Sequence[float]]] | None = None,
    *,
    estimator: str = "length_normalised",
) -> tuple[float, ...]:
    """:func:`semantic_entropy` of each step of one solution.

    >>> step_semantic_entropies([[0, 0], [0, 1]], estimator="discrete")
    (0.0, 0.6931471805599453)
    """
    if isinstance(steps_class_ids, (str, bytes)) or not isinstance(steps_class_ids, Sequence):
        raise ValueError("steps_class_ids must be a sequence of per-step class ids.")
    if steps_token_logprobs is not None and len(steps_token_logprobs) != len(steps_class_ids):
        raise ValueError(
            f"steps_class_ids has {len(steps_class_ids)} steps but steps_token_logprobs has "
            f"{len(steps_token_logprobs)}."
        )
    out = []
    for k, ids in enumerate(steps_class_ids):
        lps = None if steps_token_logprobs is None else steps_token_logprobs[k]
        try:
            out.append(semantic_entropy(ids, lps, estimator=estimator))
        except ValueError as exc:
            raise ValueError(f"Step {k}: {exc}") from None
    return tuple(out)


def aggregate_steps(values: Sequence[float], *, how: str = "mean") -> float:
    """Aggregate per-step entropies into one value: ``mean`` (default), ``min`` or ``max``.

    >>> aggregate_steps([0.0, 0.5, 1.0]), aggregate_steps([0.0, 0.5, 1.0], how="max")
    (0.5, 1.0)
    """
    if how not in AGGREGATES:
        raise ValueError(f"how must be one of {', '.join(AGGREGATES)}, got {how!r}.")
    vals = list(values)
    if not vals:
        raise ValueError("No steps to aggregate: a solution needs at least one step.")
    for i, v in enumerate(vals):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"values[{i}] must be a finite number, got {v!r}.")
    if how == "min":
        return float(min(vals))
    if how == "max":
        return float(max(vals))
    return math.fsum(vals) / len(vals)


def solution_semantic_entropy(
    steps_class_ids: Sequence[Sequence[int]],
    steps_token_logprobs: Sequence[Sequence[Sequence[float]]] | None = None,
    *,
    estimator: str = "length_normalised",
    aggregate: str = "mean",
) -> SolutionEntropy:
    """Per-step semantic entropies of one solution and their aggregate.

    >>> r = solution_semantic_entropy([[0, 0, 0], [0, 1, 2]], estimator="discrete")
    >>> round(r.value, 4), r.aggregate  # mean of 0 and ln 3
    (0.5493, 'mean')
    """
    per_step = step_semantic_entropies(steps_class_ids, steps_token_logprobs, estimator=estimator)
    return SolutionEntropy(
        value=aggregate_steps(per_step, how=aggregate),
        per_step=per_step,
        estimator=estimator,
        aggregate=aggregate,
    )
