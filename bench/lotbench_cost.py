"""What a LoTbench game costs, per role and per round, as its history grows (issue 11).

Runs ``lotbench`` on the offline default model (tested model, E1 and E2 all ``local``) through
``creval.evaluate`` and reads the run's per-round usage table: for each round, the mean
tokens and requests of the tested model, E1 and E2 over the games that reached it. The
named baseline is round 1 of the same run: the tested model's tokens in each later round are
reported as a ratio of it (its prompt carries the growing history), whatever the machine's
speed. E1's first round also builds the causal chains it reuses later.

    .venv/bin/python bench/lotbench_cost.py                 # 2 games x 4 rounds, a few minutes
    .venv/bin/python bench/lotbench_cost.py --games 4 --rounds 6
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import creval

ROLES = ("tested", "e1", "e2")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="starter samples, one game each")
    parser.add_argument("--rounds", type=int, default=4, help="rounds per game (no early stop by cap)")
    parser.add_argument("--model", default="local")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        result = creval.evaluate(
            "lotbench", model=args.model, out=Path(tmp) / "lotbench", limit=args.games,
            repeats=1, max_rounds=args.rounds, judge_max_tokens=64, cache=False,
        )
        seconds = time.perf_counter() - started
    scores = result["lotbench"].scores
    section = next(s for s in scores.sections if s["title"].startswith("Tokens and requests per round"))
    rows: list[dict[str, Any]] = section["rows"]
    base = rows[0]["tested_tokens"] or 1.0  # the tested model's prompt carries the history
    print(f"lotbench on {args.model}: {args.games} game(s), up to {args.rounds} rounds, {seconds:.0f} s")
    print("| round | games | " + " | ".join(f"{r} tokens | {r} requests" for r in ROLES)
          + " | all tokens | tested x round 1 |")
    print("|" + " --- |" * (4 + 2 * len(ROLES)))
    for row in rows:
        total = sum(row[f"{r}_tokens"] for r in ROLES)
        cells = " | ".join(f"{row[f'{r}_tokens']:.0f} | {row[f'{r}_requests']:.1f}" for r in ROLES)
        ratio = row["tested_tokens"] / base
        print(f"| {row['round']} | {row['games']} | {cells} | {total:.0f} | {ratio:.2f} |")
    usage = scores.usage.get("this_invocation", {})
    games = max(1, scores.units.finished)
    requests = sum(m.get("requests", 0) for m in usage.get("models", {}).values())
    tokens = sum(m.get("input_tokens", 0) + m.get("output_tokens", 0)
                 for m in usage.get("models", {}).values())
    print(f"per game: {requests / games:.1f} requests, {tokens / games:.0f} tokens; "
          f"S_c {scores.headline.get('S_c')}")


if __name__ == "__main__":
    main()
