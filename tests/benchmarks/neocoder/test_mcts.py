"""The MCTS strategy (seed 000 section 5.3): the search on a scripted model, then whole runs.

The unit tests drive :func:`mcts_solve` with a scripted ``generate`` and a reward table (no
program runs there); the run tests judge every program in the sandbox.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from creval.benchmarks.neocoder.benchmark import starter_dir
from creval.benchmarks.neocoder.data import load_neocoder
from creval.benchmarks.neocoder.mcts import MctsSettings, Node, mcts_solve, select
from creval.models.base import Completion, GenerateRequest, Message

TEMPLATE = "{problem}\nSTART WITH:\n{prefix}"
BASE = GenerateRequest(messages=(Message(role="system", content="sys"),), temperature=1.0)

WRONG = "def solve():\n    x = 1\n    print(0)\n    return"
HALF = "def solve():\n    n = int(input())\n    print(n)\n    return"
RIGHT = "def solve():\n    n = int(input())\n    print(n * 2)\n    return"
OTHER = "import sys\ndef solve():\n    print(sys.stdin.read())"
REWARDS = {WRONG: 0.0, HALF: 0.5, RIGHT: 1.0, OTHER: 0.0}


def _fence(code: str) -> str:
    return f"```python\n{code}\n```"


class Script:
    """Answers each request with the next list of programs; records the requests."""

    def __init__(self, *answers: list[str]) -> None:
        self.answers = list(answers)
        self.requests: list[GenerateRequest] = []

    async def __call__(self, request: GenerateRequest) -> list[Completion]:
        self.requests.append(request)
        codes = self.answers.pop(0)
        assert len(codes) == request.n
        return [Completion(text=_fence(code)) for code in codes]


async def _reward(program: str) -> float:
    return REWARDS[program.removesuffix("\nsolve()\n").removesuffix("\n\nsolve()\n").strip("\n")]


def _solve(script: Script, settings: MctsSettings) -> dict[str, Any]:
    return asyncio.run(mcts_solve(script, "PROBLEM", BASE, _reward, settings, TEMPLATE))


def test_search_follows_the_better_prefix_and_stops_at_a_full_pass() -> None:
    script = Script([WRONG, HALF], [RIGHT, HALF])
    out = _solve(script, MctsSettings(rollouts=6, width=2, lines=2))
    assert out["answers"] == [_fence(RIGHT)]
    # root: WRONG (0) and HALF (0.5) become two children of 2 lines; P-UCB picks HALF's
    # (0.5 + 1 * 0.5 * sqrt(2) / 2 = 0.854 against 0 + 0.354), whose lines the second
    # request asks to keep; RIGHT passes every test, so the search stops after 4 programs.
    assert out["search"]["requests"] == 2 and out["search"]["generated"] == 4
    first, second = script.requests
    assert first.messages[-1].text() == "PROBLEM" and first.messages[0].text() == "sys"
    assert second.messages[-1].text() == "PROBLEM\nSTART WITH:\ndef solve():\n    n = int(input())"
    assert [t["kept_prefix"] for t in out["trace"]] == [True, True, True, True]
    assert out["search"]["programs_judged"] == 3  # HALF came twice and was judged once
    assert out["search"]["best_reward"] == 1.0


def test_budget_is_programs_generated_and_the_best_program_answers() -> None:
    script = Script([WRONG, HALF], [WRONG, OTHER], [HALF])
    out = _solve(script, MctsSettings(rollouts=5, width=2, lines=2))
    assert out["search"]["generated"] == 5 and out["search"]["requests"] == 3
    assert script.requests[-1].n == 1  # the last expansion asks only for what is left
    assert out["answers"] == [_fence(HALF)]


def test_a_continuation_that_drops_the_prefix_is_credited_to_its_own_lines() -> None:
    script = Script([HALF], [OTHER], [RIGHT])
    out = _solve(script, MctsSettings(rollouts=3, width=1, lines=2))
    # the second request asked to continue HALF's first lines; OTHER starts elsewhere
    assert [t["kept_prefix"] for t in out["trace"]] == [True, False, True]
    assert out["answers"] == [_fence(RIGHT)]


def test_selection_skips_whole_programs_and_expands_their_parent_again() -> None:
    root = Node(lines=(), expanded=True, visits=2)
    done = Node(lines=("print(1)",), parent=root, visits=2, value=1.0, through=2, terminal=True)
    root.children = {done.lines: done}
    assert select(root, 1.0) is root


def test_settings_are_checked() -> None:
    from creval.errors import CrevalError

    with pytest.raises(CrevalError, match="width must be at least 1"):
        MctsSettings(width=0)


# -- whole runs ---------------------------------------------------------------------------------
PROBLEMS = json.loads((starter_dir() / "NeoCoder.json").read_text())


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    """A wrong program at the root; the shipped solution when asked to continue a prefix."""
    messages = body["messages"]
    if "width first search" in messages[0]["content"]:
        return 200, "- for loop"
    user = messages[-1]["content"]
    problem = next(p for p in PROBLEMS if p["problem_statements"][0].splitlines()[0] in user)
    if "The beginning of a solution is already written" in user:
        return 200, _fence(problem["codes"][0])
    return 200, _fence("def solve():\n    t = int(input())\n    print(t)")


def test_mcts_is_a_strategy_of_the_run_and_records_its_search(tmp_path: Path) -> None:
    server = ChatServer(reply=_reply)
    try:
        done = creval("run", "neocoder", "--model", "openai:m", "--base-url", server.url,
                      "--limit", "1", "--states", "0", "--strategy", "mcts", "--k", "4",
                      "--mcts-width", "1", "--concurrency", "1", "--no-progress", "--no-cache",
                      "--out", str(tmp_path / "run"))
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    search = record["output"]["search"]
    # root: the wrong program (fails the sandboxed tests); then the continuation of its first
    # two lines is the shipped solution, which passes: the search stops after 2 programs
    assert search["generated"] == 2 and search["requests"] == 2 and search["best_reward"] == 1.0
    tests = len(load_neocoder(starter_dir()).tests_for(PROBLEMS[0]["problem_id"]))
    assert search["programs_judged"] == 2 and search["sandbox_runs"] == 2 * tests
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert scores["states"][0]["pass_at_1"] == 1.0


@pytest.mark.slow
def test_mcts_runs_offline_with_the_local_model(tmp_path: Path) -> None:
    done = creval("run", "neocoder", "--model", "local", "--limit", "1", "--states", "0",
                  "--strategy", "mcts", "--k", "2", "--max-tokens", "160", "--detector", "static",
                  "--no-progress", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    search = record["output"]["search"]
    assert 1 <= search["requests"] <= 2 and search["generated"] <= 2
    assert len(record["output"]["answers"]) == 1
