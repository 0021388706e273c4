"""``--plan``: what a run or a profile would send and cost, checked against what a run sent.

A plan never calls a model: the profile plans below name an endpoint nobody listens on
(port 9 on loopback), so any request would fail the command; and the planned run
directories hold no records afterwards.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import creval
from creval.errors import CrevalError
from creval.evaluation.run.cost import Price, estimate_tokens, parse_prices
from tests._cli import creval as cli
from tests._servers import ChatServer, novelty_same
from tests.tests_paths import shared_data_path

NOWHERE = ["--model", "openai:planned-model", "--base-url", "http://127.0.0.1:9/v1"]


def test_prices_from_flags_and_a_file(tmp_path: Path) -> None:
    file = tmp_path / "prices.json"
    file.write_text(json.dumps({"judge": {"input": 2.5, "output": 10}, "target": "1/2"}))
    prices = parse_prices(["target=0.15/0.6", "*=3/4"], file)
    assert prices == {"judge": Price(2.5, 10.0), "target": Price(0.15, 0.6), "*": Price(3.0, 4.0)}
    for bad in (["judge"], ["judge=2.5"], ["judge=a/b"], ["judge=-1/2"]):
        with pytest.raises(CrevalError, match="judge"):
            parse_prices(bad)


def test_tokens_without_a_tokenizer() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("創造性") == 3


EN_BATTERY = {"neocoder", "macgyver", "metric-validity", "oogiri", "lotbench", "ttct", "dat", "sat",
              "ttcw-judges", "ttcw", "aut", "noveltybench"}


@pytest.mark.parametrize("size", ["smoke", "standard", "paper"])
def test_profile_plan_at_every_size_calls_no_model(tmp_path: Path, size: str) -> None:
    """The whole English battery at each size; at paper size NeoCoder's, MacGyver's and
    NoveltyBench's data must be the papers' own files, given as a user would."""
    out = tmp_path / size
    extra = ([] if size != "paper" else
             ["--set", f"neocoder.data={shared_data_path('neocoder', 'NeoCoder')}",
              "--set", f"macgyver.source={shared_data_path('macgyver', 'problem_solution_pair.xlsx')}",
              "--set", f"noveltybench.data={shared_data_path('noveltybench')}"])
    done = cli("profile", *NOWHERE, "--size", size, "--out", str(out), "--plan",
               "--price", "*=1/4", "--price", "judge=2/8", *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    plan = json.loads((out / "plan.json").read_text())
    benchmarks = {row["benchmark"] for row in plan["rows"]}
    assert benchmarks == EN_BATTERY | ({"hypogen", "bookmia"} if size == "paper" else set())
    for row in plan["rows"]:
        assert row["units"] > 0 and row["requests"] > 0, row
        price = (2, 8) if row["role"] == "judge" else (1, 4)
        expected = (row["input_tokens"] * price[0] + row["output_tokens"] * price[1]) / 1e6
        assert row["cost"] == pytest.approx(expected, abs=1e-4)
    assert plan["total"]["cost"] == pytest.approx(sum(r["cost"] for r in plan["rows"]), abs=1e-3)
    assert "In all:" in done.stdout and "cost" in done.stdout
    assert not list(out.rglob("records.jsonl")) and not list(out.rglob("manifest.json"))


def test_paper_plan_of_jcq_counts_every_answer_and_verdict(tmp_path: Path) -> None:
    """JCQ at paper size on its upstream questions: 700 questions, 5 answers in one request,
    each answer judged once; DAT's well-formed stand-ins ask no trial again."""
    done = cli("profile", *NOWHERE, "--size", "paper", "--lang", "ja", "--family", "ttct",
               "--set", f"jcq.questions={shared_data_path('jcq', 'test.jsonl')}",
               "--out", str(tmp_path / "ja"), "--plan")
    assert done.returncode == 0, done.stdout + done.stderr
    plan = json.loads((tmp_path / "ja" / "plan.json").read_text())
    jcq = {(r["role"], r["units"], r["requests"]) for r in plan["rows"] if r["benchmark"] == "jcq"}
    assert jcq == {("target", 700, 700), ("judge", 700, 3500)}
    [dat] = [r for r in plan["rows"] if r["benchmark"] == "dat"]
    assert dat["requests"] == dat["units"] == 100


