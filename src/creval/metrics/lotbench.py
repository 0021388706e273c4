"""The LoTbench creativity score S_c (seed 003, section 5.7, Eq. 8) and its summaries.

A LoTbench game ends at the round ``t`` (1, 2, ...) at which the tested model's fill is
judged DAESO with the human response, or unsolved at the round limit. Eq. 8:

    S_c = 1 / (m n) * sum_{samples j} sum_{repeats i} beta * exp(-alpha * t_ij)

with ``beta = 1.0`` and ``alpha = 0.2`` in the paper and ``m = 3`` repeats. Range 0..beta;
higher means fewer rounds. The paper does not say how an unsolved game is scored: here it
scores ``unsolved`` (default 0.0, the limit of ``beta * exp(-alpha t)`` as t grows), and
the caller must report the choice. When samples have different numbers of repeats, each
sample's games are averaged first and then the samples, which equals Eq. 8 when every
sample has ``m`` games.

Hand check: one sample solved at rounds 1 and 3 and once unsolved, another at round 10:
(e^-0.2 + e^-0.6 + 0) / 3 = 0.4558 and e^-2 = 0.1353, so S_c = 0.2956.

>>> round(creativity_score([[1, 3, None], [10]]), 4)
0.2956
>>> round_histogram([[1, 3, None], [10, 1]], max_rounds=10)
{1: 2, 3: 1, 10: 1, 'unsolved': 1}
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["creativity_score", "game_score", "human_groups", "round_histogram", "sample_scores"]


def _check_params(alpha: float, beta: float, unsolved: float) -> None:
    for name, value in (("alpha", alpha), ("beta", beta), ("unsolved", unsolved)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value!r}.")
    if alpha <= 0 or beta <= 0:
        raise ValueError(f"alpha and beta must be > 0, got alpha={alpha}, beta={beta}.")
    if unsolved < 0:
        raise ValueError(f"unsolved must be >= 0, got {unsolved}.")


def _check_round(t: object, where: str) -> int | None:
    if t is None:
        return None
    if isinstance(t, bool) or not isinstance(t, int) or t < 1:
        raise ValueError(f"{where} must be a round number >= 1 or None (unsolved), got {t!r}.")
    return t


def game_score(
    t: int | None, *, alpha: float = 0.2, beta: float = 1.0, unsolved: float = 0.0
) -> float:
    """One game's term of Eq. 8: ``beta * exp(-alpha * t)``, or ``unsolved`` for None.

    >>> round(game_score(1), 4), round(game_score(10), 4), game_score(None)
    (0.8187, 0.1353, 0.0)
    """
    _check_params(alpha, beta, unsolved)
    checked = _check_round(t, "t")
    return unsolved if checked is None else beta * math.exp(-alpha * checked)


def sample_scores(
    rounds: Sequence[Sequence[int | None]],
    *,
    alpha: float = 0.2,
    beta: float = 1.0,
    unsolved: float = 0.0,
) -> list[float]:
    """Per sample, the mean game score over its repeats (``rounds[j][i]``: sample j, repeat i).

    >>> [round(s, 4) for s in sample_scores([[5, 5], [None]])]
    [0.3679, 0.0]
    """
    _check_params(alpha, beta, unsolved)
    if isinstance(rounds, (str, bytes)) or not isinstance(rounds, Sequence) or not rounds:
        raise ValueError("rounds must be a non-empty list of per-sample lists of rounds.")
    out = []
    for j, games in enumerate(rounds):
        if isinstance(games, (str, bytes)) or not isinstance(games, Sequence) or not games:
            raise ValueError(f"rounds[{j}] must be a non-empty list of rounds (int or None).")
        terms = []
        for i, t in enumerate(games):
            checked = _check_round(t, f"rounds[{j}][{i}]")
            terms.append(unsolved if checked is None else beta * math.exp(-alpha * checked))
        out.append(sum(terms) / len(terms))
    return out


def creativity_score(
    rounds: Sequence[Sequence[int | None]],
    *,
    alpha: float = 0.2,
    beta: float = 1.0,
    unsolved: float = 0.0,
) -> float:
    """S_c of Eq. 8 over samples and repeats; ``None`` rounds are unsolved games.

    >>> round(creativity_score([[1, 1, 1]]), 4)
    0.8187
    """
    per_sample = sample_scores(rounds, alpha=alpha, beta=beta, unsolved=unsolved)
    return sum(per_sample) / len(per_sample)


def round_histogram(
    rounds: Sequence[Sequence[int | None]], *, max_rounds: int
) -> dict[int | str, int]:
    """How many games ended at each round (rounds with no game left out), and ``unsolved``.

    >>> round_histogram([[2, 2], [None]], max_rounds=5)
    {2: 2, 'unsolved': 1}
    """
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or max_rounds < 1:
        raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}.")
    counts: dict[int | str, int] = {}
    unsolved = 0
    for j, games in enumerate(rounds):
        for i, t in enumerate(games):
            checked = _check_round(t, f"rounds[{j}][{i}]")
            if checked is None:
                unsolved += 1
            elif checked > max_rounds:
                raise ValueError(f"rounds[{j}][{i}] = {checked} exceeds max_rounds = {max_rounds}.")
            else:
                counts[checked] = counts.get(checked, 0) + 1
    out: dict[int | str, int] = {t: counts[t] for t in sorted(counts)}
    out["unsolved"] = unsolved
    return out


def human_groups(scores: Sequence[float]) -> dict[str, float]:
    """Mean S_c of the low, medium and high thirds of players ranked by S_c (section 6.2).

    The players are sorted by score and cut into three groups whose sizes differ by at most
    one (the larger groups first, as ``numpy.array_split``). Hand check for 7 players with
    S_c 0.01..0.07: groups (0.01, 0.02, 0.03), (0.04, 0.05), (0.06, 0.07).

    >>> {k: round(v, 3) for k, v in human_groups([0.07, 0.01, 0.05, 0.02, 0.06, 0.03, 0.04]).items()}
    {'low': 0.02, 'medium': 0.045, 'high': 0.065}
    """
    values = []
    for i, v in enumerate(scores):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"scores[{i}] must be a finite number, got {v!r}.")
        values.append(float(v))
    if len(values) < 3:
        raise ValueError(f"Three groups need at least 3 players, got {len(values)}.")
    values.sort()
    base, extra = divmod(len(values), 3)
    sizes = [base + (1 if g < extra else 0) for g in range(3)]
    out, start = {}, 0
    for name, size in zip(("low", "medium", "high"), sizes, strict=True):
        group = values[start:start + size]
        out[name] = sum(group) / len(group)
        start += size
    return out
