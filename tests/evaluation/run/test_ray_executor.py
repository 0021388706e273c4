"""``--executor ray`` end to end on a real local Ray cluster and the packaged local model.

The cluster runs in a process of its own (started here, stopped in teardown); every ``creval
run`` is a separate driver process that connects to it, so a driver can be killed with
SIGKILL mid-run and run again. NeoCoder's sandbox executions run on the cluster's workers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests._cli import creval
from tests._ray import RayHead, token_env

pytestmark = [pytest.mark.slow, pytest.mark.unverified_runs("its module fixture writes a hand-made NeoCoder run (a program added to the records) as a replay source, shared by the tests of this module")]

CREVAL = [sys.executable, "-m", "creval.cli"]
# 32-token answers: nothing here reads them, only where they were made and that both
# executors give the same; one answer at a time per worker, so that the first records of
# answers cut at the same length do not all land at once before the driver is killed
DAT = ["dat", "--trials", "5", "--max-tokens", "32", "--concurrency", "1"]
NEOCODER = ["neocoder", "--limit", "1", "--states", "0", "--max-tokens", "32", "--detector",
            "static"]
#: An answer with a program, for a replayed run (the packaged 135M model writes prose)
PROGRAM = "Read and echo:\n```python\ndef solve():\n    print(input())\n\nsolve()\n```\n"

@pytest.fixture(scope="module")
def cluster(ray_head: RayHead) -> Iterator[str]:
    """The session's local Ray cluster of 2 CPUs in a process of ours (token authentication,
    its token in this process's environment for the module): its address."""
    with token_env(ray_head) as address:
        yield address


def _cmd(*args: str) -> list[str]:
    return [*CREVAL, "run", *args, "--model", "local", "--no-progress", "--allow-no-score"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _run_here(*args: str) -> None:
    """A run with the default executor, in this process: no interpreter start (the Ray
    drivers stay processes of their own, one of them to be killed)."""
    done = creval(*args)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]


def _records(out: Path) -> list[dict[str, Any]]:
    text = (out / "records.jsonl").read_text() if (out / "records.jsonl").exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.strip().endswith("}")]


def _invocations(out: Path) -> list[dict[str, Any]]:
    """The invocations that ended (their closing lines): each also logs an opening line before
    it runs, which is all a killed one leaves."""
    lines = [json.loads(line) for line in (out / "invocations.jsonl").read_text().splitlines()]
    return [entry for entry in lines if "opened" not in entry]


def _scores(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "scores.json").read_text()))


def _requests(invocation: dict[str, Any]) -> int:
    return sum(int(m.get("requests", 0)) for m in invocation["models"].values())


