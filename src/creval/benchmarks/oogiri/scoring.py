"""Oogiri scores from a run's records: accuracy per mTn type, top-1, NDCG and Spearman.

Answers are parsed here (strictly, see :mod:`.questions`), so a parser change re-scores a
finished run. An unparsable choice answer is wrong and counted; an unparsable ranking is a
top-1 miss and is left out of the NDCG and Spearman means (which say over how many).
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any, Literal

from creval.benchmarks.oogiri.questions import (
    CHOICE_TYPES,
    parse_choice,
    parse_ranking,
    relevance_grades,
    render_constrained,
)
from creval.metrics.ranking import (
    choice_accuracy,
    ndcg,
    random_choice_accuracy,
    random_ndcg,
    random_top1,
    top1,
)
from creval.records import Scores
from creval.runner.store import Record


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _choice_rows(records: list[Record]
                 ) -> tuple[list[dict[str, Any]], Counter[str], dict[str, list[float | None]]]:
    """The accuracy table per game and mTn type, the skipped questions, and per mTn type the
    1/0 of every question in record order (the items behind ``acc_<type>``)."""
    by_type: dict[tuple[str, str], tuple[list[frozenset[str] | None], list[set[str]]]] = {}
    skipped: Counter[str] = Counter()
    hits: dict[str, list[float | None]] = {}
    for r in records:
        for q in r.output.get("questions", []):
            if "skipped" in q:
                skipped[f"{q['qtype']}: {q['skipped']}"] += 1
                continue
            m, n = CHOICE_TYPES[q["qtype"]]
            key = (str(r.unit.get("type", "?")), q["qtype"])
            chosen, correct = by_type.setdefault(key, ([], []))
            raw = render_constrained(q["raw"]) if r.output.get("constrained") else q["raw"]
            chosen.append(parse_choice(raw, m=m, n=n))
            correct.append(set(q["correct"]))
            hits.setdefault(q["qtype"], []).append(choice_accuracy(chosen[-1:], correct[-1:]).accuracy)
    rows = []
    for (game, qtype), (chosen, correct) in sorted(by_type.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        acc = choice_accuracy(chosen, correct)
        m, n = CHOICE_TYPES[qtype]
        rows.append({"qtype": qtype, "game": game, "questions": acc.total, "correct": acc.correct,
                     "accuracy": acc.accuracy, "random": random_choice_accuracy(m, n),
                     "unparsed": acc.unparsed,
                     # position bias at a glance: the letters picked vs where the jokes were
                     "picked": _letters([c for c in chosen if c is not None]),
                     "human_at": _letters(correct)})
    return rows, skipped, hits


def _letters(sets: list[frozenset[str]] | list[set[str]]) -> str:
    """``"A 3, C 1"``: how often each letter occurs in ``sets``.

    >>> _letters([{"A"}, {"A", "C"}, {"A"}])
    'A 3, C 1'
    """
    counts = Counter(letter for chosen in sets for letter in chosen)
    return ", ".join(f"{k} {counts[k]}" for k in sorted(counts))


def _ranking_rows(
    records: list[Record], relevance: Literal["grade", "likes"]
) -> tuple[dict[str, Any], list[dict[str, Any]], Counter[str], dict[str, list[float | None]]]:
    """The ranking summary, its per-question table, the skipped questions, and the items
    behind ``top1``, ``ndcg`` and ``spearman``: one value per answered ranking question, None
    where the mean leaves the question out (unparsed; no positive relevance; rho undefined)."""
    from creval.metrics.stats import spearman

    ndcgs, rand_ndcgs, hits, rand_hits, rhos = [], [], [], [], []
    unparsed = undefined = 0
    skipped: Counter[str] = Counter()
    table: list[dict[str, Any]] = []
    items: dict[str, list[float | None]] = {"ndcg": [], "spearman": []}
    for r in records:
        q = r.output.get("ranking")
        if not q:
            continue
        if "skipped" in q:
            skipped[f"rank: {q['skipped']}"] += 1
            continue
        likes = [float(x) for x in q["likes"]]
        rel = relevance_grades(likes) if relevance == "grade" else likes
        raw = render_constrained(q["raw"]) if r.output.get("constrained") else q["raw"]
        order = parse_ranking(raw, m=len(likes))
        rand_hits.append(random_top1(likes))
        if max(rel) > 0:
            rand_ndcgs.append(random_ndcg(rel))
        if order is None:
            unparsed += 1
            hits.append(0.0)
            items["ndcg"].append(None)
            items["spearman"].append(None)
            table.append({"key": r.key, "ranking": None, "ndcg": None, "top1": False})
            continue
        hit = top1(likes, order)
        hits.append(float(hit))
        score = ndcg(rel, order) if max(rel) > 0 else None
        if score is not None:
            ndcgs.append(score)
        items["ndcg"].append(score)
        # Spearman between the model's rank positions and the likes (higher likes = rank 1).
        model_rank = [order.index(i) for i in range(len(likes))]
        rho = spearman([-x for x in likes], model_rank)
        if rho.r is None:
            undefined += 1
        else:
            rhos.append(rho.r)
        items["spearman"].append(rho.r)
        table.append({"key": r.key, "ranking": "".join("ABCDE"[i] for i in order),
                      "ndcg": score, "top1": hit, "spearman": rho.r})
    summary = {
        "questions": len(hits), "unparsed": unparsed, "top1": _mean(hits),
        "top1_random": _mean(rand_hits), "ndcg": _mean(ndcgs), "ndcg_random": _mean(rand_ndcgs),
        "ndcg_over": len(ndcgs), "spearman_mean": _mean(rhos), "spearman_over": len(rhos),
        "spearman_undefined": undefined,
    }
    return summary, table, skipped, {"top1": list(hits), **items}


def score_oogiri(
    records: list[Record], *, relevance: Literal["grade", "likes"], loaded: dict[str, Any],
    constrain_requested: bool = False,
) -> Scores:
    """The scores of an oogiri run (``loaded``: source, exclusions and split)."""
    ok = [r for r in records if r.status == "ok"]
    skipped_prompts = Counter(str(r.output["skipped"]) for r in ok if "skipped" in r.output)
    answered = [r for r in ok if "skipped" not in r.output]
    choice, skipped_q, choice_items = _choice_rows(answered)
    rank, rank_table, skipped_r, rank_items = _ranking_rows(answered, relevance)
    headline: dict[str, Any] = {}
    per_item: dict[str, list[float | None]] = {}
    for qtype in CHOICE_TYPES:
        rows = [row for row in choice if row["qtype"] == qtype]
        total = sum(row["questions"] for row in rows)
        headline[f"acc_{qtype}"] = sum(row["correct"] for row in rows) / total if total else None
        if total:
            per_item[f"acc_{qtype}"] = choice_items[qtype]
    pooled = [v for qtype in CHOICE_TYPES for v in choice_items.get(qtype, [])]
    # every choice question with equal weight, whatever its type (the profile's measure)
    headline["acc"] = _mean([v for v in pooled if v is not None])
    if pooled:
        per_item["acc"] = pooled
    if rank["questions"]:
        per_item |= rank_items
    headline |= {
        "top1": rank["top1"], "ndcg": rank["ndcg"], "spearman": rank["spearman_mean"],
        "unparsed": sum(row["unparsed"] for row in choice) + rank["unparsed"],
        "prompts_answered": len(answered), "prompts_skipped": sum(skipped_prompts.values()),
    }
    exclusions = [{"what": "prompt", "reason": k, "count": v} for k, v in skipped_prompts.items()]
    exclusions += [{"what": "question", "reason": k, "count": v} for k, v in (skipped_q + skipped_r).items()]
    exclusions += [{"what": "data row", "reason": k, "count": v} for k, v in loaded.get("excluded", {}).items()]
    notes = [
        "Choice accuracy: the chosen letters must equal the human answer(s) exactly; an "
        "unparsable answer counts as wrong. 'random' is 1 / C(m, n). acc pools the choice "
        "questions of every type, each with equal weight.",
        f"Ranking: NDCG with {relevance} relevance (linear gain, log2 discount); top-1 is a hit "
        "when the first pick has the most likes (ties count); Spearman between the model's "
        "order and the likes. Unparsable rankings are top-1 misses and are left out of NDCG "
        f"and Spearman ({rank['unparsed']} here).",
        f"Data: {loaded.get('source')}; split: {loaded.get('split', {}).get('note') or 'see split.json'}.",
    ]
    constrained = sum(bool(r.output.get("constrained")) for r in answered)
    if constrained:
        notes.append(f"Answers constrained to JSON letters (--constrain-answers) for {constrained} "
                     f"of {len(answered)} prompts: the tested model's output was shaped, unlike "
                     "the paper's free answers.")
    if constrain_requested and constrained < len(answered):
        notes.append(f"--constrain-answers: {len(answered) - constrained} prompt(s) were answered "
                     "freely because the tested model's backend cannot constrain decoding.")
    if skipped_prompts:
        notes.append(f"{sum(skipped_prompts.values())} prompt(s) skipped: "
                     + "; ".join(f"{v} x {k}" for k, v in skipped_prompts.items()))
    return Scores(
        headline=headline,
        sections=[
            {"title": "Choice questions (mTn)", "rows": choice},
            {"title": "Ranking questions", "rows": [rank]},
            {"title": "Exclusions", "rows": exclusions},
        ],
        table=rank_table,
        per_item=per_item,
        notes=notes,
    ).with_extra(split=loaded.get("split", {}))
