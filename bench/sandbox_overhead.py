"""Sandbox overhead: executions per second of ``creval.sandbox.run`` vs a bare subprocess.

Every side runs the same trivial program, ``print(input())``, with the same stdin, one
execution after another; rounds alternate between the sides and medians are compared.
Baselines: ``subprocess.run([sys.executable, "-c", PROGRAM])`` (the goal's reference) and
the same with ``-I -S`` (the interpreter flags the sandbox itself uses). Goal: the sandbox
takes at most 1.5x the time of the reference. Each isolation level is measured through the
long-lived spawner (the default) and through a per-run launcher (``CREVAL_SANDBOX_SPAWNER=0``,
the fallback). Also: ``run_many`` throughput with one worker per CPU vs one execution at a time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from creval.sandbox import Job, Verdict, run, run_many
from creval.sandbox.isolation import probe
from creval.sandbox.spawner import DISABLE_ENV, spawner_pid

PROGRAM = "print(input())"
STDIN = "hello\n"


def bare(flags: list[str]) -> Callable[[], None]:
    def once() -> None:
        done = subprocess.run([sys.executable, *flags, "-c", PROGRAM], input=STDIN.encode(),
                              capture_output=True, check=True)
        assert done.stdout == b"hello\n"
    return once


def sandboxed(isolation: str, python: str | None, via: str) -> Callable[[], None]:
    def once() -> None:
        os.environ[DISABLE_ENV] = "1" if via == "spawner" else "0"
        try:
            result = run(PROGRAM, stdin=STDIN, isolation=isolation, python=python)  # type: ignore[arg-type]
        finally:
            os.environ.pop(DISABLE_ENV)
        assert result.verdict is Verdict.OK and result.stdout == "hello\n", result
        assert result.launched_by == via, result
    return once


def per_second(action: Callable[[], None], count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        action()
    return count / (time.perf_counter() - start)


def cpu_ms_per_execution(action: Callable[[], None], count: int, spawned: bool) -> float:
    """CPU time (user + system) of the processes one execution starts, in ms.

    Bare: this process's reaped children. Sandbox: the spawner and every process it reaped
    (launchers, which waited for the sandbox's init and program). Not counted: kernel work
    done outside these processes (e.g. network namespaces freed by a kernel worker).
    """
    def used() -> float:
        if not spawned:
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            return usage.ru_utime + usage.ru_stime
        pid = spawner_pid()
        assert pid is not None
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    action()  # the spawner runs before the first reading
    before = used()
    for _ in range(count):
        action()
    time.sleep(0.5)  # the last launchers finish tearing down and are reaped
    return (used() - before) / count * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--executions", type=int, default=50, help="Per side and round.")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--many", type=int, default=200, help="Jobs for the run_many measurement.")
    args = parser.parse_args()

    sides: dict[str, Callable[[], None]] = {
        "bare `python -c`": bare([]),
        "bare `python -I -S -c`": bare(["-I", "-S"]),
    }
    for level in ("namespace", "process"):
        python = None if not probe(level) else "/usr/bin/python3"
        if python is not None and probe(level, python):
            print(f"{level} isolation does not work here: skipped")
            continue
        for via in ("spawner", "launcher"):
            label = f"sandbox {level}, {via}" + (f" (python={python})" if python else "")
            sides[label] = sandboxed(level, python, via)
    for action in sides.values():
        action()  # warm up (and run the isolation probes)
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, action in sides.items():
            rates[name].append(per_second(action, args.executions))
    reference = statistics.median(rates["bare `python -c`"])
    print(f"{args.rounds} rounds x {args.executions} executions, {os.cpu_count()} CPUs\n")
    print("| side | executions/s (median) | ms per execution | time vs `python -c` |")
    print("| --- | --- | --- | --- |")
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"| {name} | {rate:.1f} | {1000 / rate:.1f} | {reference / rate:.2f}x |")

    print("\nCPU per execution (all processes it starts; load-independent):")
    for name, action in sides.items():
        if name.startswith("bare") or ", spawner" in name:
            spent = cpu_ms_per_execution(action, args.executions * 2, not name.startswith("bare"))
            print(f"- {name}: {spent:.1f} ms")

    jobs = [Job(PROGRAM, stdin=STDIN)] * args.many
    start = time.perf_counter()
    results = run_many(jobs)
    many_rate = args.many / (time.perf_counter() - start)
    assert all(r.stdout == "hello\n" for r in results)
    serial = statistics.median(rates[next(n for n in rates if n.startswith("sandbox"))])
    print(f"\nrun_many: {args.many} jobs, {os.cpu_count()} workers: {many_rate:.1f} executions/s "
          f"({many_rate / serial:.2f}x one at a time; isolation {results[0].isolation})")


if __name__ == "__main__":
    main()
