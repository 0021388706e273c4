"""creval from Python: evaluate in a notebook's running loop, read runs back into pandas."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest
from tests_paths import REPO

import creval
from creval.errors import CrevalError

README = REPO / "README.md"


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


@pytest.mark.slow
def test_evaluate_in_a_running_loop_then_read_the_run(tmp_path: Path) -> None:
    out = tmp_path / "dat"

    async def notebook_cell() -> creval.EvalResult:
        asyncio.get_running_loop()  # as in Jupyter: a loop is running
        return creval.evaluate(["dat"], model="local", trials=3, max_tokens=96, out=out)

    result = asyncio.run(notebook_cell())
    scores = result["dat"].scores
    assert isinstance(scores, creval.Scores)
    assert scores.units.total == 3 and scores.units.finished == 3
    before = _snapshot(out)
    run = creval.read_run(out)
    frame = run.samples_df()
    # records are appended as units finish (several decode at once): any order, each once
    assert len(frame) == 3 and sorted(frame["key"]) == [f"trial-{i:05d}" for i in range(3)]
    assert {"status", "text", "score", "trial"} <= set(frame.columns)
    assert run.manifest.benchmark == "dat" and run.manifest.model_spec == "local"
    assert _snapshot(out) == before  # the reader wrote nothing

    # awaited, the same options resume the run: nothing is asked again
    again = asyncio.run(creval.evaluate_async("dat", model="local", trials=3, max_tokens=96, out=out))
    assert again["dat"].scores.usage["this_invocation"]["units_ok"] == 0
    assert again["dat"].scores.headline == scores.headline


@pytest.mark.slow
def test_readme_from_python_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("### From Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    monkeypatch.chdir(tmp_path)
    exec(compile(code.group(1), "README.md", "exec"), {})
    assert (tmp_path / "runs" / "py-dat" / "report.md").is_file()


@pytest.mark.unverified_runs("hand-made runs: scores.json written by the test, not by a scorer")
def test_read_runs_stacks_runs_and_bad_paths_say_what_to_fix(tmp_path: Path) -> None:
    for name, mean in (("a", 70.0), ("b", 80.0)):
        run = tmp_path / name / "dat"
        run.mkdir(parents=True)
        (run / "manifest.json").write_text(json.dumps({"benchmark": "dat", "model_spec": f"m-{name}"}))
        (run / "scores.json").write_text(json.dumps({"benchmark": "dat", "headline": {"dat_mean": mean}}))
        (run / "records.jsonl").write_text('{"key": "trial-00000", "status": "ok"}\n')
    runs = creval.read_runs(str(tmp_path / "*" / "dat"))
    frame = runs.scores_df()
    assert list(frame["model"]) == ["m-a", "m-b"] and list(frame["dat_mean"]) == [70.0, 80.0]
    assert len(runs.samples_df()) == 2
    with pytest.raises(CrevalError, match="not a creval run directory"):
        creval.read_run(tmp_path)
    with pytest.raises(CrevalError, match="No creval run directory"):
        creval.read_runs(str(tmp_path / "nothing-*"))
    assert not os.path.exists(tmp_path / "a" / "dat" / "invocations.jsonl")


def test_evaluate_with_a_model_per_role(tmp_path: Path) -> None:
    from tests._servers import ChatServer
    from tests.benchmarks.lotbench.test_roles import kind, scripted

    server = ChatServer(reply=scripted)
    out = tmp_path / "lot"
    try:
        with pytest.raises(CrevalError, match="'rewriter' is not a model role"):
            creval.evaluate("lotbench", model="openai:player", roles={"rewriter": "openai:x"},
                            out=out)
        assert not out.exists()
        result = creval.evaluate(
            "lotbench", model="openai:player", base_url=server.url, api_key="x",
            roles={"e1": "openai:daeso"}, judge="openai:answerer", out=out, cache=False,
            limit=1, repeats=1, max_rounds=3,
        )
    finally:
        server.close()
    served = {(kind(b), b["model"]) for b in server.bodies}
    assert served == {("target", "player"), ("e1", "daeso"), ("e2", "answerer")}
    usage = result["lotbench"].scores.usage["this_invocation"]["models"]
    assert {m: row["requests"] for m, row in usage.items()} == {
        f"openai:{name}": sum(b["model"] == name for b in server.bodies)
        for name in ("player", "daeso", "answerer")}
    roles = creval.read_run(out).manifest.roles
    assert {r: (d["spec"], d["chosen_by"]) for r, d in roles.items()} == {
        "e1": ("openai:daeso", "--e1"), "e2": ("openai:answerer", "--judge")}
