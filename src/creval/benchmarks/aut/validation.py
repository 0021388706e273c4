"""The run's originality scorer against people: its correlation with the human ratings of the
held-out test responses, the published scorers' on the same responses, the paired difference
against each, and the model's originality as a percentile among people re-scored by the same
scorer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.benchmarks.aut.data import Response, published_scores
from creval.records import JudgeCheck

#: Below this Pearson r with people (or with an interval reaching 0) a scorer is flagged as
#: not telling original from common uses apart (Cohen's "small" is 0.1-0.3; Ocsai's
#: published scorers reach 0.5-0.8 on these responses).
WEAK_R = 0.2


@dataclass
class Validation:
    headline: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    checks: list[JudgeCheck] = field(default_factory=list)


def _r(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def validate(folder: Path, chosen: Sequence[tuple[int, Response]], scores: Sequence[float | None],
             *, scorer: str, total: int) -> Validation:
    """``scores`` are the run's scorer's scores of the ``chosen`` test responses (index in
    the test file, response); None where it gave none (left out, counted)."""
    from creval.metrics.correlation import correlation_difference, correlation_interval

    out = Validation()
    kept = [(i, r, s) for (i, r), s in zip(chosen, scores, strict=True) if s is not None]
    ratings = [r.rating for _, r, _ in kept]
    ours = [float(s) for _, _, s in kept]
    mine = correlation_interval(ours, ratings)
    out.headline.update({"human_r": _r(mine.r), "human_r_low": _r(mine.low),
                         "human_r_high": _r(mine.high), "validation_responses": mine.n})
    out.rows.append({"scorer": f"this run ({scorer})", "pearson_r": _r(mine.r), "low": _r(mine.low),
                     "high": _r(mine.high), "n": mine.n, "difference": None, "diff_low": None,
                     "diff_high": None})
    for name, column in published_scores(folder).items():
        theirs = [column[i] for i, _, _ in kept]
        ref = correlation_interval(theirs, ratings)
        diff = correlation_difference(ratings, ours, theirs)
        out.headline.update({f"published_r_{name}": _r(ref.r), f"published_r_{name}_low": _r(ref.low),
                             f"published_r_{name}_high": _r(ref.high),
                             f"r_minus_{name}": _r(diff.difference),
                             f"r_minus_{name}_low": _r(diff.low), f"r_minus_{name}_high": _r(diff.high)})
        out.rows.append({"scorer": f"{name} (published)", "pearson_r": _r(ref.r), "low": _r(ref.low),
                         "high": _r(ref.high), "n": ref.n, "difference": _r(diff.difference),
                         "diff_low": _r(diff.low), "diff_high": _r(diff.high)})
    dropped = len(chosen) - len(kept)
    share = "all" if len(chosen) == total else f"{len(chosen)} of {total}, stratified by object"
    out.notes.append(
        f"Validation against people: Pearson r between this run's {scorer} scores and the human "
        f"originality ratings of Ocsai's held-out test responses ({share}"
        f"{f'; {dropped} without a score left out' if dropped else ''}), Fisher z interval; the "
        "published scorers' r from Ocsai's released scores (score_1) of the same responses, and "
        "r_minus_NAME the paired difference with Zou's (2007) interval (0 outside it: the "
        "scorers differ).")
    if mine.r is None or mine.r < WEAK_R or (mine.low is not None and mine.low <= 0):
        detail = (f"Pearson r with people's ratings {_r(mine.r)} over {mine.n} test responses "
                  f"(interval {_r(mine.low)}..{_r(mine.high)}; needs r >= {WEAK_R} and an "
                  "interval above 0)")
        out.checks.append(JudgeCheck(judge=f"aut {scorer} scorer", check="weak_correlation",
                                     detail=detail, items=mine.n))
        out.warnings.append(f"The {scorer} scorer is not shown to tell original from common "
                            f"uses as people do: {detail}. Its originality scores say little.")
    return out


def people_norms(model: Sequence[tuple[str, float]], people: Sequence[tuple[str, float]]
                 ) -> tuple[dict[str, Any], str]:
    """The model's mean originality as a percentile among people's responses to the same
    objects, all scored by the same scorer; the interval over the model's uses (each use a
    response; uses of one list are not independent, so it is optimistic) and the people.
    Returns headline entries and a note."""
    from creval.metrics.percentile import human_percentile

    objects = {o for o, _ in model}
    pool = [s for o, s in people if o in objects]
    scored = [(o, s) for o, s in model if any(o == p for p, _ in people)]
    if not scored or len(pool) < 2:
        return {"people_percentile": None}, (
            "People's norms: none of the model's objects has people's responses re-scored here "
            "(the Ocsai objects only).")
    r = human_percentile([s for _, s in scored], pool)
    note = (f"People's norms: the model's mean originality ({len(scored)} uses of "
            f"{len({o for o, _ in scored})} objects) as a percentile among {len(pool)} people's "
            "test responses to the same objects, both scored by this run's scorer (never people's "
            "own ratings); interval over the model's uses and the people"
            f"{'' if r.reason is None else f' ({r.reason})'}.")
    return {"people_percentile": round(r.percentile, 2),
            "people_percentile_low": None if r.low is None else round(r.low, 2),
            "people_percentile_high": None if r.high is None else round(r.high, 2)}, note
