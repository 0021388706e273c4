"""LoTbench scores from the game records: S_c with a bootstrap interval, the round
histogram, evaluator parse-failure rates, tokens per role and per round, and where the run
stands on a published leaderboard.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from creval.benchmarks.lotbench.game import ROLES
from creval.errors import CrevalError
from creval.metrics.intervals import MIN_ITEMS, mean_interval
from creval.metrics.lotbench import creativity_score, round_histogram, sample_scores
from creval.records import Scores
from creval.runner.store import Record


def load_leaderboard(path: str) -> list[dict[str, Any]]:
    """Records ``{title, score, type}`` of a leaderboard JSON (``{"records": [...]}`` or a list)."""
    file = Path(path)
    if not file.is_file():
        raise CrevalError(f"Leaderboard file {file} does not exist. Pass a JSON file to --leaderboard.")
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CrevalError(f"{file}: not valid JSON ({exc.msg}).") from None
    records = data.get("records") if isinstance(data, dict) else data
    if not isinstance(records, list) or not all(
        isinstance(r, dict) and isinstance(r.get("score"), (int, float)) and r.get("title")
        for r in records
    ):
        raise CrevalError(f"{file}: expected {{\"records\": [{{\"title\", \"score\", \"type\"}}]}}.")
    return records


def leaderboard_position(score: float, records: list[dict[str, Any]]) -> dict[str, Any]:
    """Where ``score`` stands: rank among the models, and the human groups below and above.

    >>> board = [{"title": "A", "score": 0.09, "type": "proprietary"},
    ...          {"title": "B", "score": 0.05, "type": "open_source"},
    ...          {"title": "Human (low)", "score": 0.062, "type": "human_expert"}]
    >>> leaderboard_position(0.07, board)["rank_among_models"]
    '2 of 3'
    """
    models = [r for r in records if r.get("type") != "human_expert"]
    humans = sorted((r for r in records if r.get("type") == "human_expert"), key=lambda r: r["score"])
    above = sum(r["score"] > score for r in models)
    return {
        "score": score,
        "rank_among_models": f"{above + 1} of {len(models) + 1}",
        "next_model_above": min((r for r in models if r["score"] > score), key=lambda r: r["score"],
                                default={}).get("title"),
        "next_model_below": max((r for r in models if r["score"] <= score), key=lambda r: r["score"],
                                default={}).get("title"),
        "human_groups_below": [h["title"] for h in humans if h["score"] <= score],
        "human_groups_above": [h["title"] for h in humans if h["score"] > score],
    }


def _per_round_usage(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per round: mean tokens and requests of each role over the games that reached it
    (the cost of a round as the history grows)."""
    tokens: dict[int, dict[str, list[int]]] = {}
    calls: dict[int, dict[str, list[int]]] = {}
    for g in games:
        for r in g["rounds"]:
            t_row = tokens.setdefault(r["round"], {role: [] for role in ROLES})
            c_row = calls.setdefault(r["round"], {role: [] for role in ROLES})
            for role in ROLES:
                u = r.get("usage", {}).get(role, {})
                t_row[role].append(u.get("input_tokens", 0) + u.get("output_tokens", 0))
                c_row[role].append(u.get("calls", 0))
    rows = []
    for t in sorted(tokens):
        row: dict[str, Any] = {"round": t, "games": len(tokens[t]["tested"])}
        for role in ROLES:
            row[f"{role}_tokens"] = statistics.fmean(tokens[t][role])
            row[f"{role}_requests"] = statistics.fmean(calls[t][role])
        rows.append(row)
    return rows


