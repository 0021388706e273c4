"""Reasoning strategies of seed 000 section 5.3: how a target model produces its answer.

* ``direct``: one answer (the main experiments).
* ``sampling``: ``k`` answers; the scorer keeps, per problem and state, the one with the
  highest Eq. 4 product (correct x follows the constraints x divergence), as the paper does.
* ``self_correction``: answer, run the example tests in the sandbox, and if any fails give
  the model the failure and ask for a revision, up to ``rounds`` times (Reflexion-style
  verbal feedback, Shinn et al. 2023). The tests are the statement's examples, which the
  model already sees, so no hidden test leaks.
* ``planning``: ask for a short plan first, then for the code that follows the plan
  (self-planning, Jiang et al. 2023b).
* ``mcts``: Monte-Carlo tree search over partial programs, each rollout's program rewarded
  by its pass rate on the example tests in the sandbox, the best program found answering
  (Zhang et al. 2023, at the granularity of lines: :mod:`.mcts`). ``k`` is its budget of
  generated programs, as for sampling.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from creval.benchmarks.common import format_prompt
from creval.models.base import Completion, GenerateRequest, Message

if TYPE_CHECKING:
    from creval.benchmarks.neocoder.mcts import MctsSettings

Strategy = Literal["direct", "sampling", "self_correction", "planning", "mcts"]
STRATEGIES: tuple[str, ...] = ("direct", "sampling", "self_correction", "planning", "mcts")
Generate = Callable[[GenerateRequest], Awaitable[list[Completion]]]
#: Runs the example tests on an answer: None when all pass, else feedback for the model.
Feedback = Callable[[str], Awaitable[str | None]]
#: The share of the example tests a program passes (sandboxed), for mcts.
Reward = Callable[[str], Awaitable[float]]


@dataclass(frozen=True)
class Sampling:
    temperature: float = 1.0
    max_tokens: int = 1024
    seed: int = 0
    system: str | None = None  # the solve instructions, sent as the system message


def _request(messages: list[Message], sampling: Sampling, n: int = 1) -> GenerateRequest:
    if sampling.system:
        messages = [Message(role="system", content=sampling.system), *messages]
    return GenerateRequest(
        messages=tuple(messages), n=n, temperature=sampling.temperature,
        max_tokens=sampling.max_tokens, seed=sampling.seed,
    )


async def solve(
    strategy: str,
    generate: Generate,
    prompt: str,
    sampling: Sampling,
    *,
    k: int = 5,
    rounds: int = 2,
    feedback: Feedback | None = None,
    revise_template: str = "",
    plan_template: str = "",
    code_after_plan: str = "",
    reward: Reward | None = None,
    mcts: MctsSettings | None = None,
    continue_template: str = "",
) -> dict[str, Any]:
    """Answers of one strategy to one (constrained) problem prompt.

    Returns ``{"answers": [...], "trace": [...]}``; ``answers`` holds every final answer
    (``k`` for sampling, one otherwise); ``trace`` what happened on the way; mcts adds
    ``search`` (requests, programs generated and judged, tree size, best reward).
    """
    user = [Message(role="user", content=prompt)]
    if strategy == "direct":
        (c,) = await generate(_request(user, sampling))
        return {"answers": [c.text], "trace": []}
    if strategy == "sampling":
        completions = await generate(_request(user, sampling, n=k))
        return {"answers": [c.text for c in completions], "trace": []}
    if strategy == "planning":
        plan_msg = [Message(role="user", content=format_prompt(plan_template, "neocoder_plan", problem=prompt))]
        (plan,) = await generate(_request(plan_msg, sampling))
        code_msg = format_prompt(code_after_plan, "neocoder_plan_code", plan=plan.text)
        messages = [
            *plan_msg, Message(role="assistant", content=plan.text),
            Message(role="user", content=code_msg),
        ]
        (code,) = await generate(_request(messages, sampling))
        return {"answers": [code.text], "trace": [{"plan": plan.text}]}
    if strategy == "self_correction":
        if feedback is None:
            raise ValueError("self_correction needs a feedback function")
        messages = list(user)
        (c,) = await generate(_request(messages, sampling))
        answer, trace = c.text, []
        for _ in range(rounds):
            problem = await feedback(answer)
            trace.append({"answer": answer, "feedback": problem})
            if problem is None:
                break
            messages += [
                Message(role="assistant", content=answer),
                Message(role="user", content=format_prompt(revise_template, "neocoder_self_correct", feedback=problem)),
            ]
            (c,) = await generate(_request(messages, sampling))
            answer = c.text
        return {"answers": [answer], "trace": trace}
    if strategy == "mcts":
        from creval.benchmarks.neocoder.mcts import MctsSettings as Settings
        from creval.benchmarks.neocoder.mcts import mcts_solve

        if reward is None:
            raise ValueError("mcts needs a reward function")
        settings = mcts or Settings(rollouts=k)
        return await mcts_solve(generate, prompt, _request([], sampling), reward, settings,
                                continue_template)
    raise ValueError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")
