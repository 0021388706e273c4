"""In-process models (``local:``, ``hf:``) on Ray actors that load the weights once each.

Under ``--executor ray`` a run's in-process target, judge and role models are wrapped in a
:class:`RemoteModel`: it keeps the wrapped model's ``spec``, ``identity()`` and
``capabilities`` (so the response cache, resume and the manifest are the local run's: a run
begun locally resumes on Ray with no request for finished units, and the other way round),
and sends each ``generate`` / ``prompt_logprobs`` call to one of its actors, awaiting the
actor method's result in the runner's event loop. Each actor builds the model with
:func:`~creval.models.get_model` from the same spec and options, so it answers exactly as
the local model does (sample ``i`` of a seeded request uses seed ``seed + i`` there too).

``max_concurrency`` is the number of actors (the executor's ``workers``): the runner keeps
one call in flight per actor, each to the least busy actor. Each actor holds its own copy of
the weights, so ``--workers`` bounds the memory; an actor asks for a GPU when the model's
``--device`` is ``cuda``. The driver loads nothing. ``aclose`` kills the actors (they are
started again on the next call). Each call is counted in the executor's per-worker counts
(``node:pid`` of the actor), which the run's invocation log and report show.

Models that call a server (``openai:``, ``replay:``, plug-ins) stay as they are: their work
is not in this process.

>>> in_process("local"), in_process("hf:/models/gpt2"), in_process("openai:gpt-4o")
(True, True, False)
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping
from typing import Any

from creval.models import Model, ModelOptions, get_model, parse_spec
from creval.models.base import Completion, GenerateRequest, TransientModelError
from creval.models.prompt_scoring import PromptRequest, PromptScores
from creval.runner.executors import Executor, worker_name

__all__ = ["IN_PROCESS", "ModelHost", "RemoteModel", "in_process", "on_actors"]

#: Providers whose model runs inside this process.
IN_PROCESS = ("local", "hf")


def in_process(spec: str) -> bool:
    """Whether ``spec`` names a model run in this process (so it can run on actors)."""
    return parse_spec(spec)[0] in IN_PROCESS


class ModelHost:
    """The object a Ray actor holds: the model, built once, and one event loop to run it."""

    def __init__(self, spec: str, options: ModelOptions) -> None:
        self.model = get_model(spec, options)
        self._loop = asyncio.new_event_loop()

    def generate(self, request: GenerateRequest) -> tuple[str, list[Completion]]:
        return worker_name(), self._loop.run_until_complete(self.model.generate(request))

    def prompt_logprobs(self, request: PromptRequest) -> tuple[str, PromptScores]:
        scorer: Any = self.model
        return worker_name(), self._loop.run_until_complete(scorer.prompt_logprobs(request))


class RemoteModel:
    """``model`` (built with ``options``) answering from ``actors`` Ray actors."""

    def __init__(self, model: Model, options: ModelOptions, executor: Executor,
                 actors: int) -> None:
        self.inner = model
        self.spec = model.spec
        self.capabilities = model.capabilities
        self.max_concurrency = max(1, actors)
        self.options = options
        self.executor = executor
        self.per_worker: Counter[str] = Counter()
        self._actors: list[Any] = []
        self._busy: list[int] = []

    def identity(self) -> dict[str, Any]:
        """The wrapped model's identity: the same answers under the same cache keys."""
        return self.inner.identity()

    def _pick(self) -> int:
        """The index of the least busy actor, starting the actors on first use."""
        if not self._actors:
            import ray

            gpus = 1 if str(self.options.device or "").startswith("cuda") else 0
            host = ray.remote(ModelHost).options(
                num_cpus=0, num_gpus=gpus, max_restarts=2, max_task_retries=2,
                scheduling_strategy="SPREAD")
            self._actors = [host.remote(self.spec, self.options)
                            for _ in range(self.max_concurrency)]
            self._busy = [0] * len(self._actors)
        return min(range(len(self._actors)), key=self._busy.__getitem__)

    async def _call(self, method: str, request: Any) -> Any:
        import ray

        index = self._pick()
        self._busy[index] += 1
        try:
            where, result = await getattr(self._actors[index], method).remote(request)
        except ray.exceptions.RayTaskError as exc:  # the model's own error, as it raised it
            cause = exc.cause
            if isinstance(cause, Exception):
                raise cause from None
            raise
        except ray.exceptions.RayActorError as exc:  # the actor died: the runner retries
            raise TransientModelError(f"{self.spec}: its Ray actor died ({exc})") from None
        finally:
            self._busy[index] -= 1
        self.per_worker[where] += 1
        note = getattr(self.executor, "note", None)
        if callable(note):
            note(where)
        return result

    async def generate(self, request: GenerateRequest) -> list[Completion]:
        """``request.n`` completions from one actor."""
        completions: list[Completion] = await self._call("generate", request)
        return completions

    async def prompt_logprobs(self, request: PromptRequest) -> PromptScores:
        """The text's token log-probabilities from one actor (the model must score texts)."""
        scores: PromptScores = await self._call("prompt_logprobs", request)
        return scores

    async def aclose(self) -> None:
        """Kill the actors (the next call starts them again) and close the wrapped model."""
        actors, self._actors, self._busy = self._actors, [], []
        if actors:
            import ray

            for actor in actors:
                ray.kill(actor)
        await self.inner.aclose()


def on_actors(models: Mapping[str, Model], options: Mapping[str, ModelOptions],
              executor: Executor) -> dict[str, Model]:
    """``models`` by role, with each in-process model wrapped in a :class:`RemoteModel` on
    ``executor``'s workers when the executor is Ray (one wrapper per model, shared by the
    roles that share it); unchanged under the local executor. ``options``: each role's
    model options (those the model was built with)."""
    if executor.name != "ray":
        return dict(models)
    workers = int(getattr(executor, "workers", 1))
    wrapped: dict[int, Model] = {}
    out: dict[str, Model] = {}
    for role, model in models.items():
        if id(model) not in wrapped:
            wrapped[id(model)] = (RemoteModel(model, options[role], executor, workers)
                                  if in_process(model.spec) else model)
        out[role] = wrapped[id(model)]
    return out