@pytest.fixture(scope="module")
def runs(cluster: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """dat under Ray with its driver killed mid-run and run again; neocoder under Ray; then
    both with the default executor and the same response cache (the same answers)."""
    root = tmp_path_factory.mktemp("ray_runs")
    cache = str(root / "cache.sqlite")
    ray = ["--executor", "ray", "--ray-address", cluster, "--cache", cache]
    dat = root / "ray" / "dat"
    driver = subprocess.Popen([*_cmd(*DAT), *ray, "--out", str(dat)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    while not _records(dat) and driver.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    assert driver.returncode == -signal.SIGKILL, "the driver ended before it could be killed"
    before = _records(dat)
    _run(*_cmd(*DAT)[3:], *ray, "--out", str(dat))
    neocoder = root / "ray" / "neocoder"
    _run(*_cmd(*NEOCODER)[3:], *ray, "--out", str(neocoder))
    scored = _scores(neocoder)  # the scoring ran the sandbox; a rerun reuses these scores
    _run(*_cmd(*NEOCODER)[3:], *ray, "--out", str(neocoder))  # resumes: nothing left to ask
    local = root / "local"  # the default executor: dat/ and neocoder/ below it
    for args in (DAT, NEOCODER):  # (dat's --limit would cap its trials)
        _run_here(*_cmd(*args)[3:], "--cache", cache, "--out", str(local / args[0]))
    coded = _with_program(neocoder, root / "coded")
    code_runs = {}
    for name in ("ray", "local"):
        code_runs[name] = root / f"code-{name}"
        (_run if name == "ray" else _run_here)(
            "run", *NEOCODER, "--model", f"replay:{coded}", "--no-progress", "--executor",
            name, *(["--ray-address", cluster] if name == "ray" else []),
            "--out", str(code_runs[name]))
    return {"root": root, "cache": cache, "dat": dat, "neocoder": neocoder, "local": local,
            "before_kill": before, "neocoder_first_scores": scored, "code": code_runs}


def _with_program(run: Path, out: Path) -> Path:
    """A copy of ``run`` whose target answers are :data:`PROGRAM`, to replay."""
    out.mkdir()
    (out / "manifest.json").write_text((run / "manifest.json").read_text())
    lines = []
    for record in _records(run):
        for call in record["calls"]:
            for completion in call["completions"] if call["role"] == "target" else []:
                completion["text"] = PROGRAM
        lines.append(json.dumps(record))
    (out / "records.jsonl").write_text("\n".join(lines) + "\n")
    return out


def test_a_killed_driver_resumes_with_every_unit_once_and_no_request_for_finished_ones(
        runs: dict[str, Any]) -> None:
    dat, before = runs["dat"], runs["before_kill"]
    assert 1 <= len(before) < 5  # killed mid-run
    records = _records(dat)
    keys = [r["key"] for r in records]
    assert len(keys) == len(set(keys)) == 5  # every unit once
    assert all(r["status"] == "ok" for r in records)
    assert keys[:len(before)] == [r["key"] for r in before]  # finished ones not run again
    (rerun,) = _invocations(dat)  # the killed driver did not end; the rerun did
    assert rerun["pending"] == 5 - len(before) and rerun["units_ok"] == 5 - len(before)
    assert rerun["executor"]["executor"] == "ray"
    manifest = json.loads((dat / "manifest.json").read_text())
    assert manifest["executor"]["executor"] == "ray" and manifest["executor"]["workers"] == 2


def test_sandbox_executions_run_on_the_workers_and_a_rerun_asks_nothing(
        runs: dict[str, Any]) -> None:
    neocoder = runs["neocoder"]
    assert runs["neocoder_first_scores"]["usage"]["executor"]["executor"] == "ray"
    assert _scores(neocoder)["usage"]["executor"]["tasks"] == 0  # the rerun scored nothing anew
    on_ray, local = (_scores(runs["code"][name]) for name in ("ray", "local"))
    where = on_ray["usage"]["executor"]
    assert where["executor"] == "ray" and where["tasks"] >= 1  # sandbox chunks as Ray tasks
    assert where["per_worker"] and sum(where["per_worker"].values()) == where["tasks"]
    assert local["usage"]["executor"]["executor"] == "local"
    assert on_ray["table"] == local["table"] and on_ray["headline"] == local["headline"]
    verdicts = [row["verdict"] for row in on_ray["table"]]
    assert verdicts and "no_program" not in verdicts  # the program ran in the sandbox
    first, second = _invocations(neocoder)
    assert first["units_ok"] >= 1 and _requests(first) >= 1
    assert second["pending"] == 0 and _requests(second) == 0
    assert "Executor of this invocation: ray" in (neocoder / "report.md").read_text()


@pytest.mark.parametrize("bench", ["dat", "neocoder"])
def test_scores_equal_those_of_the_default_executor(runs: dict[str, Any], bench: str) -> None:
    on_ray, local = _scores(runs[bench]), _scores(runs["local"] / bench)
    assert local["usage"]["executor"]["executor"] == "local"
    for key in ("headline", "per_item", "table"):
        assert on_ray.get(key) == local.get(key), key


def test_one_command_runs_a_grid_of_two_models_and_two_benchmarks_on_ray(
        runs: dict[str, Any], cluster: str) -> None:
    grid = runs["root"] / "grid"
    replay = f"replay:{runs['local']}"  # one folder per benchmark: replays local/BENCH
    driver = subprocess.Popen(
        [*CREVAL, "run", "dat", "neocoder", "--trials", "5", "--limit", "1", "--states", "0",
         "--max-tokens", "32", "--detector", "static", "--model", "local", "--model", replay,
         "--no-progress", "--allow-no-score", "--cache", runs["cache"], "--executor", "ray", "--ray-address",
         cluster, "--out", str(grid)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, stderr = driver.communicate(timeout=600)
    assert driver.returncode == 0, stderr[-3000:]
    dirs = sorted(p.parent for p in grid.glob("*/*/scores.json"))
    assert [(d.parent.name, d.name) for d in dirs] == [
        ("local", "dat"), ("local", "neocoder"),
        (dirs[2].parent.name, "dat"), (dirs[2].parent.name, "neocoder")]
    assert dirs[2].parent.name.startswith("replay-")
    for d in dirs:
        manifest = json.loads((d / "manifest.json").read_text())
        assert manifest["executor"]["executor"] == "ray"
        assert "--model" in manifest["command"]  # the driver's command, not the worker's
        (invocation,) = _invocations(d)
        assert invocation["process"]["pid"] != driver.pid  # each run ran in a Ray worker
    for mine, replayed in zip(dirs[:2], dirs[2:], strict=True):  # the same answers
        assert _scores(mine)["headline"] == _scores(replayed)["headline"], mine.name
    board = creval("compare", *map(str, dirs))  # reads the runs: in this process
    assert board.returncode == 0, board.stderr
    assert "## dat" in board.stdout and "## neocoder" in board.stdout


def test_evaluate_takes_the_executor_and_several_models(
        runs: dict[str, Any], cluster: str, tmp_path: Path) -> None:
    """``creval.evaluate(..., executor="ray")`` from Python: two replayed models as a grid of
    Ray tasks, each result with its model, the scores those of the replayed run. (In a
    process of its own: Ray keeps one authentication token per process.)"""
    recorded = runs["local"] / "dat"
    twin = tmp_path / "twin"
    twin.mkdir()
    for name in ("records.jsonl", "manifest.json"):
        (twin / name).write_text((recorded / name).read_text())
    models = [f"replay:{recorded}", f"replay:{twin}"]
    script = (
        "import json, sys, creval\n"
        "result = creval.evaluate('dat', models=sys.argv[1:3], executor='ray',\n"
        "                         ray_address=sys.argv[3], out=sys.argv[4], cache=False)\n"
        "print(json.dumps([{'model': r.model, 'ok': r.ok, 'out': str(r.out),\n"
        "                   'headline': r.scores.headline,\n"
        "                   'executor': r.scores.usage['executor']} for r in result]))\n")
    done = subprocess.run([sys.executable, "-c", script, *models, cluster, str(tmp_path / "grid")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert [r["model"] for r in result] == models
    for one in result:
        assert one["ok"] and Path(one["out"]).parent.parent == tmp_path / "grid"
        assert one["executor"]["executor"] == "ray"
        assert one["headline"] == _scores(recorded)["headline"]
