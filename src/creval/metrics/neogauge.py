"""NeoGauge (seed 000, Lu et al. 2025): convergent and divergent creativity of code solutions.

At Denial-Prompting state ``t`` each problem ``i`` has a constraint set ``C_t^i`` (``t``
forbidden techniques), the model's solution ``y_t^i`` has a technique set ``T_t^i`` and a
correctness verdict, and the problem's human solutions have technique sets whose union is
``T^i`` (from ``human_solution_techniques.json``). All scores are fractions in [0, 1]
(the paper prints percentages). Over the ``n`` solutions of one state:

* Eq. 2 :func:`convergent_creativity` = mean of ``1[T ∩ C = ∅] · 1[correct]``;
* Eq. 3 :func:`divergent_creativity` = mean of ``|T \\ T^i| / |T|``, the share of the
  solution's techniques that no human solution of that problem used; every solution
  counts, correct or not, and problems are averaged with equal weight;
* Eq. 4 :func:`neogauge` = mean of ``1[T ∩ C = ∅] · 1[correct] · |T \\ T^i| / |T|``. The
  printed Eq. 4 omits the correctness factor, but the paper's text (§4, §5.3, Figure 3:
  "correct solutions that meet the constraints and also exhibit H-creativity"), its
  Table 3 (NeoGauge never above convergent) and its code all include it; so do we;
* :func:`cumulative_neogauge`: running sum of NeoGauge@0..t (Figure 4, right; the paper
  gives no formula, the curves are non-decreasing sums);
* Eq. 5 :func:`human_convergent_creativity`, Eq. 6 :func:`human_divergent_creativity`;
* :func:`pass_at_k` / :func:`pass_at_1` and :func:`constraint_following_rate` (Table 2);
* :func:`technique_shares`: how often each technique is used by a group of solutions
  (Figure 2's proportions per state and for the human solutions).

A solution whose technique detection failed has techniques ``None``: an incorrect one still
scores 0 in Eq. 2 and Eq. 4 (the correctness factor is 0 whatever its techniques), a correct
one cannot be scored there, and neither counts in Eq. 3 or constraint following
(:func:`neogauge_state` does this bookkeeping).

A solution with no detected technique has ``|T| = 0``; the paper leaves ``0/0``
undefined and the research code scores it 0 (``empty="zero"``, the default);
``empty="exclude"`` leaves it out of the divergent mean instead.

The human technique sets must be technique names. The research code took the "human
solution path" for both detection and scoring, and given ``human_solutions.json`` (code)
it silently compared techniques with the *characters* of the code, making nearly every
technique "new". Every function here rejects strings where a set of names is expected and
names that look like code.

>>> neogauge([True, True, False], [{"for loop"}, {"recursion", "set"}, {"recursion"}],
...          [set(), set(), set()], [{"for loop", "set"}] * 3)
0.16666666666666666
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Literal, TypedDict

from creval.errors import CrevalError

__all__ = [
    "ORIGINAL_PROBLEM", "NeoGaugeState", "constraint_following_rate", "convergent_creativity",
    "cumulative_neogauge", "divergent_creativity", "follows_constraints",
    "human_convergent_creativity", "human_divergent_creativity", "human_technique_union",
    "neogauge", "neogauge_state", "novelty_ratio", "pass_at_1", "pass_at_k",
    "solution_neogauge", "state_of_rounds", "technique_shares",
]  # fmt: skip

#: The constraint list NeoCoder.json gives the original problem (state 0); not a technique.
ORIGINAL_PROBLEM = "this is the og problem"

Empty = Literal["zero", "exclude"]
Techniques = Collection[str]
MaybeTechniques = Collection[str] | None


def _names(value: object, what: str) -> frozenset[str]:
    """``value`` as a set of technique names, with errors that say what went wrong."""
    if isinstance(value, str) or not isinstance(value, Collection):
        hint = (
            " It looks like source code: pass technique lists (human_solution_techniques.json),"
            " not solutions (human_solutions.json)."
            if isinstance(value, str) and ("\n" in value or len(value) > 60)
            else ""
        )
        raise CrevalError(
            f"{what} must be a collection of technique names, got {type(value).__name__} "
            f"{str(value)[:40]!r}.{hint}"
        )
    names = frozenset(value)
    for name in names:
        if not isinstance(name, str):
            raise CrevalError(f"{what} holds {name!r}; technique names must be strings.")
        if "\n" in name or len(name) > 60:
            raise CrevalError(
                f"{what} holds {name[:40]!r}..., which looks like source code, not a technique "
                "name: pass human_solution_techniques.json, not human_solutions.json."
            )
    return names


def _constraints(value: object, what: str) -> frozenset[str]:
    return _names(value, what) - {ORIGINAL_PROBLEM}


def _flag(value: object, what: str) -> bool:
    if isinstance(value, bool) or (
        type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
    ):
        return bool(value)
    raise CrevalError(f"{what} must be True or False, got {value!r}.")


def _same_length(what: str, *columns: Sequence[object]) -> int:
    lengths = {len(c) for c in columns}
    if len(lengths) != 1:
        raise CrevalError(f"{what}: the inputs have different lengths {[len(c) for c in columns]}.")
    (n,) = lengths
    if n == 0:
        raise CrevalError(f"{what}: there are no solutions to score.")
    return n


def _check_empty(empty: str) -> None:
    if empty not in ("zero", "exclude"):
        raise CrevalError(f"empty must be 'zero' or 'exclude', got {empty!r}.")


def follows_constraints(techniques: Techniques, constraints: Techniques) -> bool:
    """``T ∩ C = ∅``: the solution uses no forbidden technique.

    >>> follows_constraints({"for loop", "set"}, {"while loop"}), follows_constraints({"set"}, {"set"})
    (True, False)
    """
    return not (_names(techniques, "techniques") & _constraints(constraints, "constraints"))


def novelty_ratio(
    techniques: Techniques, human_techniques: Techniques, *, empty: Empty = "zero"
) -> float | None:
    """``|T \\ T^i| / |T|`` for one solution (the term of Eq. 3); empty ``T`` gives 0.0, or
    None with ``empty="exclude"``.

    >>> novelty_ratio({"for loop", "if statement", "recursion"}, {"for loop", "if statement"})
    0.3333333333333333
    >>> novelty_ratio(set(), {"for loop"}), novelty_ratio(set(), {"for loop"}, empty="exclude")
    (0.0, None)
    """
    _check_empty(empty)
    used = _names(techniques, "techniques")
    human = _names(human_techniques, "human techniques")
    if not used:
        return 0.0 if empty == "zero" else None
    return len(used - human) / len(used)


def _scorable(correct: object, techniques: MaybeTechniques, what: str) -> bool:
    """``correct`` as a flag; a correct solution must come with its techniques."""
    ok = _flag(correct, f"{what} correct")
    if ok and techniques is None:
        raise CrevalError(
            f"{what} is correct but its techniques are unknown (None): it cannot be scored in "
            "Eq. 2 or Eq. 4; leave it out. Only an incorrect solution scores 0 without techniques."
        )
    return ok


def solution_neogauge(
    correct: bool, techniques: MaybeTechniques, constraints: Techniques, human_techniques: Techniques
) -> float:
    """One solution's term of Eq. 4 (the best-of-k strategy of §5.3 takes its maximum). An
    incorrect solution scores 0 whatever its techniques, also unknown ones (None).

    >>> solution_neogauge(True, {"recursion", "set"}, {"for loop"}, {"set"})
    0.5
    >>> solution_neogauge(False, {"recursion", "set"}, {"for loop"}, {"set"})
    0.0
    >>> solution_neogauge(False, None, {"for loop"}, {"set"})
    0.0
    """
    if not _scorable(correct, techniques, "the solution"):
        _names(human_techniques, "human techniques")
        return 0.0
    assert techniques is not None
    ok = follows_constraints(techniques, constraints)
    ratio = novelty_ratio(techniques, human_techniques)
    return float(ratio) if ok and ratio is not None else 0.0


def constraint_following_rate(
    techniques: Sequence[Techniques], constraints: Sequence[Techniques]
) -> float:
    """Share of solutions whose techniques avoid their constraints (Table 2).

    >>> constraint_following_rate([{"for loop"}, {"while loop"}], [{"for loop"}, {"for loop"}])
    0.5
    """
    n = _same_length("constraint_following_rate", techniques, constraints)
    return sum(follows_constraints(t, c) for t, c in zip(techniques, constraints, strict=True)) / n


def convergent_creativity(
    correct: Sequence[bool], techniques: Sequence[MaybeTechniques], constraints: Sequence[Techniques]
) -> float:
    """Eq. 2: share of solutions that pass all tests and use no forbidden technique. An
    incorrect solution counts 0 even when its techniques are unknown (None).

    >>> convergent_creativity([True, True, False], [{"for loop"}, {"while loop"}, None],
    ...                       [{"for loop"}, {"for loop"}, set()])
    0.3333333333333333
    """
    n = _same_length("convergent_creativity", correct, techniques, constraints)
    hits = 0
    for i, (ok, t, c) in enumerate(zip(correct, techniques, constraints, strict=True)):
        if _scorable(ok, t, f"solution {i}"):
            assert t is not None
            hits += follows_constraints(t, c)
    return hits / n


def divergent_creativity(
    techniques: Sequence[Techniques],
    human_techniques: Sequence[Techniques],
    *,
    empty: Empty = "zero",
) -> float:
    """Eq. 3: mean over solutions of the share of their techniques no human used.

    ``human_techniques[i]`` is the union over the human solutions of problem ``i``
    (:func:`human_technique_union`); an empty union (no human solutions) is an error, as
    every technique would count as new: leave such problems out (the research code drops
    1773F). With ``empty="exclude"`` solutions without techniques are left out; if that
    leaves none, the result is NaN.

    >>> divergent_creativity([{"for loop", "recursion"}, {"for loop"}, set()],
    ...                      [{"for loop"}, {"for loop"}, {"for loop"}])
    0.16666666666666666
    >>> divergent_creativity([{"for loop", "recursion"}, {"for loop"}, set()],
    ...                      [{"for loop"}] * 3, empty="exclude")
    0.25
    """
    _check_empty(empty)
    _same_length("divergent_creativity", techniques, human_techniques)
    ratios = []
    for i, (used, human) in enumerate(zip(techniques, human_techniques, strict=True)):
        if not _names(human, f"human_techniques[{i}]"):
            raise CrevalError(
                f"human_techniques[{i}] is empty (no human solution techniques): leave that "
                "problem out of the divergent score."
            )
        ratios.append(novelty_ratio(used, human, empty=empty))
    kept = [r for r in ratios if r is not None]
    return sum(kept) / len(kept) if kept else math.nan


def neogauge(
    correct: Sequence[bool],
    techniques: Sequence[MaybeTechniques],
    constraints: Sequence[Techniques],
    human_techniques: Sequence[Techniques],
) -> float:
    """Eq. 4, NeoGauge@t: mean over solutions of ``follows · correct · novelty`` (an incorrect
    solution counts 0, even with unknown techniques, None).

    Worked example (module docstring): solution 1 is correct and free but uses only a
    human technique (0); solution 2 is correct, free, and half its techniques are new
    (1/2); solution 3 fails the tests (0). NeoGauge = (0 + 1/2 + 0) / 3 = 1/6.

    >>> neogauge([True, True], [{"recursion"}, {"recursion"}], [set(), {"recursion"}],
    ...          [{"for loop"}, {"for loop"}])
    0.5
    """
    n = _same_length("neogauge", correct, techniques, constraints, human_techniques)
    for i, human in enumerate(human_techniques):
        if not _names(human, f"human_techniques[{i}]"):
            raise CrevalError(f"human_techniques[{i}] is empty: leave that problem out.")
    return (
        sum(
            solution_neogauge(ok, t, c, h)
            for ok, t, c, h in zip(correct, techniques, constraints, human_techniques, strict=True)
        )
        / n
    )


def cumulative_neogauge(neogauge_by_state: Sequence[float]) -> list[float]:
    """Running sums of NeoGauge@0..t (Figure 4, right), one per state.

    >>> [round(x, 3) for x in cumulative_neogauge([0.010, 0.014, 0.009, 0.005, 0.0])]
    [0.01, 0.024, 0.033, 0.038, 0.038]
    """
    total, out = 0.0, []
    for t, value in enumerate(neogauge_by_state):
        if not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise CrevalError(f"NeoGauge@{t} must be a number in [0, 1], got {value!r}.")
        total += float(value)
        out.append(total)
    return out


def human_technique_union(solution_techniques: Sequence[Techniques]) -> frozenset[str]:
    """``T^i``: the union of the technique lists of one problem's human solutions.

    >>> sorted(human_technique_union([["for loop", "tuple"], ["for loop", "set"]]))
    ['for loop', 'set', 'tuple']
    >>> human_technique_union(["for _ in range(3):\\n    print(1)"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    creval.errors.CrevalError: human solution 0 must be ... not solutions (human_solutions.json).
    """
    if isinstance(solution_techniques, str):
        raise CrevalError("human_technique_union expects a list of technique lists, got a str.")
    union: set[str] = set()
    for j, techniques in enumerate(solution_techniques):
        union |= _names(techniques, f"human solution {j}")
    return frozenset(union)


def human_convergent_creativity(
    human_techniques: Sequence[Sequence[Techniques]],
    constraints: Sequence[Techniques],
    *,
    average: Literal["solutions", "problems"] = "solutions",
) -> float:
    """Eq. 5: share of human solutions (taken as correct) that avoid problem ``i``'s
    constraints at state ``t``.

    ``human_techniques[i]`` lists the technique sets of problem ``i``'s human solutions.
    Eq. 5 divides by ``m·|Y_t|`` with the same ``m`` for every problem; when ``m`` varies,
    ``average="solutions"`` pools all solutions (the equation's sum over the total count)
    and ``average="problems"`` averages per-problem shares. Problems without human
    solutions are skipped.

    >>> h = [[{"for loop"}, {"while loop"}], [{"for loop"}, {"for loop"}, {"set"}, {"set"}]]
    >>> human_convergent_creativity(h, [{"for loop"}, {"for loop"}])
    0.5
    >>> human_convergent_creativity(h, [{"for loop"}, {"for loop"}], average="problems")
    0.5
    """
    if average not in ("solutions", "problems"):
        raise CrevalError(f"average must be 'solutions' or 'problems', got {average!r}.")
    _same_length("human_convergent_creativity", human_techniques, constraints)
    shares: list[float] = []
    hits = total = 0
    for i, (solutions, forbidden) in enumerate(zip(human_techniques, constraints, strict=True)):
        if isinstance(solutions, str):
            raise CrevalError(f"human_techniques[{i}] must be a list of technique lists.")
        if not solutions:
            continue
        free = sum(follows_constraints(s, forbidden) for s in solutions)
        hits, total = hits + free, total + len(solutions)
        shares.append(free / len(solutions))
    if not total:
        raise CrevalError("human_convergent_creativity: no problem has human solutions.")
    return hits / total if average == "solutions" else sum(shares) / len(shares)


def human_divergent_creativity(
    human_techniques: Sequence[Sequence[Techniques]], *, empty: Empty = "zero"
) -> float:
    """Eq. 6: mean over human solutions of the share of their techniques that none of the
    *other* solutions of the same problem used (pooled over all solutions; problems
    without solutions are skipped; ``empty`` as in :func:`divergent_creativity`).

    >>> divergent = human_divergent_creativity([[{"for loop", "set"}, {"for loop"}, {"for loop"}]])
    >>> divergent  # (1/2 + 0 + 0) / 3
    0.16666666666666666
    """
    _check_empty(empty)
    ratios: list[float] = []
    for i, solutions in enumerate(human_techniques):
        if isinstance(solutions, str):
            raise CrevalError(f"human_techniques[{i}] must be a list of technique lists.")
        sets = [_names(s, f"human_techniques[{i}][{j}]") for j, s in enumerate(solutions)]
        for j, own in enumerate(sets):
            others = frozenset().union(*(s for k, s in enumerate(sets) if k != j))
            ratio = novelty_ratio(own, others, empty=empty)
            if ratio is not None:
                ratios.append(ratio)
    if not ratios:
        raise CrevalError("human_divergent_creativity: no human solution to score.")
    return sum(ratios) / len(ratios)


def pass_at_k(num_samples: Sequence[int], num_correct: Sequence[int], *, k: int = 1) -> float:
    """Mean over problems of the unbiased pass@k estimate ``1 - C(n-c, k) / C(n, k)``
    (Chen et al. 2021). For ``k=1`` each problem contributes ``c/n``.

    >>> pass_at_k([5, 5], [1, 0], k=1), round(pass_at_k([5], [1], k=2), 3)
    (0.1, 0.4)
    """
    _same_length("pass_at_k", num_samples, num_correct)
    if not isinstance(k, int) or k < 1:
        raise CrevalError(f"k must be a positive integer, got {k!r}.")
    total = 0.0
    for i, (n, c) in enumerate(zip(num_samples, num_correct, strict=True)):
        if not (isinstance(n, int) and isinstance(c, int) and 0 <= c <= n and n >= k):
            raise CrevalError(
                f"problem {i}: need integers 0 <= correct <= samples and samples >= k={k}, "
                f"got samples={n!r}, correct={c!r}."
            )
        total += (math.comb(n, k) - math.comb(n - c, k)) / math.comb(n, k)
    return total / len(num_samples)


def pass_at_1(correct: Sequence[bool]) -> float:
    """Share of solutions that pass all tests (one sample per problem).

    >>> pass_at_1([True, False, False, True])
    0.5
    """
    if not correct:
        raise CrevalError("pass_at_1: there are no solutions to score.")
    return sum(_flag(c, "correct") for c in correct) / len(correct)


def state_of_rounds(constraints_list: Sequence[Sequence[str]]) -> list[int | None]:
    """The state ``t`` of each Denial-Prompting round, or None for a round that repeats the
    previous round's constraint list (NeoGauge scores each state once, at its first round).

    ``t`` is the number of distinct constraints; round 0 (``["this is the og problem"]``
    or ``[]``) is state 0.

    >>> state_of_rounds([["this is the og problem"], ["for loop"], ["for loop"],
    ...                  ["for loop", "while loop"]])
    [0, 1, None, 2]
    """
    states: list[int | None] = []
    previous: list[str] | None = None
    for r, constraints in enumerate(constraints_list):
        names = _constraints(constraints, f"constraints of round {r}")
        current = list(constraints)
        states.append(None if current == previous else len(names))
        previous = current
    return states


class NeoGaugeState(TypedDict):
    """Every Table 3 column for one state, as fractions, and the number of solutions: ``n``
    in pass@1, Eq. 2 and Eq. 4; ``n_techniques`` (those with known techniques) in constraint
    following and Eq. 3, which are None when no solution has known techniques."""

    n: int
    n_techniques: int
    pass_at_1: float
    constraint_following: float | None
    convergent: float
    divergent: float | None
    neogauge: float


def neogauge_state(
    correct: Sequence[bool],
    techniques: Sequence[MaybeTechniques],
    constraints: Sequence[Techniques],
    human_techniques: Sequence[Techniques],
    *,
    empty: Empty = "zero",
) -> NeoGaugeState:
    """pass@1, constraint following, Eq. 2, Eq. 3 and Eq. 4 for the solutions of one state.

    ``techniques[i]`` is None when detection failed: an incorrect solution then still counts
    0 in Eq. 2 and Eq. 4, a correct one is left out of every column (its techniques decide
    them), and neither counts in constraint following or Eq. 3.

    >>> s = neogauge_state([True, False], [{"recursion"}, {"for loop"}], [{"for loop"}] * 2,
    ...                    [{"for loop"}] * 2)
    >>> s["pass_at_1"], s["constraint_following"], s["convergent"], s["divergent"], s["neogauge"]
    (0.5, 0.5, 0.5, 0.5, 0.5)
    >>> s = neogauge_state([True, False], [{"recursion"}, None], [set()] * 2, [{"for loop"}] * 2)
    >>> s["n"], s["n_techniques"], s["convergent"], s["divergent"], s["neogauge"]
    (2, 1, 0.5, 1.0, 0.5)
    """
    _same_length("neogauge_state", correct, techniques, constraints, human_techniques)
    rows = [
        row for row in zip(correct, techniques, constraints, human_techniques, strict=True)
        if not (_flag(row[0], "correct") and row[1] is None)
    ]
    if not rows:
        raise CrevalError("neogauge_state: every solution is correct with unknown techniques.")
    ok, used, forbidden, human = (list(column) for column in zip(*rows, strict=True))
    known = [(t, c, h) for t, c, h in zip(used, forbidden, human, strict=True) if t is not None]
    return NeoGaugeState(
        n=len(rows),
        n_techniques=len(known),
        pass_at_1=pass_at_1(ok),
        constraint_following=(constraint_following_rate([t for t, _, _ in known], [c for _, c, _ in known])
                              if known else None),
        convergent=convergent_creativity(ok, used, forbidden),
        divergent=(divergent_creativity([t for t, _, _ in known], [h for _, _, h in known], empty=empty)
                   if known else None),
        neogauge=neogauge(ok, used, forbidden, human),
    )


def technique_shares(technique_sets: Sequence[Techniques]) -> dict[str, tuple[int, float, float]]:
    """Per technique: ``(solutions, share_of_solutions, share_of_mentions)`` over ``technique_sets``.

    ``solutions`` counts the sets that contain the technique (each set counts a name once);
    ``share_of_solutions`` divides it by the number of sets, ``share_of_mentions`` by the
    number of (set, technique) pairs, so the latter sums to 1 over the techniques: the
    proportions Figure 2 of seed 000 stacks per state. Sets without any technique count
    in the number of sets, not in the mentions. The techniques come most used first, ties
    in alphabetical order. Empty input gives an empty dict.

    Worked example: three solutions use {for loop, set}, {for loop} and {} -- "for loop" is in
    2 of 3 solutions and 2 of the 3 mentions, "set" in 1 of 3 and 1 of 3.

    >>> shares = technique_shares([["for loop", "set"], ["for loop"], []])
    >>> {name: (n, round(s, 3), round(m, 3)) for name, (n, s, m) in shares.items()}
    {'for loop': (2, 0.667, 0.667), 'set': (1, 0.333, 0.333)}
    """
    if isinstance(technique_sets, str):
        raise CrevalError("technique_shares expects a list of technique lists, got a str.")
    sets = [_names(s, f"technique set {i}") for i, s in enumerate(technique_sets)]
    counts: dict[str, int] = {}
    for names in sets:
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    mentions = sum(counts.values())
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {name: (n, n / len(sets), n / mentions) for name, n in ordered}
