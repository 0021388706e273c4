"""The convergent judges of the open-ended benchmarks, by name.

``multiagent`` is the retrieval-based multi-agent judge of seed 001 (appendix D);
``chateval`` the debate baseline with full history; ``oneshot``, ``cot`` and ``fewshot``
the single-agent baselines. All call the judge model through the runner, so they are
cached, counted and resumable, and each verdict records its tokens per role.
"""

from __future__ import annotations

import functools
from typing import Any

from creval.embed.base import Embedder
from creval.judges.criteria import JudgeVerdict
from creval.judges.usage import GenerateFn


@functools.lru_cache(maxsize=4)
def _embedder(spec: str) -> Embedder:
    from creval.embed import get_embedder

    return get_embedder(spec)


def make_judge(name: str, generate: GenerateFn, *, embedder: str, max_tokens: int) -> Any:
    """The judge called ``name``, calling ``generate`` for its model."""
    if name == "multiagent":
        from creval.judges.multiagent import MultiAgentJudge

        return MultiAgentJudge(generate, embedder=_embedder(embedder), max_tokens=max_tokens)
    if name == "chateval":
        from creval.judges.debate import ChatEvalJudge

        return ChatEvalJudge(generate, max_tokens=max_tokens)
    from creval.judges.single import SingleAgentJudge

    return SingleAgentJudge(generate, mode=name, max_tokens=max_tokens)  # type: ignore[arg-type]


async def judge_solution(
    names: list[str], generate: GenerateFn, *, problem: str, solution: str, domain: str,
    embedder: str, max_tokens: int,
) -> dict[str, Any]:
    """Every judge's verdict on one solution, as plain data (judge name -> verdict dict)."""
    out: dict[str, Any] = {}
    for name in names:
        judge = make_judge(name, generate, embedder=embedder, max_tokens=max_tokens)
        verdict: JudgeVerdict = await judge.evaluate(problem, solution, domain=domain)
        out[name] = verdict.to_dict()
    return out
