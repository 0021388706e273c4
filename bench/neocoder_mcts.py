"""NeoCoder MCTS against sampling at the same budget: requests and sandbox runs per problem (issue 13).

Runs ``neocoder`` twice on the starter set with the offline default model, once with
``--strategy sampling`` and once with ``--strategy mcts``, both with ``--k K`` (K programs
generated per problem and state: the same budget). Techniques come from the static detector,
so every request counted is the tested model's. Per problem (one answered state each) it
reports the requests sent, the programs generated, and the sandbox executions (one per
example test of each judged program): MCTS judges its rollouts while searching and its
answer when scored, sampling judges its K answers when scored. The named baseline is the
sampling run; the ratios MCTS / sampling come from the same invocation.

    .venv/bin/python bench/neocoder_mcts.py                    # 3 problems, K=4: a few minutes
    .venv/bin/python bench/neocoder_mcts.py --problems 2 --k 6
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import creval
from creval.benchmarks.neocoder.benchmark import starter_dir
from creval.benchmarks.neocoder.data import load_neocoder
from creval.benchmarks.neocoder.extract import extract_program
from creval.reader import read_run


def _costs(run_dir: Path) -> dict[str, Any]:
    """Per unit: requests, programs generated, sandbox runs (search + scoring); the run's pass@1."""
    run = read_run(run_dir)
    dataset = load_neocoder(starter_dir())
    units = [r for r in run.records if r.status == "ok"]
    requests = generated = sandbox = with_code = continued = kept = 0
    for record in units:
        tests = len(dataset.tests_for(str(record.unit["problem_id"])))
        calls = [c for c in record.calls if c.get("role") == "target"]
        requests += len(calls)
        search = record.output.get("search")
        generated += search["generated"] if search else len(record.output["answers"])
        answers = record.output["answers"]
        with_code += search["programs_judged"] if search else len({extract_program(a) for a in answers} - {None})
        below_root = [t for t in record.output.get("trace") or [] if t.get("depth", 0) > 0]
        continued += len(below_root)
        kept += sum(bool(t.get("kept_prefix")) for t in below_root)
        sandbox += search["sandbox_runs"] if search else 0
        sandbox += tests * sum(extract_program(a) is not None for a in record.output["answers"])
    n = max(1, len(units))
    states = getattr(run.scores, "states", None) or [{}]
    state = states[0]
    return {"units": len(units), "requests": requests / n, "generated": generated / n,
            "sandbox": sandbox / n, "with_code": with_code / n,
            "kept": f"{kept}/{continued}" if continued else "-", "pass_at_1": state.get("pass_at_1"),
            "pass_at_k": state.get("pass_at_k", state.get("pass_at_1"))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=3, help="starter problems (state 0 of each)")
    parser.add_argument("--k", type=int, default=4, help="programs generated per problem (the budget)")
    parser.add_argument("--max-tokens", type=int, default=200)
    parser.add_argument("--temperature", type=float, default=0.3,
                        help="below the paper's 1: SmolLM2-135M writes no code at 1")
    parser.add_argument("--model", default="local")
    args = parser.parse_args()

    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for strategy in ("sampling", "mcts"):
            started = time.perf_counter()
            out = Path(tmp) / strategy
            creval.evaluate("neocoder", model=args.model, out=out, limit=args.problems, states="0",
                            strategy=strategy, k=args.k, detector="static", max_tokens=args.max_tokens,
                            temperature=args.temperature, cache=False)
            rows[strategy] = {**_costs(out), "seconds": time.perf_counter() - started}
    print(f"neocoder on {args.model}: {args.problems} problem(s) at state 0, budget k={args.k} programs, "
          f"temperature {args.temperature}")
    print("| strategy | units | requests / problem | programs / problem | distinct programs with code "
          "/ problem | sandbox runs / problem | continuations that kept the prefix | pass@1 "
          "| best of k passes | seconds |")
    print("|" + " --- |" * 10)
    for strategy, r in rows.items():
        print(f"| {strategy} | {r['units']} | {r['requests']:.1f} | {r['generated']:.1f} | "
              f"{r['with_code']:.1f} | {r['sandbox']:.1f} | {r['kept']} | {r['pass_at_1']} | "
              f"{r['pass_at_k']} | {r['seconds']:.0f} |")
    base, mcts = rows["sampling"], rows["mcts"]
    print(f"MCTS / sampling: requests x{mcts['requests'] / max(base['requests'], 1e-9):.2f}, "
          f"sandbox runs x{mcts['sandbox'] / max(base['sandbox'], 1e-9):.2f}, "
          f"wall time x{mcts['seconds'] / max(base['seconds'], 1e-9):.2f}")


if __name__ == "__main__":
    main()
