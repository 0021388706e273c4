"""The runner: units of work through models with a cache, retries, limits and a run store."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from creval.models.base import (
    Capabilities,
    Completion,
    EndpointUnreachable,
    GenerateRequest,
    Model,
    ModelError,
    TransientModelError,
    tally_requests,
)
from creval.models.prompt_scoring import SCORING_BACKENDS, PromptRequest, PromptScorer, PromptScores
from creval.runner.cache import ResponseCache, cache_keys, prompt_cache_key
from creval.runner.counters import Counters
from creval.runner.limits import AdaptiveGate, Outcome, learned_limit, remember
from creval.runner.progress import Progress
from creval.runner.store import Record, RunStore

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for rate limits, timeouts and server errors."""

    attempts: int = 5
    base_delay: float = 1.0
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        backoff = self.base_delay * (2 ** (attempt - 1))
        return float(min(backoff, self.max_delay) * (0.5 + random.random() / 2))


@dataclass
class Unit:
    """One unit of work: ``run`` gets a context to call models and returns the output."""

    key: str
    run: Callable[[UnitContext], Awaitable[dict[str, Any]]]
    meta: dict[str, Any] = field(default_factory=dict)


class UnitFailed(Exception):
    """A model call failed after its retries; the unit becomes an error record."""


class ModelRefused(UnitFailed):
    """The model refused the call for good (bad request, missing capability, text too long):
    asking again will not help, so a unit may record it as a reasoned exclusion instead."""


class EndpointDown(Exception):
    """The circuit breaker of an endpoint is open: the unit is not run (no record)."""


#: Consecutive connection failures on one endpoint after which the runner stops calling it.
BREAKER_THRESHOLD = 3
#: Timeouts on one endpoint after which the runner says once what is happening.
TIMEOUT_HINT_AFTER = 3
#: Excused attempts of one call (overloads while others were in flight, see
#: :mod:`creval.runner.limits`) at most, as a multiple of the retry policy's attempts.
EXCUSED_FACTOR = 4


def overload(exc: BaseException | None) -> Outcome:
    """What a failed request says about its endpoint's load: ``timeout``, ``429``, ``503``
    (it is overloaded) or ``other``."""
    if isinstance(exc, TimeoutError):
        return "timeout"
    kind = getattr(exc, "overload", None) if isinstance(exc, TransientModelError) else None
    return kind if kind in ("timeout", "429", "503") else "other"