def test_plan_sizes_grow_and_prices_are_optional(tmp_path: Path) -> None:
    totals = {}
    for size in ("smoke", "standard"):
        done = cli("profile", *NOWHERE, "--size", size, "--only", "dat", "--only", "sat",
                   "--out", str(tmp_path / size), "--plan")
        assert done.returncode == 0, done.stderr
        plan = json.loads((tmp_path / size / "plan.json").read_text())
        assert plan["total"]["cost"] is None and all(r["cost"] is None for r in plan["rows"])
        totals[size] = plan["total"]["requests"]
        assert "cost not computed" in done.stdout
    assert totals["standard"] > totals["smoke"]


def test_bad_prices_exit_2_before_anything(tmp_path: Path) -> None:
    done = cli("run", "dat", *NOWHERE, "--plan", "--price", "target=cheap", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert "IN/OUT" in done.stdout + done.stderr
    assert not (tmp_path / "r").exists()


@pytest.mark.slow
def test_plan_against_the_run_it_plans(tmp_path: Path) -> None:
    """The plan of a local DAT run, from its prompts, against the tokens the run counted:
    input tokens exactly (the GGUF's tokenizer and chat template), output at most the plan's
    bound; then, with half the run done, the plan from the measured half predicts the rest."""
    out = tmp_path / "dat"
    args = ["dat", "--model", "local", "--trials", "4", "--max-tokens", "48", "--out", str(out)]
    planned = cli("run", *args, "--plan", "--price", "target=1/2")
    assert planned.returncode == 0, planned.stderr
    plan = json.loads((out / "plan.json").read_text())
    [row] = plan["rows"]
    assert row["basis"] == "prompts" and row["tokenizer"].endswith("tokenizer")
    assert not (out / "records.jsonl").exists()
    done = cli("run", *args, "--no-progress", "--allow-no-score")  # the tokens, not the score
    assert done.returncode == 0, done.stderr
    usage = json.loads((out / "scores.json").read_text())["usage"]["this_invocation"]["models"]
    [counted] = usage.values()
    assert row["requests"] == counted["requests"] == 4
    assert row["input_tokens"] == counted["input_tokens"]
    assert counted["output_tokens"] <= row["output_tokens"] <= 4 * 48

    # half of a bigger run is done: the rest is planned from what the done half measured
    frame = creval.plan(["dat"], model="local", trials=8, max_tokens=48, out=out)
    [rest] = frame.to_dict("records")
    assert rest["units"] == 4 and rest["basis"].startswith("earlier run")
    assert rest["input_tokens"] == counted["input_tokens"]
    assert rest["output_tokens"] == counted["output_tokens"]


def _novelty_reply(repeat_answers: bool) -> Any:
    """Answers all different (the plan's worst case) or two of every three alike; the judge
    says same for equal answers and rates 6."""
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        text = body["messages"][-1]["content"]
        if (verdict := novelty_same(text)) is not None:
            return 200, verdict
        if "Rate how good" in text:
            return 200, "6"
        return 200, f"answer {int(body['seed']) % 2 if repeat_answers else body['seed']}"
    return reply


@pytest.mark.parametrize("repeat_answers", [False, True])
def test_noveltybench_plan_bounds_the_judge_calls_of_a_run(tmp_path: Path,
                                                           repeat_answers: bool) -> None:
    """The plan counts the judge's verdicts for the worst case (every answer different):
    k(k-1)/2 pairs and k ratings per prompt, which a run reaches when its answers all differ
    and exceeds when they fall in fewer classes."""
    server = ChatServer(reply=_novelty_reply(repeat_answers))
    out = tmp_path / "nb"
    args = ["noveltybench", "--model", "openai:m", "--base-url", server.url, "--api-key", "x",
            "--judge", "openai:j", "--k", "4", "--limit", "2", "--out", str(out)]
    try:
        planned = cli("run", *args, "--plan")
        assert planned.returncode == 0, planned.stderr
        assert server.seen == 0  # a plan asks nothing
        done = cli("run", *args, "--no-progress")
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    rows = {r["role"]: r for r in json.loads((out / "plan.json").read_text())["rows"]}
    assert rows["judge"]["requests"] == 2 * (4 * 3 // 2 + 4)
    assert "worst case" in rows["judge"]["basis"] and "worst case" in planned.stdout
    models = json.loads((out / "scores.json").read_text())["usage"]["this_invocation"]["models"]
    judged = sum(m["requests"] for spec, m in models.items() if "openai:j" in spec)
    assert 0 < judged <= rows["judge"]["requests"]
    if repeat_answers:  # two texts, each twice: one verdict (equal texts need none), 4 ratings
        assert judged == 2 * (1 + 4) < rows["judge"]["requests"]
    else:
        assert judged == rows["judge"]["requests"]
