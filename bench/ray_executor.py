"""The Ray executor against the local one (issue 20): sandbox-heavy and embedding-heavy
scoring with 1 and 2 Ray workers, Ray's fixed cost on a 10-unit run, and where the time goes.

In one run, in alternating rounds (medians compared):

* **sandbox**: NeoCoder's default judge (``judge_many``, one sandboxed run per test case) of
  the first ``--codes`` shipped GPT-4 codes of ``NeoCoder.json``, under the local executor
  (the baseline: this process, both cores through the sandbox's own thread pool) and under
  Ray with 1 and 2 workers (``run_programs`` sends chunks of jobs as Ray tasks). The
  verdicts must be equal in all three.
* **embedding**: SAT's scoring (``rewrite_distances``: minilm embeddings of originals and
  rewrites in chunks of 256, routed to actors by ``map_with``) of ``--pairs`` synthetic
  pairs; the distances must be equal (to 1e-5) in all three. Each round builds a fresh
  executor, so Ray's "cold" figure includes actor start and model load; "warm" is the same
  call again on the same actors. The local executor's model stays loaded in this process
  after the first round (``get_embedder`` keeps it), so its cold and warm are the work.
* **fixed cost**: ``creval run dat --model local --trials 10`` (a warm response cache, so
  the model costs ~0) as a child process into a fresh ``--out``: the default executor,
  ``--executor ray`` (Ray started for the run), ``--executor ray --ray-address`` (a running
  cluster).

The Ray cluster the sandbox and embedding rounds use is a head of ours
(``tests/_ray.RayHead``, 2 CPUs), stopped by PID in a ``finally``; a child run that
starts Ray gets a process group of its own, and whatever of it is left afterwards is
counted and killed by that group. At the end ``pgrep -af ray`` must list nothing of ours.

    .venv/bin/python bench/ray_executor.py --codes 300 --pairs 512 --rounds 3 \
        --json /tmp/ray_executor.json   # ~15 min on 2 shared cores
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from creval.runner.executors import Executor, get_executor, using_executor

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "neocoder"
CREVAL = str(Path(sys.executable).with_name("creval"))


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def sandbox_items(data: Path, codes: int) -> list[tuple[str | None, list[Any]]]:
    """``(program, tests)`` of the first ``codes`` shipped GPT-4 codes (problem order)."""
    from creval.benchmarks.neocoder.data import load_neocoder
    from creval.benchmarks.neocoder.extract import extract_program

    dataset = load_neocoder(data)
    pairs = [(p.problem_id, c) for p in dataset.problems for c in (p.codes or [])][:codes]
    return [(extract_program(code or ""), dataset.tests_for(pid)) for pid, code in pairs]


def judge(items: list[tuple[str | None, list[Any]]]) -> list[tuple[str, ...]]:
    """Per code, the verdict of each test."""
    from creval.benchmarks.neocoder.judge import judge_many

    return [tuple(t.verdict.value for t in r.tests) for r in judge_many(items)]


def story_pairs(n: int) -> list[tuple[str, str]]:
    """``n`` deterministic (original, rewrite) pairs of ~40-60 words each."""
    words = ["fox", "wolf", "princess", "castle", "forest", "river", "king", "witch", "bread",
             "mirror", "stone", "tower", "phone", "subway", "office", "laptop", "coffee", "rent",
             "startup", "email", "city", "apartment"]
    pairs = []
    for i in range(n):
        a = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(40 + i % 20))
        b = " ".join(words[(i * 5 + j * 11) % len(words)] for j in range(45 + i % 15))
        pairs.append((f"Once upon a time {a}.", f"Nowadays {b}."))
    return pairs


def embed(pairs: list[tuple[str, str]]) -> list[float]:
    from creval.benchmarks.sat import SATOptions, rewrite_distances

    return rewrite_distances(pairs, SATOptions())[0]


def _noop(x: int) -> int:
    return x


def _threads(_: object) -> dict[str, Any]:
    import torch

    return {"pid": os.getpid(), "torch_threads": torch.get_num_threads(),
            "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def make(config: str) -> Executor:
    return get_executor("local") if config == "local" else get_executor("ray", workers=int(config[-1]))


CONFIGS = ("local", "ray1", "ray2")


def compare(rounds: list[dict[str, float]], key: str) -> dict[str, dict[str, float]]:
    """Median of ``key`` per config and the ratio local / config."""
    med = {c: statistics.median(r[c][key] for r in rounds) for c in CONFIGS}  # type: ignore[index]
    return {c: {"median_s": round(med[c], 3), "ratio": round(med["local"] / med[c], 3)}
            for c in CONFIGS}


def heavy_rounds(args: argparse.Namespace, out: dict[str, Any]) -> None:
    """The sandbox and embedding rounds against our head (already connected)."""
    items = sandbox_items(args.data, args.codes)
    jobs = sum(len(t) for p, t in items if p is not None)
    pairs = story_pairs(args.pairs)
    out["sandbox_codes"], out["sandbox_executions"], out["pairs"] = len(items), jobs, len(pairs)
    # warm-up: the embedder in this process, Ray's worker processes, the sandbox spawner
    timed(lambda: embed(pairs[:8]))
    verdicts: dict[str, Any] = {}
    distances: dict[str, list[float]] = {}
    sandbox: list[dict[str, Any]] = []
    embedding: list[dict[str, Any]] = []
    overhead: list[dict[str, Any]] = []
    for rnd in range(args.rounds):
        order = CONFIGS if rnd % 2 == 0 else CONFIGS[::-1]
        srow: dict[str, Any] = {}
        erow: dict[str, Any] = {}
        for config in order:
            ex = make(config)
            try:
                with using_executor(ex):
                    before = load()
                    wall, got = timed(lambda: judge(items))
                    srow[config] = {"wall": wall, "load": [before, load()],
                                    "tasks": ex.describe()["tasks"]}
                    if verdicts.setdefault("ref", got) != got:
                        raise AssertionError(f"sandbox verdicts differ under {config}")
                    print(f"round {rnd} sandbox {config}: {wall:.1f} s", flush=True)
            finally:
                ex.close()
            ex = make(config)
            try:
                with using_executor(ex):
                    before = load()
                    cold, got = timed(lambda: embed(pairs))
                    warm, again = timed(lambda: embed(pairs))
                    erow[config] = {"cold": cold, "warm": warm, "load": [before, load()],
                                    "per_worker": ex.describe()["per_worker"]}
                    ref = distances.setdefault("ref", got)
                    if any(abs(a - b) > 1e-5 for run in (got, again)
                           for a, b in zip(ref, run, strict=True)):
                        raise AssertionError(f"embedding distances differ under {config}")
                    if config != "local":
                        t_map, _ = timed(functools.partial(ex.map, _noop, list(range(100))))
                        overhead.append({"config": config, "map_noop_ms_per_task": 10 * t_map})
                        if rnd == 0:
                            out.setdefault("worker_threads", {})[config] = ex.map(_threads, [0, 1])
                    print(f"round {rnd} embedding {config}: cold {cold:.1f} s, warm {warm:.1f} s",
                          flush=True)
            finally:
                ex.close()
        sandbox.append(srow)
        embedding.append(erow)
    out["local_torch_threads"] = _threads(None)
    out["sandbox_rounds"], out["embedding_rounds"] = sandbox, embedding
    out["sandbox"] = compare(sandbox, "wall")
    out["embedding_warm"] = compare(embedding, "warm")
    out["embedding_cold"] = compare(embedding, "cold")
    out["task_overhead_ms"] = {c: round(statistics.median(o["map_noop_ms_per_task"]
                                                          for o in overhead if o["config"] == c), 2)
                               for c in ("ray1", "ray2")}


def creval_run(executor: str, out: Path, env: dict[str, str], address: str | None
               ) -> dict[str, Any]:
    """``creval run dat --model local --trials 10`` as a child in a process group of its own;
    what of that group is left once it has exited is counted, then killed."""
    cmd = [CREVAL, "run", "dat", "--model", "local", "--trials", "10", "--out", str(out)]
    if executor == "ray":
        cmd += ["--executor", "ray"] + (["--ray-address", address] if address else [])
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    stdout, stderr = proc.communicate(timeout=600)
    wall = time.perf_counter() - start
    if proc.returncode != 0 or "10 cache hit(s)" not in stdout + stderr:
        raise AssertionError(f"{' '.join(cmd)} failed or missed the cache:\n{stdout}\n{stderr}")
    time.sleep(1.0)
    left = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True).stdout.split()
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
    return {"wall": wall, "left_behind": len(left)}


def fixed_cost(args: argparse.Namespace, address: str, head_env: dict[str, str],
               plain_env: dict[str, str], out: dict[str, Any]) -> None:
    base = Path(tempfile.mkdtemp(prefix="ray_bench_"))
    try:
        creval_run("local", base / "warm", plain_env, None)  # the response cache is warm after
        cases = {"local": (plain_env, None), "ray_started": (plain_env, None),
                 "ray_connect": (head_env, address)}
        rows: list[dict[str, Any]] = []
        for rnd in range(args.rounds):
            row = {}
            for i, (case, (env, addr)) in enumerate(cases.items()):
                before = load()
                got = creval_run("local" if case == "local" else "ray", base / f"{case}{rnd}{i}", env, addr)
                row[case] = {**got, "load": [before, load()]}
                print(f"round {rnd} fixed cost {case}: {got['wall']:.2f} s, "
                      f"{got['left_behind']} process(es) left behind", flush=True)
            rows.append(row)
        out["fixed_rounds"] = rows
        out["fixed"] = {c: {"median_s": round(statistics.median(r[c]["wall"] for r in rows), 2),
                            "left_behind": [r[c]["left_behind"] for r in rows]} for c in cases}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def ours(pids: set[int]) -> list[str]:
    """``pgrep -af ray`` lines of processes not seen before the bench (other jobs' are)."""
    lines = subprocess.run(["pgrep", "-af", "ray"], capture_output=True, text=True).stdout.splitlines()
    return [ln for ln in lines if int(ln.split()[0]) not in pids and "pgrep" not in ln
            and "ray_executor.py" not in ln]


def table(out: dict[str, Any]) -> None:
    print(f"\nsandbox: {out['sandbox_codes']} codes, {out['sandbox_executions']} executions; "
          f"embedding: {out['pairs']} pairs ({2 * out['pairs']} texts)")
    print(f"{'config':<8}{'sandbox s':>11}{'ratio':>8}{'embed warm s':>14}{'ratio':>8}"
          f"{'embed cold s':>14}{'ratio':>8}")
    for c in CONFIGS:
        s, w, k = out["sandbox"][c], out["embedding_warm"][c], out["embedding_cold"][c]
        print(f"{c:<8}{s['median_s']:>11.2f}{s['ratio']:>8.3f}{w['median_s']:>14.2f}"
              f"{w['ratio']:>8.3f}{k['median_s']:>14.2f}{k['ratio']:>8.3f}")
    print(f"Ray task overhead (map of a no-op, ms per task): {out['task_overhead_ms']}")
    print(f"head start {out['head_start_s']:.2f} s, driver connect {out['connect_s']:.2f} s")
    if "fixed" in out:
        print("10-unit dat run (warm cache), median s:",
              {c: v["median_s"] for c, v in out["fixed"].items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--codes", type=int, default=300, help="NeoCoder codes to judge")
    parser.add_argument("--pairs", type=int, default=512, help="SAT (original, rewrite) pairs")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--skip-fixed", action="store_true", help="no 10-unit dat runs")
    parser.add_argument("--json", type=Path, default=Path("ray_executor.json"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from _ray import RayHead

    before_pids = {int(ln.split()[0]) for ln in subprocess.run(
        ["pgrep", "-af", "ray"], capture_output=True, text=True).stdout.splitlines()}
    plain_env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS",)}
    out: dict[str, Any] = {"command": " ".join([Path(sys.executable).name, *sys.argv]),
                           "load_start": list(os.getloadavg()),
                           "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    head: Any = None
    ray: Any = None
    try:
        out["head_start_s"], head = timed(functools.partial(RayHead, cpus=2))
        # Ray reads its token once per process: set it before Ray is imported
        os.environ.update({k: head.env[k] for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")})
        import ray
        out["connect_s"], _ = timed(lambda: ray.init(address=head.address, log_to_driver=False,
                                                     configure_logging=False))
        heavy_rounds(args, out)
        if not args.skip_fixed:
            fixed_cost(args, head.address, head.env, plain_env, out)
    finally:
        if ray is not None and ray.is_initialized():
            ray.shutdown()
        if head is not None:
            head.stop()
    time.sleep(2.0)
    out["left_after"] = ours(before_pids)
    out["load_end"] = list(os.getloadavg())
    out["ended"] = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    args.json.write_text(json.dumps(out, indent=1))
    table(out)
    print(f"load {out['load_start'][0]:.1f} -> {out['load_end'][0]:.1f}; "
          f"Ray processes of ours left: {out['left_after'] or 'none'}; JSON: {args.json}")


if __name__ == "__main__":
    main()
