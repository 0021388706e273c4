"""The open-ended benchmarks end to end: scoring records by hand, and a real offline run."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from creval.benchmarks.openended.scoring import score_openended
from creval.runner.store import Record
from tests._cli import creval as creval_in_process

CREVAL = [sys.executable, "-m", "creval.cli"]


def candidate(text: str, lp_sum: float, n: int) -> dict[str, object]:
    return {"raw": text, "text": text, "finished": False, "valid": True,
            "logprob_sum": lp_sum, "logprob_mean": lp_sum / n, "n_tokens": n}


def options(single_candidate: str = "zero") -> SimpleNamespace:
    return SimpleNamespace(entailment="embedding:0.95", partition_mode="strict", entailment_lookup="lazy",
                           diversity_embedder="minilm", single_candidate=single_candidate)


def test_scores_match_a_hand_calculation() -> None:
    same = "Wedge the spoon under the lid and lever it up gently."
    other = "Wrap a rubber band around the lid for grip, then twist."
    step = {"step": 1, "greedy": None, "chosen": same,
            "candidates": [candidate(same, -2.0, 2), candidate(same, -3.0, 3), candidate(other, -1.0, 4),
                           {"raw": "DONE", "text": "", "finished": True, "valid": False}]}
    verdict = {"verdicts": {"feasibility": True, "safety": False, "effectiveness": None},
               "overall": 0.5, "parse_failures": [{"raw": "?"}],
               "usage": {"problem_analyst": {"input_tokens": 10, "output_tokens": 5, "calls": 1}},
               "total_usage": {"input_tokens": 10, "output_tokens": 5, "calls": 1}}
    record = Record(key="macgyver-x", status="ok", unit={"id": "x"},
                    output={"steps": [step], "solution_steps": [same], "solution": same,
                            "stop_reason": "max_steps", "logprobs": "sampling",
                            "verdicts": {"multiagent": verdict}})
    scores = score_openended([record], options(), domain="macgyver")
    # classes {same, same} and {other}: identical texts need no entailment call
    h = scores.headline
    assert h["clusters_per_step"] == 2
    p0 = math.exp(-1.0) + math.exp(-1.0)  # means -1, -1 for the two copies of `same`
    p1 = math.exp(-0.25)
    q = [p0 / (p0 + p1), p1 / (p0 + p1)]
    assert h["semantic_entropy"] == pytest.approx(-sum(x * math.log(x) for x in q))
    r0, r1 = math.exp(-2.0) + math.exp(-3.0), math.exp(-1.0)
    w = [r0 / (r0 + r1), r1 / (r0 + r1)]
    assert h["semantic_entropy_probability_weighted"] == pytest.approx(-sum(x * math.log(x) for x in w))
    assert h["semantic_entropy_discrete"] == pytest.approx(-(2 / 3) * math.log(2 / 3) - (1 / 3) * math.log(1 / 3))
    assert h["multiagent_overall"] == 0.5 and h["multiagent_tokens"] == 15
    (judges,) = [s for s in scores.sections if s["title"] == "Judges"]
    assert judges["rows"][0]["feasibility"] == 1.0 and judges["rows"][0]["parse_failures"] == 1
    assert scores.resources["entailment"]["approximate"] is True
    (steps,) = [s for s in scores.sections if s["title"] == "Steps"]
    assert steps["rows"][0]["finished_votes"] == 1 and steps["rows"][0]["valid"] == 3


def test_the_step_where_the_solution_finishes_is_not_scored_and_one_candidate_is_zero() -> None:
    texts = ["Bend the wire into a hook.", "Use the magnet on a string.", "Melt the ice with salt."]
    first = {"step": 1, "greedy": None, "chosen": texts[0],
             "candidates": [candidate(t, -1.0, 2) for t in texts]}
    lone = {"step": 2, "greedy": None, "chosen": texts[1],
            "candidates": [candidate(texts[1], -1.0, 2),
                           {"raw": "DONE", "text": "", "finished": True, "valid": False}]}
    # the greedy answer said DONE here: upstream stops before sampling, so nothing is scored
    last = {"step": 3, "greedy": {"raw": "DONE", "text": "", "finished": True, "valid": False},
            "chosen": None, "candidates": [candidate(t, -1.0, 2) for t in texts]}
    record = Record(key="macgyver-x", status="ok", unit={"id": "x"},
                    output={"steps": [first, lone, last], "solution_steps": texts[:2],
                            "solution": "", "stop_reason": "finished", "logprobs": "model",
                            "verdicts": {}})
    scores = score_openended([record], options(), domain="macgyver")
    (steps,) = [s for s in scores.sections if s["title"] == "Steps"]
    rows = {row["step"]: row for row in steps["rows"]}
    assert "discrete" not in rows[3] and "finished" in rows[3]["not_scored"]
    assert rows[2]["discrete"] == 0.0 and rows[2]["length_normalised"] == 0.0  # one class
    assert scores.headline["steps_scored"] == 2
    assert scores.headline["semantic_entropy_discrete"] == pytest.approx(math.log(3) / 2)
    dropped = score_openended([record], options("drop"), domain="macgyver")
    assert dropped.headline["steps_scored"] == 1
    assert dropped.headline["semantic_entropy_discrete"] == pytest.approx(math.log(3))


def test_logprob_label_says_which_distribution_was_asked_for() -> None:
    from creval.benchmarks.openended.benchmark import logprob_label
    from creval.models.base import Capabilities

    out = {"steps": [{"candidates": [{"has_logprobs": True}]}]}
    caps = Capabilities(logprobs=True, sampling_logprobs=True)
    assert logprob_label(out, caps, "model") == "model"
    assert logprob_label(out, caps, "sampling") == "sampling"
    assert logprob_label(out, Capabilities(logprobs=True), "sampling") == "model"


@pytest.mark.slow
def test_macgyver_runs_offline_end_to_end(tmp_path: Path) -> None:
    """Steps and judge answers are as short as the options allow, the panel discusses one
    round and retrieves one fragment per turn: the ~30 judge prompts (~12k tokens for the
    model to read on CPU) are the cost, and nothing here reads what the judges say, only
    that they ran. Two steps, so that a solution is extended once."""
    out = tmp_path / "run"
    args = ["run", "macgyver", "--model", "local", "--limit", "1", "--n", "3", "--max-steps", "2",
            "--step-max-tokens", "8", "--judge-max-tokens", "16", "--judge-rounds", "1",
            "--judge-k", "1", "--judge-j", "1", "--judge-l", "1", "--judges", "oneshot,multiagent",
            "--out", str(out)]
    done = subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=1800,
                          env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert scores["units"]["finished"] == 1
    h = scores["headline"]
    assert h["multiagent_tokens"] > 0 and h["oneshot_tokens"] > 0
    record = json.loads((out / "records.jsonl").read_text().splitlines()[0])
    assert record["output"]["logprobs"] == "model" == record["output"]["logprob_source"]
    sampled = [c for c in record["calls"] if c["role"] == "target" and c["request"]["n"] == 3]
    assert sampled and all(c["request"]["top_p"] == 0.9 and c["request"]["logprobs"] for c in sampled)
    assert any("APPROXIMATION" in note for note in scores["notes"])  # offline: labelled fallback
    # the same command again is a no-op that re-uses the records (in this process: no
    # interpreter start nor imports to pay for a command that asks nothing)
    again = creval_in_process(*args)
    assert again.returncode == 0, again.stderr
    assert "already complete:" in " ".join(again.stdout.split())
    assert "nothing to run" in " ".join(again.stdout.split())