class UnitContext:
    """What a unit sees: model calls that are cached, counted, limited and retried."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner
        self.calls: list[dict[str, Any]] = []

    def capabilities(self, role: str = "target") -> Capabilities:
        """What the model playing ``role`` can do (to degrade explicitly, and record it)."""
        return self._runner.models[role].capabilities

    async def generate(
        self, request: GenerateRequest, *, role: str = "target", first_sample: int = 0
    ) -> list[Completion]:
        """Samples ``first_sample .. first_sample + request.n - 1`` of ``request``.

        Sample ``i`` is generated with seed ``request.seed + i`` when the request is seeded,
        so sample ``i`` is the same whether it is asked for alone or in a batch.
        """
        dumped = request.model_dump(mode="json")  # once: for the cache keys and the record
        try:
            completions = await self._runner.complete(role, request, first_sample, dumped=dumped)
        except ModelRefused as exc:  # recorded too: a replay refuses it the same way
            self.calls.append({"role": role, "model": self._runner.models[role].spec,
                               "refused_request": dumped, "first_sample": first_sample,
                               "refused": str(exc)})
            raise
        self.calls.append(
            {
                "role": role,
                "model": self._runner.models[role].spec,
                "request": dumped,
                "first_sample": first_sample,
                "completions": [c.model_dump(mode="json", exclude_none=True) for c in completions],
            }
        )
        return completions

    async def prompt_logprobs(
        self, text: str, *, role: str = "target", window: int | None = None,
        stride: int | None = None,
    ) -> PromptScores:
        """Each token's log-probability in ``text`` under the model playing ``role``, in
        windows of ``window`` tokens every ``stride`` (None: the model's context, half of it).

        Cached, counted, retried and behind the breaker like :meth:`generate`; a model that
        cannot score texts raises :class:`ModelRefused` naming the backends that can.
        """
        request = PromptRequest(text=text, window=window, stride=stride)
        try:
            scores = await self._runner.score_prompt(role, request)
        except ModelRefused as exc:
            self.calls.append({"role": role, "model": self._runner.models[role].spec,
                               "prompt_request": request.model_dump(mode="json"),
                               "refused": str(exc)})
            raise
        self.calls.append(
            {
                "role": role,
                "model": self._runner.models[role].spec,
                "prompt_request": request.model_dump(mode="json"),
                "prompt_scores": scores.model_dump(mode="json"),
            }
        )
        return scores


class Runner:
    """Runs units concurrently, skipping those the store has finished."""

    def __init__(
        self,
        store: RunStore,
        models: dict[str, Model],
        *,
        cache: ResponseCache | None = None,
        retry: RetryPolicy | None = None,
        progress: bool = True,
        counters: Counters | None = None,
        label: str = "running",
    ) -> None:
        self.store = store
        self.models = models
        self.cache = cache
        self.retry = retry or RetryPolicy()
        self.counters = counters or Counters()
        self.show_progress = progress
        self.label = label
        self._limits: dict[str, AdaptiveGate] = {}
        #: endpoints whose timeouts were explained to the user in this invocation
        self._hinted: set[str] = set()
        #: id(model) -> (model, identity, endpoint): asked once per model, not per request
        self._identities: dict[int, tuple[Model, dict[str, Any], str]] = {}
        self._progress: Progress | None = None
        #: endpoint -> consecutive connection failures; an endpoint at the threshold is down
        self._failures: dict[str, int] = {}
        #: endpoints whose breaker opened in this invocation, with the last connection error
        self.down: dict[str, str] = {}
        #: keys of ``ok`` records without calls whose units ask no model (see :meth:`pending`)
        self._callless: set[str] = set()

    # -- model calls --------------------------------------------------------------------------
    def _identity(self, model: Model) -> tuple[dict[str, Any], str]:
        """The model's identity (for cache keys) and its endpoint (for limits, breaker)."""
        entry = self._identities.get(id(model))
        if entry is None or entry[0] is not model:
            identity = model.identity()
            entry = (model, identity, str(identity.get("base_url") or model.spec))
            self._identities[id(model)] = entry
        return entry[1], entry[2]

    def _endpoint(self, model: Model) -> str:
        return self._identity(model)[1]

    def _limit(self, model: Model) -> AdaptiveGate:
        """The endpoint's gate: its requests in flight, adapted to what it takes."""
        endpoint = self._endpoint(model)
        if endpoint not in self._limits:
            # only a server answering requests one by one is started gently (a batch API
            # takes every pending line at once; an in-process model has no queue to flood)
            state = learned_limit(endpoint, max(1, model.max_concurrency),
                                  slow_start=bool(getattr(model, "slow_start", False)))
            self._limits[endpoint] = AdaptiveGate(state)
        return self._limits[endpoint]

    def adaptation(self) -> dict[str, dict[str, int]]:
        """Per endpoint whose limit moved or that was overloaded: what it went through."""
        return {e: g.state.summary() for e, g in self._limits.items() if g.state.adapted()}

    def _note(self, text: str) -> None:
        """A line for the user: above the bar, or a plain line on stderr."""
        if self._progress is not None and self._progress.requested:
            self._progress.note(text)
        else:
            print(text, file=sys.stderr, flush=True)

    def _overloaded(self, model: Model, endpoint: str, outcome: Outcome) -> None:
        """Count a timeout; say once per invocation what repeated timeouts mean."""
        if outcome != "timeout":
            return
        self.counters.add(model.spec, timeouts=1)
        state = self._limits[endpoint].state
        if state.timeouts >= TIMEOUT_HINT_AFTER and endpoint not in self._hinted:
            self._hinted.add(endpoint)
            self._note(
                f"{endpoint}: {state.timeouts} requests timed out; the server answers fewer "
                f"requests at once than were sent (a server with one slot queues them), so "
                f"creval lowered the requests in flight from {state.requested} to "
                f"{state.allowed} and asks those again. If timeouts go on, try "
                "--concurrency 1 --timeout 600."
            )

    async def complete(
        self, role: str, request: GenerateRequest, first_sample: int,
        *, dumped: dict[str, Any] | None = None,
    ) -> list[Completion]:
        """Samples of ``request`` from the cache or the model (``dumped``: the request's
        JSON dump when the caller has it, for the cache keys)."""
        model = self.models[role]
        identity = self._identity(model)[0]
        indices = range(first_sample, first_sample + request.n)
        keys = cache_keys(identity, request, indices, dumped=dumped)
        found: dict[int, Completion] = {}
        if self.cache is not None:
            for i, key in zip(indices, keys, strict=True):
                hit = self.cache.get(key)
                if hit is not None:
                    found[i] = hit
            self.counters.add(model.spec, cache_hits=len(found))
        for start, count in _missing_runs(list(indices), found):
            seed = None if request.seed is None else request.seed + start
            batch = await self._call(model, request.with_n(count, seed=seed, first_sample=start))
            for offset, completion in enumerate(batch):
                found[start + offset] = completion
                if self.cache is not None:
                    key = keys[start + offset - first_sample]
                    self.cache.put(key, model.spec, completion)
        return [found[i] for i in indices]

    async def score_prompt(self, role: str, request: PromptRequest) -> PromptScores:
        """Prompt log-probabilities of ``request.text`` from the model playing ``role``,
        from the cache when it holds them (one cache hit), else asked for (one request per
        window, their tokens counted as input tokens)."""
        model = self.models[role]
        if not model.capabilities.prompt_logprobs or not isinstance(model, PromptScorer):
            raise ModelRefused(
                f"{model.spec} gives no prompt log-probabilities; backends that do: {SCORING_BACKENDS}."
            )
        key = prompt_cache_key(self._identity(model)[0], request)
        if self.cache is not None:
            hit = self.cache.get_prompt_scores(key)
            if hit is not None:
                self.counters.add(model.spec, cache_hits=1)
                return hit
        scorer = model
        scores = await self._attempts(model, lambda: scorer.prompt_logprobs(request))
        self.counters.add(model.spec, input_tokens=scores.usage.input_tokens)
        if self.cache is not None:
            self.cache.put(key, model.spec, scores)
        if self._progress is not None:
            self._progress.update(self.counters)
        return scores

    async def _call(self, model: Model, request: GenerateRequest) -> list[Completion]:
        completions = await self._attempts(model, lambda: model.generate(request))
        if len(completions) != request.n:
            self.counters.add(model.spec, errors=1)
            raise UnitFailed(f"{model.spec} returned {len(completions)} of {request.n} samples")
        self.counters.add(
            model.spec, input_tokens=sum(c.usage.input_tokens for c in completions),
            output_tokens=sum(c.usage.output_tokens for c in completions),
            reasoning_tokens=sum(c.usage.reasoning_tokens for c in completions),
        )
        if self._progress is not None:
            self._progress.update(self.counters)
        return completions

    async def _attempts(self, model: Model, call: Callable[[], Awaitable[T]]) -> T:
        """``call()`` under the endpoint's adaptive concurrency limit, retried on transient
        errors, counted (requests as the server sees them), behind the endpoint's circuit
        breaker. An overload while other requests were in flight is asked again at the lower
        limit without using up an attempt (see :mod:`creval.runner.limits`)."""
        endpoint = self._endpoint(model)
        gate = self._limit(model)
        attempt = excused = 0
        while True:
            attempt += 1
            if endpoint in self.down:
                raise EndpointDown(endpoint)
            ticket = await gate.acquire()
            if endpoint in self.down:  # it went down while this one waited
                gate.release(ticket, "other")
                raise EndpointDown(endpoint)
            outcome: Outcome = "other"
            sent = time.monotonic()
            try:
                tally = tally_requests()
                try:
                    result = await call()
                    outcome = "ok"
                except BaseException as exc:
                    outcome = overload(exc)
                    raise
                finally:
                    # as the server sees them: a backend that sends several requests
                    # for one call (topping up n, windows) notes each; others count as one
                    self.counters.add(model.spec, requests=tally.requests)
                    gate.release(ticket, outcome, time.monotonic() - sent)
            except EndpointUnreachable as exc:
                self._failures[endpoint] = self._failures.get(endpoint, 0) + 1
                if self._failures[endpoint] >= BREAKER_THRESHOLD:
                    self.down.setdefault(endpoint, str(exc))
                    raise EndpointDown(endpoint) from exc
                if attempt >= self.retry.attempts:
                    self.counters.add(model.spec, errors=1)
                    raise UnitFailed(f"{type(exc).__name__} after {attempt} attempts: {exc}") from exc
                self.counters.add(model.spec, retries=1)
                await asyncio.sleep(self.retry.delay(attempt, None))
                continue
            except (TransientModelError, TimeoutError) as exc:
                self._overloaded(model, endpoint, outcome)
                if (gate.state.excused(ticket, outcome)
                        and excused < EXCUSED_FACTOR * self.retry.attempts):
                    excused += 1
                    attempt -= 1  # it queued behind others: asked again at the lower limit
                elif attempt >= self.retry.attempts:
                    self.counters.add(model.spec, errors=1)
                    raise UnitFailed(f"{type(exc).__name__} after {attempt} attempts: {exc}") from exc
                self.counters.add(model.spec, retries=1)
                await asyncio.sleep(self.retry.delay(max(1, attempt), getattr(exc, "retry_after", None)))
                continue
            except ModelError as exc:
                self.counters.add(model.spec, errors=1)
                raise ModelRefused(f"{type(exc).__name__}: {exc}") from exc
            self._failures[endpoint] = 0
            return result

    # -- units --------------------------------------------------------------------------------
    async def _run_unit(self, unit: Unit) -> Record | None:
        """Run one unit and build its record; None when its endpoint was down (no record)."""
        ctx = UnitContext(self)
        started = time.time()
        try:
            output = await unit.run(ctx)
            record = Record(
                key=unit.key, status="ok", unit=unit.meta, output=output, calls=ctx.calls,
                started=started, seconds=time.time() - started,
            )
        except EndpointDown:
            return None
        except UnitFailed as exc:
            record = Record(
                key=unit.key, status="error", unit=unit.meta, calls=ctx.calls, error=str(exc),
                started=started, seconds=time.time() - started,
            )
        except Exception as exc:  # a bug in a unit must not lose the rest of the run
            record = Record(
                key=unit.key, status="error", unit=unit.meta, calls=ctx.calls,
                error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}",
                started=started, seconds=time.time() - started,
            )
        return record

    def pending(self, units: Sequence[Unit]) -> list[Unit]:
        """Units without a finished record. Errored units are tried again; an ``ok`` record
        without calls is finished only once :meth:`run` found that its unit asks no model
        and gives that output (:meth:`_asks_nothing`)."""
        done = {k for k, r in self.store.latest().items() if r.status == "ok"
                and (r.calls or k in self._callless)}
        seen: set[str] = set()
        todo = []
        for unit in units:
            if unit.key in seen:
                raise ValueError(f"duplicate unit key {unit.key!r}")
            seen.add(unit.key)
            if unit.key not in done:
                todo.append(unit)
        return todo

    async def run(
        self, units: Sequence[Unit], *, concurrency: int | None = None, keep: bool = True
    ) -> list[Record]:
        """Run the pending units; return the records written by this call.

        ``keep=False`` returns an empty list instead and holds no finished record in memory
        (they are in the store): kept, each costs ~2-3 KB for the rest of the run, +22% of the
        driver's resident memory over 8,000 units of ``bench/soak.py``.
        """
        latest = self.store.latest()
        for unit in units:
            record = latest.get(unit.key)
            if (record is not None and record.status == "ok" and not record.calls
                    and unit.key not in self._callless and await _asks_nothing(unit, record, self)):
                self._callless.add(unit.key)
        todo = self.pending(units)
        if not todo:
            return []
        width = concurrency or max(2, 2 * max(m.max_concurrency for m in self.models.values()))
        gate = asyncio.Semaphore(width)
        written: list[Record] = []

        async def one(unit: Unit) -> None:
            async with gate:
                record = None if self.down else await self._run_unit(unit)
                # queued in order before the gate opens for the next unit
                committed = None if record is None else self.store.queue(record)
            # the width bounds the units at work, not those whose fsync is under way: the
            # unit counts as finished only once its record is on disk
            if committed is not None:
                await asyncio.shield(committed)
                if self.cache is not None:  # its answers' cache rows, committed behind
                    await self.cache.flushed()
            if record is None:
                self.counters.units_not_run += 1
            elif record.status == "error":
                self.counters.units_failed += 1
            else:
                self.counters.units_ok += 1
            if record is not None and keep:
                written.append(record)
            if self._progress is not None:
                self._progress.advance(self.counters)

        with Progress(total=len(todo), enabled=self.show_progress, description=self.label,
                      counters=self.counters) as progress:
            self._progress = progress
            try:
                await asyncio.gather(*(one(u) for u in todo))
            finally:
                self._progress = None
                for endpoint, limit in self._limits.items():
                    remember(endpoint, limit.state)  # the next run here starts from it
                self.counters.endpoints = self.adaptation()
        return written


