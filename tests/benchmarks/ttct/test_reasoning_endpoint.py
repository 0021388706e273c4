"""A JCQ run against a loopback reasoning endpoint, through the command line: the endpoint
rejects ``max_tokens``, ``temperature`` and ``top_p`` with HTTP 400 (as OpenAI's reasoning
models do), returns ``reasoning_content`` beside each answer and reports
``completion_tokens_details.reasoning_tokens``. The run completes, the judge reads only the
answers, reasoning tokens are counted in usage, ``--plan`` and cost, and the run records
that temperature and top_p were not applied."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _cli import creval
from _servers import REASONING_TOKENS, ChatServer

JUDGEMENT = "流暢性: {a}\n柔軟性: 2\n独創性: 3\n精緻性: 4"
ANSWERS, LIMIT = 2, 2


def _reply() -> Any:
    """Distinct answers, and a judgement that differs with the answer it reads."""
    count = {"n": 0}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if "流暢性" in prompt:
            return 200, JUDGEMENT.format(a=1 + len(prompt) % 5)
        count["n"] += 1
        return 200, f"傘を逆さにして雨水を集める（案{count['n']}）。"

    return reply


def _run(out: Path, server: ChatServer, *extra: str, limit: int = LIMIT) -> Any:
    return creval("run", "jcq", "--model", "openai:thinker", "--base-url", server.url,
                  "--limit", str(limit), "--answers", str(ANSWERS), "--max-tokens", "16",
                  "--concurrency", "1", "--out", str(out), "--no-progress", *extra)


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def test_a_jcq_run_against_a_reasoning_endpoint(tmp_path: Path) -> None:
    server = ChatServer(reply=_reply(), reasoning=True)
    try:
        done = _run(tmp_path / "run", server)
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run"
    # rejected once each on this endpoint (one request in flight), never asked again
    assert server.rejected == {"max_tokens": 1, "temperature": 1, "top_p": 1}
    answered = [b for b in server.bodies if not any(k in b for k in ("max_tokens", "temperature", "top_p"))]
    assert len(answered) == server.seen - 3
    # every answer and judgement: reasoning apart, parameters not applied, reasoning tokens
    completions = [(call["role"], c) for r in _records(out) for call in r["calls"]
                   for c in call["completions"]]
    assert len(completions) == len(answered) == LIMIT * ANSWERS * 2  # answers + judgements
    for _, c in completions:
        assert c["not_applied"] == ["temperature", "top_p"]
        assert c["reasoning"].startswith("Reasoning: ") and "Reasoning" not in c["text"]
        assert c["usage"]["reasoning_tokens"] == REASONING_TOKENS
    answers = [c["text"] for role, c in completions if role == "target"]
    # the judge read the answers and never the reasoning
    judged = [b["messages"][-1]["content"] for b in answered if "流暢性" in b["messages"][-1]["content"]]
    assert len(judged) == LIMIT * ANSWERS
    assert all("Reasoning" not in p for p in judged)
    assert sorted(a for a in answers if any(a in p for p in judged)) == sorted(answers)
    scores = json.loads((out / "scores.json").read_text())
    assert scores["headline"]["parsed"] == LIMIT * ANSWERS
    usage = scores["usage"]["all_invocations"]["models"]["openai:thinker"]
    assert usage["reasoning_tokens"] == REASONING_TOKENS * len(answered)
    assert usage["output_tokens"] == (2 + REASONING_TOKENS) * len(answered)
    assert [(r["role"], r["parameter"], r["completions"], r["of"]) for r in scores["usage"]["not_applied"]] == [
        ("judge", "temperature", 4, 4), ("judge", "top_p", 4, 4),
        ("target", "temperature", 4, 4), ("target", "top_p", 4, 4)]
    warning = ("temperature not applied to openai:thinker (target, 4 of 4 answers): the endpoint "
               "rejected it")
    assert any(w.startswith(warning) for w in scores["run_warnings"])
    assert warning in (out / "report.md").read_text()
    assert f"({REASONING_TOKENS * len(answered)} reasoning)" in done.stdout
    assert "temperature not applied" in done.stderr

    # --plan of two more items, from this run's measured tokens: reasoning counted, and priced
    plan = creval("run", "jcq", "--model", "openai:thinker", "--limit", str(LIMIT + 2),
                  "--answers", str(ANSWERS), "--max-tokens", "16", "--out", str(out),
                  "--plan", "--price", "*=1/2")
    assert plan.returncode == 0, plan.stderr
    document = json.loads((out / "plan.json").read_text())
    rows = {r["role"]: r for r in document["rows"]}
    for role in ("target", "judge"):
        assert rows[role]["basis"].startswith("earlier run")
        assert rows[role]["reasoning_tokens"] == 2 * ANSWERS * REASONING_TOKENS
        assert rows[role]["output_tokens"] == 2 * ANSWERS * (2 + REASONING_TOKENS)
        assert rows[role]["cost"] == round((rows[role]["input_tokens"] * 1
                                            + rows[role]["output_tokens"] * 2) / 1e6, 4)
    assert document["total"]["reasoning_tokens"] == 4 * ANSWERS * REASONING_TOKENS
    assert f"({4 * ANSWERS * REASONING_TOKENS} of them reasoning" in plan.stdout


def test_plan_with_a_stated_reasoning_ratio(tmp_path: Path) -> None:
    args = ("run", "jcq", "--model", "openai:thinker", "--limit", "2", "--answers", "2",
            "--max-tokens", "40", "--plan")
    plain = creval(*args, "--out", str(tmp_path / "a"))
    ratio = creval(*args, "--out", str(tmp_path / "b"), "--reasoning-ratio", "3")
    assert plain.returncode == ratio.returncode == 0, ratio.stderr
    before = {r["role"]: r for r in json.loads((tmp_path / "a" / "plan.json").read_text())["rows"]}
    after = {r["role"]: r for r in json.loads((tmp_path / "b" / "plan.json").read_text())["rows"]}
    assert before["target"]["reasoning_tokens"] == 0
    # the token limit caps thinking and answer together: 3 of every 4 output tokens are reasoning
    assert after["target"]["output_tokens"] == before["target"]["output_tokens"] == 2 * 2 * 40
    assert after["target"]["reasoning_tokens"] == 2 * 2 * 40 * 3 // 4
    assert after["judge"]["reasoning_tokens"] == 0  # the ratio is the tested model's
    bad = creval(*args, "--out", str(tmp_path / "c"), "--reasoning-ratio", "-1")
    assert bad.returncode == 2 and "--reasoning-ratio" in bad.stderr


def test_reasoning_effort_reaches_the_tested_model_and_is_compared(tmp_path: Path) -> None:
    server = ChatServer(reply=_reply(), reasoning=True)
    out = tmp_path / "run"
    try:
        done = _run(out, server, "--reasoning-effort", "high", "--judge", "openai:judge",
                    "--limit", "1")
        assert done.returncode == 0, done.stderr
        sent = [b for b in server.bodies if "temperature" not in b and "max_tokens" not in b
                and "top_p" not in b]
        efforts = {(b["model"], b.get("reasoning_effort")) for b in sent}
        assert efforts == {("thinker", "high"), ("judge", None)}  # the judge keeps its default
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["options"]["reasoning_effort"] == "high"
        assert manifest["model"]["identity"]["reasoning_effort"] == "high"
        assert "reasoning_effort" not in manifest["judge"]["identity"]
        # another effort is another run: refused on resume, as any generation option
        again = _run(out, server, "--reasoning-effort", "low", "--judge", "openai:judge",
                     "--limit", "1")
        assert again.returncode == 2 and "Use another --out" in again.stderr
    finally:
        server.close()
    for bad, why in ((("--reasoning-effort", "extreme"), "low, medium or high"),
                     (("--reasoning-effort", "high", "--model", "local"), "openai: endpoints only")):
        done = creval("run", "jcq", "--limit", "1", "--out", str(tmp_path / "bad"), *bad)
        assert done.returncode == 2 and why in done.stderr, done.stderr


def test_the_python_api_takes_the_effort_and_the_ratio(tmp_path: Path) -> None:
    import creval as api

    server = ChatServer(reply=_reply(), reasoning=True)
    try:
        result = api.evaluate("jcq", model="openai:thinker", base_url=server.url, api_key="k",
                              out=tmp_path / "run", limit=1, answers=1, max_tokens=16,
                              concurrency=1, reasoning_effort="medium")["jcq"]
    finally:
        server.close()
    assert {b.get("reasoning_effort") for b in server.bodies} == {"medium"}  # self-judged: both
    assert {r["parameter"] for r in result.scores.usage["not_applied"]} == {"temperature", "top_p"}
    frame = api.plan(["jcq"], model="openai:thinker", out=tmp_path / "plan", limit=1, answers=1,
                     max_tokens=16, reasoning_ratio=1.0)
    target = frame[frame.role == "target"].iloc[0]
    assert target.reasoning_tokens == target.output_tokens // 2 == 8
