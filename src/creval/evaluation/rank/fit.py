"""The ratings document of ``creval rank``: judgements in, Bradley-Terry ratings with intervals,
the first-position bias, the win-rate matrix, circular triads and each run's own scores out.

A judgement whose answer names no winner is counted as a parse failure and left out of the
fit (never turned into a preference). A judgement's outcome is 1 when the answer shown first
won, 0 when the second won, 0.5 for a tie.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError

if TYPE_CHECKING:
    from creval.evaluation.rank.items import RankPlan, RankSettings
    from creval.records import Record

#: Headline values of each run shown beside the ratings (the first numeric ones).
HEADLINE_VALUES = 4
#: Fewest common items for the ratings' intervals: the two-way percentile bootstrap covered
#: 75-83% at 2 items and 93-100% from 5 in simulation (bench/README.md, interval coverage).
RANK_MIN_ITEMS = 5


def outcomes(records: list[Record]) -> tuple[list[dict[str, Any]], int, int]:
    """The parsed judgements (first, second, outcome, item, judge), the failed parses and the
    units that ended in an error."""
    rows, failed, errors = [], 0, 0
    for r in records:
        if r.status != "ok":
            errors += 1
            continue
        winner = r.output.get("winner")
        if winner not in ("A", "B", "tie"):
            failed += 1
            continue
        rows.append({"first": r.unit["first"], "second": r.unit["second"], "item": r.unit["item"],
                     "judge": r.unit["judge"], "outcome": {"A": 1.0, "B": 0.0, "tie": 0.5}[winner]})
    return rows, failed, errors


def item_triads(rows: list[dict[str, Any]], models: list[str]) -> dict[str, Any]:
    """Circular triads within items: per item, each pair's preference over both orders and all
    judges; summed over items."""
    from creval.metrics.bradley_terry import intransitive_triads

    index = {m: i for i, m in enumerate(models)}
    by_item: dict[str, dict[tuple[int, int], list[float]]] = {}
    for row in rows:
        i, j = index[row["first"]], index[row["second"]]
        by_item.setdefault(row["item"], {}).setdefault((i, j), []).append(row["outcome"])
        by_item[row["item"]].setdefault((j, i), []).append(1 - row["outcome"])
    cyclic = transitive = 0
    for cells in by_item.values():
        matrix: list[list[float | None]] = [[None] * len(models) for _ in models]
        for (i, j), values in cells.items():
            matrix[i][j] = sum(values) / len(values)
        t = intransitive_triads(matrix)
        cyclic, transitive = cyclic + t.cyclic, transitive + t.transitive
    decided = cyclic + transitive
    return {"cyclic": cyclic, "decided": decided, "rate": cyclic / decided if decided else None}


def judge_checks(rows: list[dict[str, Any]], judges: list[str]) -> list[dict[str, Any]]:
    """Per judge, :func:`creval.judges.discrimination.position_bias` on the positions it picked
    (ties left out): a judge that picks one position almost always chose by position, not by
    content, and the ratings rest on its few other verdicts."""
    from creval.judges.discrimination import position_bias

    checks = []
    for judge in judges:
        choices = [0 if r["outcome"] == 1.0 else 1 for r in rows if r["judge"] == judge and r["outcome"] != 0.5]
        checks += [c.model_dump(mode="json") for c in position_bias(choices, 2, judge=judge)]
    return checks


def headline(run: Any) -> dict[str, Any]:
    """The run's first numeric headline values (its absolute scores), as written."""
    scores = run.scores
    if scores is None:
        return {}
    values = {k: v for k, v in scores.headline.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    return dict(list(values.items())[:HEADLINE_VALUES])


def same_family(plan: RankPlan, settings: RankSettings, records: list[Record],
                rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[tuple[str, str], str]]:
    """The judgements left after the judges' own answers are read (a judge whose answers
    reported a rated model's family does not decide that model's pairs), and those exclusions."""
    if settings.allow_same_family_judge:
        return rows, {}
    from creval.evaluation.rank.items import judged
    from creval.evaluation.rank.own_family import by_answers, run_families

    after = {k: v for k, v in by_answers(run_families(plan.runs), plan.judges, plan.out, records).items()
             if k not in plan.excluded}
    kept = [r for r in rows if judged((r["first"], r["second"]), r["judge"], after)]
    alone = sorted({m for r in rows for m in (r["first"], r["second"])} - {m for r in kept for m in (r["first"], r["second"])})
    if alone:
        why = "; ".join(sorted({v for (_, m), v in after.items() if m in alone}))
        raise CrevalError(f"No judgement of {', '.join(alone)} is left: {why}. The judgements are kept in "
                          f"{plan.out}; add a judge of another family (--judge a,b) or pass "
                          "--allow-same-family-judge, and run the same command again.")
    return kept, after


def ratings_document(plan: RankPlan, settings: RankSettings, records: list[Record],
                     down: dict[str, str]) -> dict[str, Any]:
    """Everything ``creval rank`` reports, as plain JSON values."""
    from creval.evaluation.rank.own_family import listed
    from creval.metrics.bradley_terry import (
        bootstrap_bradley_terry,
        intransitive_triads,
        win_matrix,
    )

    rows, failed, errors = outcomes(records)
    rows, after = same_family(plan, settings, records, rows)
    models = [r.label for r in plan.runs]
    if not rows:
        detail = "; ".join(f"{e}: {m}" for e, m in down.items()) or (
            f"{failed} answer(s) named no winner and {errors} judgement(s) failed")
        raise CrevalError(f"No judgement could be used ({detail}). Check the judge (--judge, "
                          f"--judge-base-url) and run the same command again: what was recorded in "
                          f"{plan.out} is kept.")
    args = ([r["first"] for r in rows], [r["second"] for r in rows], [r["outcome"] for r in rows])
    try:
        fit = bootstrap_bradley_terry(*args, items=[r["item"] for r in rows], judges=[r["judge"] for r in rows],
                                      models=models, prior=settings.prior, anchors=plan.design.anchors or None,
                                      confidence=settings.confidence, resamples=settings.resamples,
                                      seed=settings.seed)
    except ValueError as exc:
        raise CrevalError(f"The ratings cannot be computed: {exc} Judge more pairs (--design all) "
                          "or run the same command again to finish the judgements.") from None
    enough = len(plan.items) >= RANK_MIN_ITEMS
    _, shares, counts = win_matrix(*args, models=models)
    pool = intransitive_triads(shares)
    firsts = [r["outcome"] for r in rows if r["outcome"] != 0.5]
    by_label = {r.label: r for r in plan.runs}
    table: list[dict[str, Any]] = []
    for i, m in enumerate(models):
        played = [s for s in shares[i] if s is not None]
        table.append({"model": m, "rating": fit.fit.ratings[i], "low": fit.low[i] if enough else None,
                      "high": fit.high[i] if enough else None,
                      "comparisons": fit.fit.comparisons[i],
                      "win_rate": sum(s * c for s, c in zip(shares[i], counts[i], strict=True) if s is not None)
                      / max(1, sum(counts[i])) if played else None,
                      "anchor": m in plan.design.anchors, "run": str(by_label[m].run.path),
                      "scores": headline(by_label[m].run)})
    table.sort(key=lambda row: -float(row["rating"]))
    return {
        "benchmark": plan.benchmark, "models": models, "ratings": table,
        "scale": "Bradley-Terry strength (logit): a difference of 1 is a 73% chance of winning",
        "centred_on": plan.design.anchors or "all models",
        "position_bias": {"gamma": fit.fit.bias, "low": fit.bias_low if enough else None,
                          "high": fit.bias_high if enough else None,
                          "first_wins": sum(v == 1.0 for v in firsts) / len(firsts) if firsts else None},
        "win_matrix": {"models": models, "shares": shares, "comparisons": counts},
        "triads": {"models": {"cyclic": pool.cyclic, "decided": pool.cyclic + pool.transitive,
                              "rate": pool.rate},
                   "items": item_triads(rows, models)},
        "judge_checks": judge_checks(rows, plan.judges),
        "ties": sum(r["outcome"] == 0.5 for r in rows),
        "judgements": len(rows), "failed_parses": failed, "failed_requests": errors,
        "missing": plan.requests - len(records),
        "items": len(plan.items), "judges": plan.judges, "design": plan.to_dict(),
        "interval": {"confidence": settings.confidence, "resamples": settings.resamples,
                     "over": "items and judges together (two-way bootstrap)",
                     "note": None if enough else (f"{len(plan.items)} common item(s): too few for an "
                                                  f"interval (needs {RANK_MIN_ITEMS})")},
        "same_family": listed(plan.excluded, "before any call") + listed(after, "after the judgements"),
        "ties_as": "half a win for each side", "prior": f"{settings.prior:g} virtual tie(s) per compared pair",
        "out": str(plan.out),
    }
