"""Judge the 1,194 GPT-4 codes shipped in NeoCoder.json with the default and compat judges.

Prints the wall time of each judge, the number of sandbox executions, pass@1 per state
and, when the reference labels are present, how many compat labels differ from them.

    python bench/neocoder_judge.py [--data ../shared/data/neocoder] [--workers N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from creval.benchmarks.neocoder.compat import judge_compat_many, upstream_program
from creval.benchmarks.neocoder.data import load_neocoder, states
from creval.benchmarks.neocoder.extract import extract_program
from creval.benchmarks.neocoder.judge import judge_many

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "neocoder"


def pass_at_1(dataset, correct: dict[tuple[str, int], bool]) -> list[str]:  # type: ignore[no-untyped-def]
    by_t: dict[int, list[bool]] = {}
    for state in states(dataset):
        if state.problem_id != "1773F":
            by_t.setdefault(state.t, []).append(correct[(state.problem_id, state.round)])
    return [f"{sum(v)}/{len(v)}" for _, v in sorted(by_t.items())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    dataset = load_neocoder(args.data)
    keys = [(p.problem_id, r) for p in dataset.problems for r in range(len(p.codes or []))]
    codes = {(p.problem_id, r): c for p in dataset.problems for r, c in enumerate(p.codes or [])}

    items = [(extract_program(codes[k] or ""), dataset.tests_for(k[0])) for k in keys]
    start = time.perf_counter()
    default = judge_many(items, workers=args.workers)
    default_wall = time.perf_counter() - start
    default_runs = sum(len(tests) for program, tests in items if program is not None)
    default_ok = {k: r.passed for k, r in zip(keys, default, strict=True)}

    assert dataset.tests is not None
    compat_items = [(upstream_program(codes[k], fenced=False), dataset.tests[k[0]].input,
                     dataset.tests[k[0]].output) for k in keys]
    start = time.perf_counter()
    compat = judge_compat_many(compat_items, workers=args.workers)
    compat_wall = time.perf_counter() - start
    compat_ok = {k: r.correct for k, r in zip(keys, compat, strict=True)}

    print(f"{'judge':<9}{'codes':>7}{'runs':>7}{'wall s':>9}  pass@1 per state t=0..5 (no 1773F)")
    print(f"{'default':<9}{len(keys):>7}{default_runs:>7}{default_wall:>9.1f}  "
          f"{' '.join(pass_at_1(dataset, default_ok))}")
    compat_runs = sum(p is not None for p, _, _ in compat_items)
    print(f"{'compat':<9}{len(keys):>7}{compat_runs:>7}{compat_wall:>9.1f}  "
          f"{' '.join(pass_at_1(dataset, compat_ok))}")
    print("default verdicts:", dict(Counter(r.verdict for r in default)))
    print("compat statuses:", dict(Counter(r.status for r in compat)))
    reference = args.data / "reference_outputs" / "gpt4_codes_correctness_repo_judge.json"
    if reference.is_file():
        labels = {(p["problem_id"], r): ok for p in json.loads(reference.read_text())["per_problem"]
                  for r, ok in enumerate(p["correct_repo_judge"])}
        differ = sum(labels[k] != compat_ok[k] for k in keys)
        print(f"compat labels differing from the repository judge's: {differ} of {len(keys)}")


if __name__ == "__main__":
    main()
