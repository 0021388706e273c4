"""The convergent judges of the open-ended benchmarks, by name.

``multiagent`` is the retrieval-based multi-agent judge of seed 001 (appendix D);
``chateval`` the debate baseline with full history; ``oneshot``, ``cot`` and ``fewshot``
the single-agent baselines. All call the judge model through the runner, so they are
cached, counted and resumable, and each verdict records its tokens per role.
"""

from __future__ import annotations

from typing import Any

from creval.judges.criteria import JudgeVerdict
from creval.judges.registry import get_judge
from creval.judges.usage import GenerateFn


async def judge_solution(
    names: list[str], generate: GenerateFn, *, problem: str, solution: str, domain: str,
    embedder: str, max_tokens: int, **settings: Any,
) -> dict[str, Any]:
    """Every judge's verdict on one solution, as plain data (judge name -> verdict dict);
    ``settings`` go to the judge factories that take them (:func:`get_judge`)."""
    out: dict[str, Any] = {}
    for name in names:
        judge = get_judge(name, generate, embedder=embedder, max_tokens=max_tokens, **settings)
        verdict: JudgeVerdict = await judge.evaluate(problem, solution, domain=domain)
        out[name] = verdict.to_dict()
    return out
