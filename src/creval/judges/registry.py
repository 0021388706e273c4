"""Judges of a solution, by name, behind one protocol: ``await judge.evaluate(problem,
solution, domain=...) -> JudgeVerdict``. Built-in: ``multiagent`` (seed 001, appendix D),
``chateval`` (the debate baseline), ``oneshot``, ``cot``, ``fewshot``, ``fewshot_cot``
(the single-agent baselines of Table 2); more come from :func:`register_judge` or the
``creval.judges`` entry points.

Factories take ``generate`` and the keyword arguments ``embedder`` and ``max_tokens``; the
built-in ones also take ``structured`` (ask for the answer's JSON shape) and the multi-agent
knobs (``threshold``, ``k_discussion``, ``j_confidence``, ``l_verdict``, ``max_rounds``).
:func:`get_judge` passes a factory only the extra keywords its signature accepts, so
plug-ins written for the three basic arguments keep working."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Protocol

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


def _embedder(spec: str) -> Embedder:
    from creval.embed import get_embedder
    from creval.embed.stand_in import standing_in

    return get_embedder(spec) if standing_in() else _loaded_embedder(spec)  # --plan: not kept


@functools.lru_cache(maxsize=4)
def _loaded_embedder(spec: str) -> Embedder:
    from creval.embed import get_embedder

    return get_embedder(spec)


def _multiagent(generate: GenerateFn, *, embedder: str, max_tokens: int, structured: bool = False,
                **knobs: Any) -> SolutionJudge:  # fmt: skip
    from creval.judges.multiagent import MultiAgentJudge

    return MultiAgentJudge(generate, embedder=_embedder(embedder), max_tokens=max_tokens,
                           structured=structured, **knobs)  # fmt: skip


def _chateval(generate: GenerateFn, *, embedder: str, max_tokens: int,
              structured: bool = False) -> SolutionJudge:  # fmt: skip
    from creval.judges.debate import ChatEvalJudge

    return ChatEvalJudge(generate, max_tokens=max_tokens, structured=structured)


def _single(mode: str) -> JudgeFactory:
    def make(generate: GenerateFn, *, embedder: str, max_tokens: int,
             structured: bool = False) -> SolutionJudge:  # fmt: skip
        from creval.judges.single import SingleAgentJudge

        return SingleAgentJudge(generate, mode=mode, max_tokens=max_tokens,  # type: ignore[arg-type]
                                structured=structured)  # fmt: skip

    return make


_JUDGES: dict[str, JudgeFactory] = {
    "multiagent": _multiagent,
    "chateval": _chateval,
    "oneshot": _single("oneshot"),
    "cot": _single("cot"),
    "fewshot": _single("fewshot"),
    "fewshot_cot": _single("fewshot_cot"),
}


def register_judge(name: str, factory: JudgeFactory) -> None:
    """Make ``factory`` available as ``--judges NAME``."""
    _JUDGES[name] = factory


def judge_names() -> tuple[str, ...]:
    """Every registered judge name, built-in ones first."""
    _load_plugins()
    return tuple(_JUDGES)


def get_judge(name: str, generate: GenerateFn, *, embedder: str, max_tokens: int,
              **settings: Any) -> SolutionJudge:  # fmt: skip
    """The judge called ``name``, calling ``generate`` for its model; ``settings`` (such as
    ``structured`` or the multi-agent knobs) reach the factory when it accepts them."""
    _load_plugins()
    if name not in _JUDGES:
        raise CrevalError(f"Unknown judge {name!r}; registered: {', '.join(_JUDGES)}.")
    factory = _JUDGES[name]
    return factory(generate, embedder=embedder, max_tokens=max_tokens,
                   **_accepted(factory, settings))  # fmt: skip


def _accepted(factory: JudgeFactory, settings: dict[str, Any]) -> dict[str, Any]:
    """The ``settings`` that ``factory`` takes: all of them when it has ``**kwargs``."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(settings)
    return {k: v for k, v in settings.items() if k in params}


def _load_plugins() -> None:
    from creval._util.plugins import load_group

    load_group("creval.judges", register_judge)
