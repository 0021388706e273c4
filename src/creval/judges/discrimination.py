"""Does a judge discriminate? Three signs that its scores measure nothing about the answers.

A judge is an instrument: if it gives every answer the same score, or scores the criteria in
the order it was asked them (1, 2, 3, 4 for fluency, flexibility, originality, elaboration,
whatever the answer), or picks the same answer position in almost every comparison, its
numbers say nothing about what it judged. Small models judging themselves do all three.
These pure functions (no I/O, no models) look at the parsed scores a scorer already has and
return one :class:`~creval.records.JudgeCheck` per sign found; scorers put them in
``Scores.judge_checks`` and the reports show them near the top.

- :func:`no_variance`: a criterion with the same score on every parsed judgement (at least
  ``min_items`` of them): its standard deviation is 0.
- :func:`follows_criterion_order`: on at least ``share`` of the judgements the scores
  strictly increase (or strictly decrease) along the criteria in the order they were asked
  (at least three criteria: with two, "a < b" on most items may be a real difference).
- :func:`position_bias`: one answer position chosen in at least ``share`` of the decisions
  *and* more often than chance allows (a one-sided binomial test against a uniform choice,
  ``p < alpha``), so a handful of decisions never triggers it.
- :func:`check_rubric`: the first two, for a rubric judge's rows of scores.

Unparsed judgements (``None``) are left out: they are counted as parse failures elsewhere.

>>> rows = [[1, 2, 3, 4]] * 35
>>> [(c.check, c.items) for c in check_rubric(rows, ["fluency", "flexibility", "originality",
...                                                   "elaboration"], judge="rubric judge (jcq)")]
... # doctest: +NORMALIZE_WHITESPACE
[('no_variance', 35), ('no_variance', 35), ('no_variance', 35), ('no_variance', 35),
 ('criterion_order', 35)]
>>> check_rubric([[4, 3, 2, 5], [2, 2, 1, 3], [5, 4, 4, 4], [3, 1, 2, 2], [4, 4, 3, 5]],
...              ["fluency", "flexibility", "originality", "elaboration"])
[]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from creval.records import JudgeCheck

__all__ = ["check_rubric", "follows_criterion_order", "no_variance", "position_bias"]

#: What a report tells its reader to do when a judge check fired.
ADVICE = ("The judge's scores do not tell the answers apart; use a stronger judge: "
          "--judge SPEC or --preset paper.")


def _number(value: float) -> str:
    return f"{value:g}"


def _check_settings(min_items: int, share: float | None = None) -> None:
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 1:
        raise ValueError(f"min_items must be a positive integer, got {min_items!r}.")
    if share is not None and not 0.5 < share <= 1:
        raise ValueError(f"share must be in (0.5, 1], got {share!r}.")


def _parsed(values: Sequence[float | None], what: str) -> list[float]:
    out = []
    for i, value in enumerate(values):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"{what}[{i}] must be a finite number or None, got {value!r}.")
        out.append(float(value))
    return out


def no_variance(
    scores: Mapping[str, Sequence[float | None]], *, min_items: int = 5, judge: str = "judge",
) -> list[JudgeCheck]:
    """One check per criterion whose parsed scores are all equal, over ``min_items`` or more.

    ``scores`` maps each criterion to its score per judgement (None: did not parse).
    Booleans count as 0 and 1 (a binary verdict that is always YES has no variance).

    >>> no_variance({"fluency": [1] * 35, "originality": [3, 4, 3, 2, 5]}, judge="rubric judge")
    ... # doctest: +NORMALIZE_WHITESPACE
    [JudgeCheck(judge='rubric judge', check='no_variance',
                detail='fluency was 1 on all 35 judgements (sd 0)', items=35)]
    >>> no_variance({"fluency": [2, 2, None, 2]})  # 3 parsed: too few to say
    []
    """
    _check_settings(min_items)
    out = []
    for criterion, values in scores.items():
        if isinstance(values, str):
            raise ValueError(f"scores[{criterion!r}] must be a sequence of numbers, got a string.")
        numbers = _parsed([float(v) if isinstance(v, bool) else v for v in values],
                          f"scores[{criterion!r}]")
        if len(numbers) >= min_items and len(set(numbers)) == 1:
            out.append(JudgeCheck(
                judge=judge, check="no_variance", items=len(numbers),
                detail=f"{criterion} was {_number(numbers[0])} on all {len(numbers)} "
                       "judgements (sd 0)"))
    return out


def _direction(row: list[float]) -> int:
    """1 if strictly increasing, -1 if strictly decreasing, else 0."""
    steps = [b - a for a, b in zip(row, row[1:], strict=False)]
    if all(s > 0 for s in steps):
        return 1
    if all(s < 0 for s in steps):
        return -1
    return 0


def follows_criterion_order(
    rows: Sequence[Sequence[float | None]], criteria: Sequence[str], *, min_items: int = 5,
    share: float = 0.9, judge: str = "judge",
) -> list[JudgeCheck]:
    """A check when, on at least ``share`` of the complete rows (``min_items`` or more), the
    scores strictly increase, or strictly decrease, along ``criteria`` in the order asked.

    Each row holds one judgement's scores in the order of ``criteria``; a row with a None is
    left out. Rows whose scores are all equal are neither increasing nor decreasing (that is
    :func:`no_variance`'s sign). Needs at least three criteria: with two, one criterion
    scoring above the other on most items may be a real difference.

    >>> rows = [[1, 2, 3, 4]] * 34 + [[2, 2, 3, 3]]
    >>> (check,) = follows_criterion_order(rows, ["fluency", "flexibility", "originality",
    ...                                           "elaboration"], judge="rubric judge")
    >>> check.detail
    'scores rose with the order the criteria were asked (fluency, flexibility, originality, elaboration) on 34 of 35 judgements (most often 1, 2, 3, 4)'
    >>> follows_criterion_order([[3, 2, 4], [1, 2, 3], [5, 4, 4], [2, 3, 4], [1, 1, 1]],
    ...                         ["a", "b", "c"])
    []
    """
    _check_settings(min_items, share)
    names = list(criteria)
    if isinstance(criteria, str) or len(set(names)) != len(names):
        raise ValueError(f"criteria must be a sequence of distinct names, got {criteria!r}.")
    if len(names) < 3:
        return []
    complete = []
    for i, row in enumerate(rows):
        if len(row) != len(names):
            raise ValueError(f"rows[{i}] has {len(row)} scores for {len(names)} criteria.")
        numbers = _parsed(row, f"rows[{i}]")
        if len(numbers) == len(names):
            complete.append(numbers)
    if len(complete) < min_items:
        return []
    directions = Counter(_direction(row) for row in complete)
    sign, count = max(((1, directions[1]), (-1, directions[-1])), key=lambda pair: pair[1])
    if count == 0 or count < share * len(complete):
        return []
    pattern, _ = Counter(tuple(r) for r in complete if _direction(r) == sign).most_common(1)[0]
    way = "rose" if sign == 1 else "fell"
    return [JudgeCheck(
        judge=judge, check="criterion_order", items=len(complete),
        detail=f"scores {way} with the order the criteria were asked ({', '.join(names)}) on "
               f"{count} of {len(complete)} judgements (most often "
               f"{', '.join(_number(v) for v in pattern)})")]


def position_bias(
    choices: Sequence[int | None], n_positions: int, *, min_items: int = 10, share: float = 0.9,
    alpha: float = 0.01, judge: str = "judge",
) -> list[JudgeCheck]:
    """A check when one answer position is chosen in at least ``share`` of the decisions and a
    one-sided binomial test rejects a uniform choice among ``n_positions`` at ``alpha``.

    ``choices`` holds the 0-based position the judge picked per decision (None: did not
    parse). Use it only where the answer's *position* is what the judge picks (a pairwise or
    choice judge). The rule needs both: ``share`` says the bias is large, the test
    (:func:`scipy.stats.binomtest`, ``alternative="greater"``) says it is not a small
    sample's accident; with 10 pairwise decisions, 9 firsts (p = 0.011) are not flagged
    and 10 (p = 0.001) are.

    >>> position_bias([0] * 20, 2, judge="novelty judge")[0].detail
    'position 1 of 2 was chosen in 20 of 20 decisions (binomial p = 9.5e-07 against a uniform choice)'
    >>> position_bias([0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 2)  # 9 of 10: p = 0.011, not flagged
    []
    >>> position_bias([0, 1] * 20, 2)
    []
    """
    _check_settings(min_items, share)
    if isinstance(n_positions, bool) or not isinstance(n_positions, int) or n_positions < 2:
        raise ValueError(f"n_positions must be an integer >= 2, got {n_positions!r}.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    picked = []
    for i, choice in enumerate(choices):
        if choice is None:
            continue
        if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < n_positions:
            raise ValueError(f"choices[{i}] must be a position 0..{n_positions - 1} or None, "
                             f"got {choice!r}.")
        picked.append(choice)
    if len(picked) < min_items:
        return []
    position, count = Counter(picked).most_common(1)[0]
    if count < share * len(picked):
        return []
    from scipy.stats import binomtest

    p = binomtest(count, len(picked), 1 / n_positions, alternative="greater").pvalue
    if p >= alpha:
        return []
    return [JudgeCheck(
        judge=judge, check="position_bias", items=len(picked),
        detail=f"position {position + 1} of {n_positions} was chosen in {count} of "
               f"{len(picked)} decisions (binomial p = {p:.2g} against a uniform choice)")]


def check_rubric(
    rows: Sequence[Sequence[float | None]], criteria: Sequence[str], *, min_items: int = 5,
    share: float = 0.9, judge: str = "judge",
) -> list[JudgeCheck]:
    """:func:`no_variance` per criterion, then :func:`follows_criterion_order`, for a rubric
    judge's rows (one judgement's scores per row, in the order of ``criteria``).

    >>> [c.detail for c in check_rubric([[3, 1, 4], [3, 5, 2], [3, 2, 2], [3, 4, 4], [3, 3, 1]],
    ...                                 ["fluency", "originality", "elaboration"])]
    ['fluency was 3 on all 5 judgements (sd 0)']
    """
    names = list(criteria)
    for i, row in enumerate(rows):
        if len(row) != len(names):
            raise ValueError(f"rows[{i}] has {len(row)} scores for {len(names)} criteria.")
    columns = {name: [row[j] for row in rows] for j, name in enumerate(names)}
    return (no_variance(columns, min_items=min_items, judge=judge)
            + follows_criterion_order(rows, names, min_items=min_items, share=share, judge=judge))
