"""A judge's TTCW verdicts against the three experts': the tables ``ttcw-judges`` reports.

For the items (story, test) a judge gave a verdict on: accuracy and Cohen's kappa against
the experts' majority (three experts, so never tied), overall, per test and per Torrance
dimension, each with a 95% interval from a jackknife over stories (the 14 tests of a story
are one cluster; none below 5 stories, ``interval`` says why); against each expert alone; and the experts' own agreement on the same
items (Fleiss' kappa, as the paper reports it). The same function scores the run's judge and
each released LLM judge, so the numbers stand side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from creval.benchmarks.ttcw.data import DIMENSIONS, TTCWData, item_key
from creval.metrics.agreement import cohen_kappa, majority_vote
from creval.metrics.rater_agreement import clustered_agreement, fleiss_kappa

#: (story_id, test idx) -> the judge's verdict (None: it gave none that parses)
Verdicts = Mapping[tuple[str, int], bool | None]


def _row(a: list[bool], b: list[bool], stories: list[str], resamples: int, seed: int) -> dict[str, Any]:
    r = clustered_agreement(a, b, stories, resamples=resamples, seed=seed)
    return {"n": r.n, "stories": r.clusters, "accuracy": r.accuracy,
            "accuracy_low": r.accuracy_low, "accuracy_high": r.accuracy_high,
            "kappa": r.kappa, "kappa_low": r.kappa_low, "kappa_high": r.kappa_high,
            **({"interval": r.reason} if r.reason else {}), "judge_yes_rate": sum(a) / len(a), "experts_yes_rate": sum(b) / len(b)}


def majority(data: TTCWData, item: tuple[str, int]) -> bool:
    votes = [v for _, v in data.experts[item]]
    (top,) = majority_vote([votes])
    return bool(top)


def agreement(data: TTCWData, verdicts: Verdicts, items: Sequence[tuple[str, int]], *,
              resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Every table of one judge on ``items`` (those it has no parsed verdict on are counted
    in ``unparsed`` and left out). ``overall`` is None when no item has a verdict."""
    scored = [i for i in items if verdicts.get(i) is not None and i in data.experts]
    out: dict[str, Any] = {"items": len(items), "unparsed": len(items) - len(scored),
                           "overall": None, "tests": [], "dimensions": [], "experts": []}
    if not scored:
        return out
    judge = [bool(verdicts[i]) for i in scored]
    truth = [majority(data, i) for i in scored]
    stories = [s for s, _ in scored]
    out["overall"] = {**_row(judge, truth, stories, resamples, seed),
                      "experts_fleiss_kappa": _fleiss(data, scored)}
    for test in data.tests:
        pick = [j for j, (_, t) in enumerate(scored) if t == test.idx]
        if pick:
            out["tests"].append({"test": test.idx, "dimension": test.dimension,
                                 "category": test.category, **_subset(data, scored, pick, judge,
                                                                      truth, resamples, seed)})
    for dim in DIMENSIONS:
        idx = {t.idx for t in data.tests if t.dimension == dim}
        pick = [j for j, (_, t) in enumerate(scored) if t in idx]
        if pick:
            out["dimensions"].append({"dimension": dim, **_subset(data, scored, pick, judge, truth,
                                                                  resamples, seed)})
    for expert in sorted({e for i in scored for e, _ in data.experts[i]}):
        pairs = [(j, v) for j, i in zip(judge, scored, strict=True)
                 for e, v in data.experts[i] if e == expert]
        k = cohen_kappa([p for p, _ in pairs], [v for _, v in pairs], labels=[True, False])
        out["experts"].append({"expert": expert, "n": len(pairs), "kappa": k.kappa,
                               "accuracy": sum(p == v for p, v in pairs) / len(pairs)})
    return out


def _votes(data: TTCWData, item: tuple[str, int]) -> list[bool]:
    return [v for _, v in data.experts[item]]


def _subset(data: TTCWData, scored: list[tuple[str, int]], pick: list[int], judge: list[bool],
            truth: list[bool], resamples: int, seed: int) -> dict[str, Any]:
    row = _row([judge[j] for j in pick], [truth[j] for j in pick], [scored[j][0] for j in pick],
               resamples, seed)
    row["experts_fleiss_kappa"] = _fleiss(data, [scored[j] for j in pick])
    return row


def _fleiss(data: TTCWData, items: list[tuple[str, int]]) -> float | None:
    """The raters' Fleiss' kappa on ``items``; None with fewer than two raters per item (the
    starter set has one)."""
    votes = [_votes(data, i) for i in items]
    if min(len(v) for v in votes) < 2 or len({len(v) for v in votes}) > 1:
        return None
    return fleiss_kappa(votes)


def item_agreement(data: TTCWData, verdicts: Verdicts,
                   items: Sequence[tuple[str, int]]) -> dict[str, float]:
    """Per item key: 1.0 when the verdict equals the experts' majority, else 0.0 (items
    without a parsed verdict are left out): what ``compare --published`` pairs."""
    return {item_key(*i): float(verdicts[i] == majority(data, i)) for i in items
            if verdicts.get(i) is not None and i in data.experts}