def score_lotbench(records: list[Record], options: Any) -> Scores:
    """The scores of a lotbench run (options: alpha, beta, unsolved, max_rounds, ...)."""
    finished = [r for r in records if r.status == "ok"]
    skipped = [r for r in finished if "skipped" in r.output]
    games = [r.output | {"key": r.key, "repeat": r.unit.get("repeat")}
             for r in finished if "skipped" not in r.output]
    by_sample: dict[str, list[int | None]] = {}
    for g in games:
        by_sample.setdefault(g["sample_id"], []).append(g["solved_round"])
    params = {"alpha": options.alpha, "beta": options.beta, "unsolved": options.unsolved}
    headline: dict[str, Any] = {"S_c": None, "S_c_low": None, "S_c_high": None}
    histogram: dict[int | str, int] = {}
    per_item: dict[str, list[float | None]] = {}
    if by_sample:
        rounds = list(by_sample.values())
        per_sample = sample_scores(rounds, **params)
        ci = mean_interval(per_sample, confidence=options.confidence)  # None when too few
        headline = {"S_c": creativity_score(rounds, **params), "S_c_low": ci.low, "S_c_high": ci.high}
        histogram = round_histogram(rounds, max_rounds=options.max_rounds)
        # S_c is the plain mean of the samples' scores (unsolved games score --unsolved)
        per_item["S_c"] = list(per_sample)
    solved = [g["solved_round"] for g in games if g["solved_round"] is not None]
    verdicts = sum(g["e1_verdicts"] for g in games)
    answers = sum(g["e2_answers"] for g in games)
    e1_fail = sum(g["e1_parse_failures"] for g in games)
    e2_fail = sum(g["e2_parse_failures"] for g in games)
    usage_total = {role: sum(g["usage"].get(role, {}).get(k, 0) for g in games
                             for k in ("input_tokens", "output_tokens")) for role in ROLES}
    requests = {role: sum(g["usage"].get(role, {}).get("calls", 0) for g in games) for role in ROLES}
    headline |= {
        "samples": len(by_sample), "games": len(games), "games_skipped": len(skipped),
        "solved": len(solved),
        "mean_solved_round": statistics.fmean(solved) if solved else None,
        "e1_parse_failure_rate": e1_fail / verdicts if verdicts else None,
        "e2_parse_failure_rate": e2_fail / answers if answers else None,
        "empty_fills": sum(g["empty_fills"] for g in games),
        "no_questions": sum(g.get("no_questions", 0) for g in games),
        "tokens_per_game": (sum(usage_total.values()) / len(games)) if games else None,
        # the distribution of rounds on the console too, e.g. "round 2: 3, unsolved: 1"
        "rounds_to_daeso": ", ".join(
            f"{'round ' + str(k) if isinstance(k, int) else k}: {v}" for k, v in histogram.items()
        ) or None,
    }
    sections = [
        {"title": "Rounds to DAESO", "rows": [{"round": k, "games": v} for k, v in histogram.items()]},
        {"title": "Tokens and requests per round (mean over the games that reached it)",
         "rows": _per_round_usage(games)},
        {"title": "Tokens and requests per role", "rows": [
            {"role": role, "tokens": usage_total[role], "requests": requests[role],
             "tokens_per_game": usage_total[role] / len(games) if games else None,
             "requests_per_game": requests[role] / len(games) if games else None}
            for role in ROLES]},
    ]
    if options.leaderboard and headline["S_c"] is not None:
        position = leaderboard_position(headline["S_c"], load_leaderboard(options.leaderboard))
        headline["leaderboard_rank"] = position["rank_among_models"]
        sections.append({"title": "Leaderboard", "rows": [position]})
    table = [{"key": g["key"], "sample": g["sample_id"], "repeat": g["repeat"], "solved_round": g["solved_round"],
              "fills": " | ".join(r["fill"] for r in g["rounds"])[:160]} for g in games]
    notes = [
        f"S_c = mean over samples and repeats of {options.beta} * exp(-{options.alpha} * t), t the "
        f"round at which E1 judged the fill DAESO; games unsolved after {options.max_rounds} "
        f"rounds score {options.unsolved} (the paper does not say; --unsolved sets it).",
        f"S_c_low and S_c_high: {options.confidence:.0%} t interval with Hall's skewness "
        "correction over samples (their scores, each the mean of its games, are the items "
        f"behind S_c); none from fewer than {MIN_ITEMS} samples.",
        f"E1: {options.e1_mode}; an unparsable verdict counts as not DAESO "
        f"({e1_fail} of {verdicts}); an unparsable E2 answer is shown as no answer ({e2_fail} of {answers}).",
        "E1 and E2 run on their role models (--e1, --e2, else --judge, else --model: the "
        f"manifest's roles say which); their answers were constrained to JSON (the backend's structured output) in "
        f"{sum(bool(g.get('evaluators_constrained')) for g in games)} of {len(games)} games.",
        "Full transcripts: transcripts.jsonl beside this report.",
    ]
    if skipped:
        notes.append(f"{len(skipped)} game(s) skipped: {skipped[0].output['skipped']}.")
    return Scores(headline=headline, sections=sections, table=table, notes=notes,
                  per_item=per_item).with_extra(games=games)
