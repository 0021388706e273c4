"""What a run sent and received, read from its records (creval.evaluation.compare.evidence): values
per role with request counts, model ids per answer, parameters an endpoint did not apply,
and a replay followed to the run it replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from creval.evaluation.compare.conditions import conditions_of
from creval.evaluation.compare.evidence import NOT_SENT, read_evidence
from creval.reader import read_run

pytestmark = pytest.mark.unverified_runs("hand-made runs: records written by the tests to read their evidence")


def request(text: str, *, temperature: float, n: int = 1, system: str | None = None) -> dict[str, Any]:
    messages = ([{"role": "system", "content": system}] if system else []) + [
        {"role": "user", "content": text}]
    return {"messages": messages, "n": n, "temperature": temperature, "top_p": 1.0,
            "max_tokens": 64, "stop": [], "seed": None, "logprobs": False,
            "response_schema": None}


def call(role: str, spec: str, req: dict[str, Any], models: list[str | None],
         not_applied: list[str] | None = None) -> dict[str, Any]:
    completions = []
    for m in models:
        c: dict[str, Any] = {"text": "x", "usage": {"input_tokens": 1, "output_tokens": 1}}
        if m is not None:
            c["model"] = m
        if not_applied:
            c["not_applied"] = not_applied
        completions.append(c)
    return {"role": role, "model": spec, "request": req, "first_sample": 0, "completions": completions}


def write_run(folder: Path, calls: list[list[dict[str, Any]]], *, spec: str, options: dict[str, Any],
              identity: dict[str, Any]) -> Path:
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({
        "benchmark": "dat", "model_spec": spec, "options": options,
        "model": {"spec": spec, "identity": identity}}))
    lines = [json.dumps({"key": f"u{i}", "status": "ok", "calls": c}) for i, c in enumerate(calls)]
    (folder / "records.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_values_answers_and_parameters_an_endpoint_did_not_apply(tmp_path: Path) -> None:
    spec = "openai:reasoner"
    run = write_run(tmp_path / "run", [
        [call("target", spec, request("a", temperature=0.7), ["o3-2025-04-16"],
              not_applied=["temperature", "top_p"])],
        [call("target", spec, request("b", temperature=0.7, system="Be brief."), [None])],
        [call("target", spec, request("c", temperature=0.7, n=2), ["o3-2025-04-16", None])],
    ], spec=spec, options={"temperature": 0.7}, identity={"provider": "openai"})
    ev = read_evidence(run)
    target = ev.sent["target"]
    assert (ev.records, ev.ok, target.requests) == (3, 3, 3)
    assert target.values["temperature"] == {0.7: 2, NOT_SENT: 1}
    assert target.values["top_p"] == {1.0: 2, NOT_SENT: 1}
    assert target.values["n"] == {1: 2, 2: 1}
    assert sum(target.values["system"].values()) == 3 and target.values["system"][None] == 2
    assert (dict(target.reported), target.unreported) == ({"o3-2025-04-16": 2}, 2)
    # what was applied: the temperature was not sent on one request; no contradiction
    cond = conditions_of(read_run(run))
    assert cond.problems == ()
    assert dict(cond.applied["temperature"].values) == {0.7: 2, NOT_SENT: 1}


def test_a_replay_is_read_as_the_replayed_run_asked(tmp_path: Path) -> None:
    original = write_run(tmp_path / "greedy", [
        [call("target", "openai:m", request(t, temperature=0.0, n=2), ["m-1", "m-1"])] for t in "ab"
    ], spec="openai:m", options={"temperature": 0.0}, identity={"provider": "openai"})
    spec = f"replay:{original}"
    replay = write_run(tmp_path / "replay", [
        [call("target", spec, request(t, temperature=1.0, n=2), ["m-1", "m-1"])] for t in "ab"
    ], spec=spec, options={"temperature": 1.0},
        identity={"provider": "replay", "records": str(original / "records.jsonl")})
    ev = read_evidence(replay)
    assert ev.sent["target"].values["temperature"] == {1.0: 2}  # as this run sent it
    assert ev.asked["target"].values["temperature"] == {0.0: 2}  # as its answers were asked
    assert ev.asked["target"].replayed_from == str(original)
    cond = conditions_of(read_run(replay))
    assert cond.problems == () and cond.applied["temperature"].values == ((0.0, 2),)
    # the replayed run gone: said, never taken from the manifest
    (original / "records.jsonl").unlink()
    cond = conditions_of(read_run(replay))
    assert f"the target: its answers were replayed from {original}, which is not there to read" in cond.problems
