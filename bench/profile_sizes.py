"""How many JCQ questions the profile's ``standard`` size needs, from bootstrap intervals.

Seed 004 Table 3 ranks five models by their JCQ mean (calm3-22b 3.76, GPT-4o 3.64, Claude
3.5 Sonnet 3.48, llm-jp-3-13b 3.41, Swallow-8B 3.12). JCQ-judge released GPT-4o's 3,500
judgements of each model's answers (``../shared/data/jcq/judgements_gpt-4o-2024-08-06``).
For each pair of models adjacent in that ranking, this takes the first q questions the way
creval takes them (``balanced``: round-robin across the seven tasks), 5 answers each, and
asks whether the 95% percentile bootstrap intervals of the two means (resampling questions)
are disjoint. It prints, per pair, the smallest q that separates them, which is where the
profile's standard size for jcq/ttct comes from (see creval.evaluation.profile.battery).

    .venv/bin/python bench/profile_sizes.py [--resamples 2000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from creval.benchmarks.ttct.judgements import load_jcq_judgements
from creval.benchmarks.ttct.questions import TASKS, Question, balanced

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "jcq" / "judgements_gpt-4o-2024-08-06"
TABLE3 = [("calm3-22b-chat", 3.76), ("gpt-4o-2024-08-06", 3.64),
          ("claude-3-5-sonnet-20241022", 3.48), ("llm-jp-3-13b-instruct", 3.41),
          ("Llama-3.1-Swallow-8B-Instruct-v0.1", 3.12)]
SIZES = [7, 14, 21, 35, 49, 70, 105, 140, 210, 280, 350, 490, 700]
CRITERIA = ("fluency", "flexibility", "originality", "elaboration")


def question_means(model: str) -> dict[int, list[float]]:
    """Question id -> the mean of the four criteria of each of its parsed answers."""
    rows = load_jcq_judgements(DATA / f"{model}.jsonl", parser="upstream")
    out: dict[int, list[float]] = {}
    for row in rows:
        out.setdefault(int(row["question_id"]), []).append(
            sum(float(row[c]) for c in CRITERIA) / len(CRITERIA))
    return out


def interval(per_question: list[list[float]], resamples: int, rng: np.random.Generator) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean over answers, resampling questions."""
    sums = np.array([sum(v) for v in per_question])
    counts = np.array([len(v) for v in per_question])
    picks = rng.integers(0, len(per_question), size=(resamples, len(per_question)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"{DATA} is absent: this analysis reads ../shared/data in place.", file=sys.stderr)
        return 2
    order = [Question(id=i, task=TASKS[(i - 1) // 100], question="") for i in range(1, 701)]
    means = {m: question_means(m) for m, _ in TABLE3}
    overall = {m: float(np.mean([x for v in means[m].values() for x in v])) for m, _ in TABLE3}
    print("pair                                          | gap (Table 3 / released) | questions that separate")
    for (a, ma), (b, mb) in zip(TABLE3, TABLE3[1:], strict=False):
        found = None
        for q in SIZES:
            ids = [x.id for x in balanced(order, q)]
            rng = np.random.default_rng(0)
            lo_a, hi_a = interval([means[a][i] for i in ids if i in means[a]], args.resamples, rng)
            lo_b, hi_b = interval([means[b][i] for i in ids if i in means[b]], args.resamples, rng)
            if lo_a > hi_b or lo_b > hi_a:
                found = q
                break
        print(f"{a[:20]:20} vs {b[:20]:20} | {ma - mb:.2f} / {overall[a] - overall[b]:.2f}"
              f"              | "
              f"{found if found is not None else 'not within 700'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
