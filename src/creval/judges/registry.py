"""Judges of a solution, by name, behind one protocol: ``await judge.evaluate(problem,
solution, domain=...) -> JudgeVerdict``. Built-in: ``multiagent`` (seed 001, appendix D),
``chateval`` (the debate baseline), ``oneshot``, ``cot``, ``fewshot`` (single-agent
baselines); more come from :func:`register_judge` or the ``creval.judges`` entry points."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol

from creval.embed.base import Embedder
from creval.errors import CrevalError
from creval.judges.criteria import JudgeVerdict
from creval.judges.usage import GenerateFn


class SolutionJudge(Protocol):
    """What every solution judge does."""

    async def evaluate(self, problem: str, solution: str, *, domain: str) -> JudgeVerdict:
        ...


#: A judge factory: ``factory(generate, *, embedder, max_tokens) -> SolutionJudge``.
JudgeFactory = Callable[..., SolutionJudge]


@functools.lru_cache(maxsize=4)
def _embedder(spec: str) -> Embedder:
    from creval.embed import get_embedder

    return get_embedder(spec)


def _multiagent(generate: GenerateFn, *, embedder: str, max_tokens: int) -> SolutionJudge:
    from creval.judges.multiagent import MultiAgentJudge

    return MultiAgentJudge(generate, embedder=_embedder(embedder), max_tokens=max_tokens)


def _chateval(generate: GenerateFn, *, embedder: str, max_tokens: int) -> SolutionJudge:
    from creval.judges.debate import ChatEvalJudge

    return ChatEvalJudge(generate, max_tokens=max_tokens)


def _single(mode: str) -> JudgeFactory:
    def make(generate: GenerateFn, *, embedder: str, max_tokens: int) -> SolutionJudge:
        from creval.judges.single import SingleAgentJudge

        return SingleAgentJudge(generate, mode=mode, max_tokens=max_tokens)  # type: ignore[arg-type]

    return make


_JUDGES: dict[str, JudgeFactory] = {
    "multiagent": _multiagent,
    "chateval": _chateval,
    "oneshot": _single("oneshot"),
    "cot": _single("cot"),
    "fewshot": _single("fewshot"),
}


def register_judge(name: str, factory: JudgeFactory) -> None:
    """Make ``factory`` available as ``--judges NAME``."""
    _JUDGES[name] = factory


def judge_names() -> tuple[str, ...]:
    """Every registered judge name, built-in ones first."""
    _load_plugins()
    return tuple(_JUDGES)


def get_judge(name: str, generate: GenerateFn, *, embedder: str, max_tokens: int) -> SolutionJudge:
    """The judge called ``name``, calling ``generate`` for its model."""
    _load_plugins()
    if name not in _JUDGES:
        raise CrevalError(f"Unknown judge {name!r}; registered: {', '.join(_JUDGES)}.")
    return _JUDGES[name](generate, embedder=embedder, max_tokens=max_tokens)


def _load_plugins() -> None:
    from creval.plugins import load_group

    load_group("creval.judges", register_judge)
