"""A repeated finished run vs its first run, through the command line.

The first run generates DAT trials with the offline default model into a fresh run
directory and cache; the repeat is the very same command. Goal: the repeat sends zero
model requests and is at least 50x faster.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        env = {**os.environ, "CREVAL_CACHE_DIR": str(Path(tmp) / "cache")}
        cmd = [sys.executable, "-m", "creval.cli", "run", "dat", "--model", "local", "--out",
               str(out), "--trials", str(args.trials), "--no-progress"]
        first = run(cmd, env)
        first_requests = _requests(out)
        repeats = [run(cmd, env) for _ in range(args.repeats)]
        repeat_requests = _requests(out)
    best = min(repeats)
    print(f"DAT, {args.trials} trials, model local (SmolLM2-135M), fresh cache")
    print(f"first run:    {first:.2f}s, {first_requests} model requests")
    print(f"repeated run: {best:.2f}s (best of {args.repeats}: {[round(x, 2) for x in repeats]}), "
          f"{repeat_requests} model requests")
    print(f"speed-up = {first / best:.1f}x (goal >= 50x, zero requests)")


def _requests(out: Path) -> int:
    usage = json.loads((out / "scores.json").read_text())["usage"]["this_invocation"]["models"]
    return sum(int(m.get("requests", 0)) for m in usage.values())


if __name__ == "__main__":
    main()
