"""`creval verify` (replay of every unit against its recorded answers, scores re-derived) vs
scoring the same run (the benchmark's scorer over its records, as `creval run --rescore`
does), both in this process, no model called. Goal (issue 42): verify at most 1.5x the
scoring time.

The runs are made first with the offline default model (`--model local`) into a temporary
directory; each side is then timed `--repeats` times, alternating, and the medians compared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = {
    "dat": ["--trials", "{n}"],
    "sat": ["--limit", "{n}"],
}


def make(bench: str, n: int, out: Path, env: dict[str, str]) -> None:
    extra = [a.format(n=n) for a in RUNS[bench]]
    subprocess.run([sys.executable, "-m", "creval.cli", "run", bench, "--model", "local",
                    "--no-progress", "--out", str(out), *extra], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def score_once(run: Path) -> float:
    """The scorer over the run's records, with the manifest's options (no report written)."""
    import json

    from creval.benchmarks.base import get_benchmark
    from creval.records import RECORDS, latest_records, read_records

    start = time.perf_counter()
    manifest = json.loads((run / "manifest.json").read_text())
    bench = get_benchmark(manifest["benchmark"])
    fields = bench.Options.model_fields
    options = bench.parse_options({k: v for k, v in manifest["options"].items() if k in fields})
    latest = latest_records(read_records(run / RECORDS))
    keys = list(manifest["inputs"]["units"])
    bench.score([latest[k] for k in keys if k in latest], options)
    return time.perf_counter() - start


def verify_once(run: Path) -> float:
    from creval.evaluation.verify.verifying import verify_run

    start = time.perf_counter()
    result = verify_run(run)
    took = time.perf_counter() - start
    if not result.ok:
        raise SystemExit(f"{run} does not verify: {result.differences + result.unverified}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=30, help="DAT trials / SAT stories")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bench", action="append", default=None, choices=sorted(RUNS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CREVAL_CACHE_DIR": str(Path(tmp) / "cache")}
        for bench in args.bench or sorted(RUNS):
            run = Path(tmp) / bench
            make(bench, args.n, run, env)
            score_once(run), verify_once(run)  # warm: embedders and data loaded once
            scored, verified = [], []
            for _ in range(args.repeats):
                scored.append(score_once(run))
                verified.append(verify_once(run))
            s, v = statistics.median(scored), statistics.median(verified)
            print(f"{bench}, {args.n} units, model local: scoring {s:.3f} s, verify {v:.3f} s "
                  f"(medians of {args.repeats}); ratio verify/scoring = {v / s:.2f} (goal <= 1.5)")


if __name__ == "__main__":
    main()