class _Asked(Exception):
    """A probed unit asked a model."""


class _Probe:
    """A unit's context that stops the unit at its first model call (:func:`_asks_nothing`)."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner
        self.calls: list[dict[str, Any]] = []

    def capabilities(self, role: str = "target") -> Capabilities:
        model = self._runner.models.get(role) or self._runner.models.get("target")
        return model.capabilities if model is not None else Capabilities()

    async def generate(self, request: GenerateRequest, **_: Any) -> list[Completion]:
        raise _Asked

    async def prompt_logprobs(self, text: str, **_: Any) -> PromptScores:
        raise _Asked


async def _asks_nothing(unit: Unit, record: Record, runner: Runner) -> bool:
    """Whether ``unit`` finishes without asking a model and gives ``record``'s output: only
    then is an ``ok`` record without calls finished (one appended by hand is run again)."""
    try:
        output = await unit.run(_Probe(runner))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - it asked a model, or cannot run without one
        return False
    again = json.loads(Record(key=unit.key, status="ok", output=output).model_dump_json())["output"]
    return bool(again == record.output)


def _missing_runs(indices: list[int], found: dict[int, Any]) -> list[tuple[int, int]]:
    """Contiguous runs ``(start, count)`` of indices not in ``found``.

    >>> _missing_runs([0, 1, 2, 3, 4], {1: "x", 2: "y"})
    [(0, 1), (3, 2)]
    """
    runs: list[tuple[int, int]] = []
    for i in indices:
        if i in found:
            continue
        if runs and runs[-1][0] + runs[-1][1] == i:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((i, 1))
    return runs
