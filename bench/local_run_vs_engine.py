"""A whole ``creval run`` on the local model beside bare llama-cpp-python answering the
run's own requests, as a ratio in one invocation (issue 36).

Sides, each a process of its own started by this script and timed from start to exit:

* ``creval``: ``creval run BENCHMARK --model local --no-cache ...`` into a fresh
  folder: interpreter start, imports, model load, the units, scoring, the report. The options
  are this script's ``--threads``/``--replicas``/``--concurrency`` (``default`` leaves one out,
  so the backend's own default applies).
* ``bare``: a plain Python loop (``--bare-replay``) that imports llama-cpp-python, loads the
  same GGUF with ``--bare-threads`` threads and answers the very requests the first creval run
  recorded in its ``records.jsonl`` (messages, ``max_tokens``, temperature, top-p, stop
  strings, the sample's seed, the response schema) one after another with
  ``create_chat_completion``, as llama-cpp-python is used by default: the prompt's KV cache of
  the previous call is reused where the prompts share a prefix (``--bare-reset`` evaluates
  every prompt afresh instead, as creval's engine does).

The bare loop must give the recorded texts (same engine, same seeds): a NOTE is printed
otherwise. Rounds interleave the sides (the order alternates) to be robust to other jobs on a
shared machine; the load average is printed around each round. Ratios: bare's median time
over creval's (1.0: creval costs what the engine costs), for the whole process and for bare's
generation alone (its import and load left out: the stricter ratio).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: the ``creval`` command, with this interpreter (``creval`` has no ``__main__``)
CLI = "import sys; from creval.cli import main; sys.argv[0] = 'creval'; sys.exit(main())"


def creval_command(args: argparse.Namespace, out: Path) -> list[str]:
    command = [sys.executable, "-c", CLI, "run", args.benchmark, "--model", "local",
               "--no-cache", "--out", str(out), *args.extra.split()]
    for flag, value in (("--threads", args.threads), ("--replicas", args.replicas),
                        ("--concurrency", args.concurrency)):
        if value != "default":
            command += [flag, value]
    return command


def recorded_calls(out: Path) -> list[dict[str, Any]]:
    """Every model call of the run's records, in the order of the units' keys."""
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines() if line]
    calls = []
    for record in sorted(records, key=lambda r: r["key"]):
        for call in record.get("calls", []):
            if "request" in call:
                calls.append({"request": call["request"], "first_sample": call["first_sample"],
                              "texts": [c.get("text", "") for c in call["completions"]]})
    return calls


def bare_replay(path: Path, threads: int, reset: bool) -> None:
    """The bare side, in a process of its own: prints its timings and texts as JSON."""
    start = time.perf_counter()
    from llama_cpp import Llama

    from creval.models.local import default_model_path  # finds the GGUF; imports nothing heavy

    imported = time.perf_counter()
    calls = json.loads(path.read_text())
    llm = Llama(model_path=str(default_model_path()), n_ctx=4096, n_threads=threads,
                n_threads_batch=threads, verbose=False)
    loaded = time.perf_counter()
    texts = []
    for call in calls:
        request = call["request"]
        messages = [{"role": m["role"], "content": m["content"] if isinstance(m["content"], str)
                     else "".join(p.get("text", "") for p in m["content"])} for m in request["messages"]]
        extra: dict[str, Any] = {}
        if request.get("response_schema") is not None:
            extra["response_format"] = {"type": "json_object", "schema": request["response_schema"]}
        for i in range(request["n"]):  # sample i of the call is sample first_sample + i
            seed = (0 if request["seed"] is None else request["seed"]) + call["first_sample"] + i
            if reset:
                llm.reset()
            response = llm.create_chat_completion(
                messages, temperature=request["temperature"], top_p=request["top_p"], top_k=0,
                min_p=0.0, typical_p=1.0, repeat_penalty=1.0, max_tokens=request["max_tokens"],
                stop=list(request["stop"]), seed=seed, **extra)
            texts.append(response["choices"][0]["message"]["content"] or "")
    done = time.perf_counter()
    print(json.dumps({"import": imported - start, "load": loaded - imported,
                      "generate": done - loaded, "texts": texts}))


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall-clock and CPU seconds (user + system, every thread) of a child process, its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmark", default="dat", help="benchmark to run (default dat)")
    parser.add_argument("--extra", default="--trials 16",
                        help="the benchmark's options for creval run (default '--trials 16')")
    parser.add_argument("--threads", default="2", help="creval's --threads, or 'default' (default 2)")
    parser.add_argument("--replicas", default="default", help="creval's --replicas, or 'default'")
    parser.add_argument("--concurrency", default="1", help="creval's --concurrency, or 'default' (default 1)")
    parser.add_argument("--bare-threads", type=int, default=2, help="bare llama-cpp-python's threads (default 2)")
    parser.add_argument("--bare-reset", action="store_true",
                        help="bare evaluates every prompt afresh (llm.reset() before each call)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of both sides (default 3)")
    parser.add_argument("--bare-replay", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_replay is not None:
        bare_replay(args.bare_replay, args.bare_threads, args.bare_reset)
        return

    env = dict(os.environ)
    folder = Path(tempfile.mkdtemp(prefix="creval-run-vs-engine-"))
    try:
        run(args, env, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run(args: argparse.Namespace, env: dict[str, str], folder: Path) -> None:
    walls: dict[str, list[float]] = {"creval": [], "bare": [], "bare generation": []}
    cpus: dict[str, list[float]] = {"creval": [], "bare": []}
    loads: list[str] = []
    requests_file = folder / "requests.json"
    calls: list[dict[str, Any]] = []
    bare_command = [sys.executable, __file__, "--bare-replay", str(requests_file),
                    "--bare-threads", str(args.bare_threads)] + (["--bare-reset"] if args.bare_reset else [])
    for k in range(args.rounds):
        before = os.getloadavg()[0]
        order = ["creval", "bare"] if k % 2 == 0 or not calls else ["bare", "creval"]
        for side in order:
            if side == "creval":
                out = folder / f"run-{k}"
                wall, cpu, _ = timed(creval_command(args, out), env)
                walls["creval"].append(wall)
                cpus["creval"].append(cpu)
                if not calls:
                    calls = recorded_calls(out)
                    requests_file.write_text(json.dumps(calls))
                shutil.rmtree(out, ignore_errors=True)
            else:
                wall, cpu, stdout = timed(bare_command, env)
                result = json.loads(stdout.strip().splitlines()[-1])
                walls["bare"].append(wall)
                cpus["bare"].append(cpu)
                walls["bare generation"].append(result["generate"])
                expected = [t for c in calls for t in c["texts"]]
                differ = sum(a != b for a, b in zip(result["texts"], expected, strict=True))
                if differ:
                    print(f"NOTE round {k}: {differ} of {len(expected)} bare texts differ from the run's")
        loads.append(f"{before:.2f}-{os.getloadavg()[0]:.2f}")
        print(f"round {k}: creval {walls['creval'][-1]:.2f} s (CPU {cpus['creval'][-1]:.2f} s), "
              f"bare {walls['bare'][-1]:.2f} s (CPU {cpus['bare'][-1]:.2f} s, generation "
              f"{walls['bare generation'][-1]:.2f} s), load {loads[-1]}", flush=True)
    samples = sum(len(c["texts"]) for c in calls)
    creval = statistics.median(walls["creval"])
    bare, generation = statistics.median(walls["bare"]), statistics.median(walls["bare generation"])
    print(f"\n{args.benchmark} {args.extra}: {len(calls)} requests, {samples} samples; creval "
          f"--threads {args.threads} --replicas {args.replicas} --concurrency {args.concurrency}; "
          f"bare {args.bare_threads} threads{', reset' if args.bare_reset else ''}; loads {', '.join(loads)}")
    creval_cpu, bare_cpu = statistics.median(cpus["creval"]), statistics.median(cpus["bare"])
    print("| side | median wall | rounds | ratio bare / creval (wall) | median CPU | ratio (CPU) |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| creval run (whole process) | {creval:.2f} s | {', '.join(f'{w:.1f}' for w in walls['creval'])} "
          f"| | {creval_cpu:.2f} s | |")
    print(f"| bare (whole process) | {bare:.2f} s | {', '.join(f'{w:.1f}' for w in walls['bare'])} "
          f"| **{bare / creval:.3f}** | {bare_cpu:.2f} s | **{bare_cpu / creval_cpu:.3f}** |")
    print(f"| bare (generation only) | {generation:.2f} s | "
          f"{', '.join(f'{w:.1f}' for w in walls['bare generation'])} | **{generation / creval:.3f}** | | |")


if __name__ == "__main__":
    main()
