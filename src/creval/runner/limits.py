"""Requests in flight to one endpoint, adapted to what the server takes.

A server that answers fewer requests at once than it is sent (a llama.cpp server with one
slot, a rate-limited API) queues the rest or refuses them: the requests at the back of its
queue time out, or come back 429 or 503. The runner starts each endpoint gently and adapts
its requests in flight the way TCP adapts its window:

* **slow start**: an endpoint new to the process starts at :data:`START` request in flight,
  and each answer to a request sent at the limit adds one (the limit doubles every round of
  answers) while the answers come as fast as the fastest one did (at most :data:`HOLD` times
  its latency; the first answer's latency, which carries the client's set-up, is not
  used), up to the requested concurrency (``--concurrency``, the backend's default).
  An answer slower than that means the requests queue at the server: slow start ends there,
  before any timeout, at the requests the server works on at once (those in flight when the
  slow answer was sent, times the fastest latency over its own, at least one), and from then
  on the limit grows as below only on answers whose
  latency holds (a queue that grows by one request makes every answer wait one answer
  longer, and the back of it times out). A fast API reaches the requested
  concurrency in a few rounds; a one-slot server is sent a few requests, not eight at once
  (which it works through even when their clients have given up);

* the answers to requests sent since the last back-off are taken in **rounds** of as many
  as were allowed in flight (or in flight at most, when fewer were sent; at least four).
  When **more than a quarter** of a round's answers are overloads (a timeout, a 429, a
  503), the requests allowed in flight are halved at once, from the fewest that were in
  flight when an overloaded request of the round was sent (a server that takes three fails
  the fourth; at least one); overloads of requests sent before the back-off are the same
  event and change nothing more. A few overloads among many answers (a busy API's random
  429s) are not load: TCP halves its window once per round trip, not per lost packet. A
  server that times out even the first request of a round goes to one in flight at once;
* each **answer** to a request sent since the last back-off, while the endpoint had as many
  requests in flight as allowed (a limit never reached proves nothing), raises the limit by
  ``1 / limit`` (one more request per round of answers) up to the requested value; the step
  back up to the level that last overloaded the server is four times slower, and twice
  slower again each time that level (or a lower one) overloads it again, so that a server
  that takes three at once is not pushed to four every few answers. Once the limit has
  grown past that level, it is forgotten.

A request that was overloaded while others were in flight to the same endpoint is
*excused* (:meth:`AdaptiveLimit.excused`): it may have waited behind them rather than
failed, so the runner asks again at the lower limit without counting the attempt. One sent
alone counts like any failure, so an endpoint that cannot answer even one request in time
still ends in error records after ``--retries`` attempts.

This module is the arithmetic (:class:`AdaptiveLimit`, pure, tested on its own) and the gate
the runner awaits (:class:`AdaptiveGate`, first come first served). What one endpoint learned
is kept for the rest of the process (:func:`learned_limit`), so the runs of a profile or a
sweep do not each time out again before they back off.

>>> limit = AdaptiveLimit(8)
>>> tickets = [limit.start() for _ in range(8)]
>>> [limit.finish(t, "timeout") for t in tickets[5:]], limit.allowed   # 3 of 8: 6 -> 3
([False, False, True], 3)
>>> limit.finish(tickets[4], "timeout"), limit.allowed    # sent before the back-off
(False, 3)
>>> limit.excused(tickets[4], "timeout"), limit.excused(tickets[0], "ok")
(True, False)
>>> for t in tickets[:4]:    # answers to requests sent before the back-off: no growth
...     _ = limit.finish(t, "ok")
>>> limit.allowed
3
>>> for t in [limit.start() for _ in range(3)]:    # a round at the new limit, answered
...     _ = limit.finish(t, "ok")
>>> limit.allowed, limit.timeouts, limit.backoffs
(4, 4, 1)
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

#: What a finished request did to the endpoint: answered, overloaded it, or neither (another
#: error, or cancelled).
Outcome = Literal["ok", "timeout", "429", "503", "other"]
OVERLOADS: tuple[Outcome, ...] = ("timeout", "429", "503")
#: Growth back to the level that last overloaded the endpoint is this many times slower,
#: doubled for each overload again at that level or below, up to ``2 ** MOST_REPEATS`` times.
SLOW = 4
MOST_REPEATS = 4
#: A round whose overloads are more than this share of its answers backs off.
SHARE = 0.25
#: Answers a round takes at least: one overload among the first answers of a run that is
#: still sending (or of two in flight) is chance as often as load.
SMALLEST_ROUND = 4
#: Requests in flight an endpoint new to the process starts with (slow start).
START = 1
#: Slow start goes on while an answer takes at most this many times the fastest answer's
#: latency: one answer queued behind another at a one-slot server takes twice as long.
HOLD = 1.5


@dataclass(frozen=True)
class Ticket:
    """One request let through: the back-off epoch it was sent in, how many requests of the
    endpoint were in flight then (itself included) and how often the limit had been full."""

    epoch: int
    in_flight: int
    full_before: int = 0


@dataclass
class AdaptiveLimit:
    """The requests allowed in flight to one endpoint, and what happened to them."""

    requested: int
    #: The limit as a real number (answers raise it by fractions); :attr:`allowed` is used.
    limit: float = 0.0
    in_flight: int = 0
    #: The level that last overloaded the endpoint: the limit grows back to it slowly.
    ceiling: int | None = None
    #: Back-offs in a row at or below the ceiling before them (each slows the growth more).
    repeats: int = 0
    epoch: int = 0
    #: Times a request filled the limit (in flight reached allowed).
    full: int = 0
    started_at: int = 0
    lowest: int = 0
    backoffs: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    #: The round so far: answers and overloads of this epoch's requests, and the most
    #: requests in flight while its requests were sent.
    round_answers: int = 0
    round_overloads: int = 0
    peak: int = 0
    #: The fewest requests in flight when an overloaded request of the round was sent.
    round_low: int = 0
    #: Start at :data:`START` and grow by one per answer while latency holds (slow start).
    slow_start: bool = False
    #: Whether slow start is still on, and the fastest answer's latency (seconds) so far.
    ramping: bool = False
    fastest: float | None = None
    #: Whether slow start ended on a slow answer (the server queues): growth then needs
    #: answers whose latency holds.
    queues: bool = False
    #: Whether an answer came already (the first one's latency is not used).
    answered: bool = False

    def __post_init__(self) -> None:
        if self.requested < 1:
            raise ValueError(f"requested concurrency must be >= 1, got {self.requested}")
        if self.limit <= 0:
            self.limit = float(min(self.requested, START) if self.slow_start else self.requested)
        self.limit = min(self.limit, float(self.requested))
        self.ramping = self.ramping or (self.slow_start and self.limit < self.requested)
        self.started_at = self.allowed
        self.lowest = self.requested if self.slow_start else self.allowed

    @property
    def allowed(self) -> int:
        """Requests allowed in flight now: at least 1, at most the requested value."""
        return max(1, min(self.requested, math.floor(self.limit + 1e-9)))

    @property
    def timeouts(self) -> int:
        return self.counts.get("timeout", 0)

    def can_start(self) -> bool:
        return self.in_flight < self.allowed

    def start(self) -> Ticket:
        """Let one request through (the caller checked :meth:`can_start`)."""
        before = self.full
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        if self.in_flight >= self.allowed:
            self.full += 1
        return Ticket(self.epoch, self.in_flight, before)

    def finish(self, ticket: Ticket, outcome: Outcome, latency: float | None = None) -> bool:
        """The request of ``ticket`` ended with ``outcome`` after ``latency`` seconds (an
        answer's, for slow start); True when the limit backed off."""
        self.in_flight = max(0, self.in_flight - 1)
        if outcome == "ok" and not self.answered:
            self.answered, latency = True, None  # it carries the client's set-up (imports, TLS)
        if outcome == "ok" and latency is not None:
            self.fastest = latency if self.fastest is None else min(self.fastest, latency)
        if outcome != "other":
            self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if outcome == "other" or ticket.epoch != self.epoch:
            return False  # says nothing of load, or of the load before the last back-off
        self.round_answers += 1
        if outcome in OVERLOADS:
            self.round_overloads += 1
            self.round_low = min(self.round_low or ticket.in_flight, ticket.in_flight)
        elif self.full > ticket.full_before:
            self._grow(latency, ticket.in_flight)  # sent at the limit, reached meanwhile
        size = max(SMALLEST_ROUND, min(self.allowed, self.peak))
        if self.round_overloads > SHARE * size:
            return self._back_off(min(self.allowed, self.peak, self.round_low))
        if self.round_answers >= size:  # the round is over: the next one starts afresh
            self.round_answers = self.round_overloads = self.round_low = 0
            self.peak = self.in_flight
        return False

    def _back_off(self, level: int) -> bool:
        """Halve the limit from ``level`` (the fewest requests in flight that overloaded it)."""
        self.epoch += 1  # overloads of requests sent before now are this same event
        self.ramping = False
        self.round_answers = self.round_overloads = self.peak = self.round_low = 0
        new = max(1, level // 2)
        if new >= self.allowed:
            return False
        self.repeats = self.repeats + 1 if self.ceiling is not None and level <= self.ceiling else 0
        self.ceiling = level
        self.limit = float(new)
        self.lowest = min(self.lowest, new)
        self.backoffs += 1
        return True

    def _grow(self, latency: float | None = None, sent_among: int = 1) -> None:
        held = latency is None or self.fastest is None or latency <= HOLD * self.fastest
        if self.ramping and not held:  # answers wait behind each other: the server is full
            assert latency is not None and self.fastest is not None
            self.ramping, self.queues = False, True
            works_on = max(1, math.floor(sent_among * self.fastest / latency + 1e-9))
            self.limit = float(min(self.allowed, works_on))
            return
        if self.ramping:
            self.limit = min(float(self.requested), self.limit + 1.0)
            self.ramping = self.limit < self.requested
            return
        if self.queues and not held:
            return  # one more in its queue would make every answer wait longer
        step = 1.0 / self.allowed
        if self.ceiling is not None and self.allowed + 1 == self.ceiling:
            step /= SLOW * 2 ** min(self.repeats, MOST_REPEATS)
        self.limit = min(float(self.requested), self.limit + step)
        if self.ceiling is not None and self.allowed > self.ceiling:
            self.ceiling, self.repeats = None, 0  # grown past it: it overloaded once, not for good

    def excused(self, ticket: Ticket, outcome: Outcome) -> bool:
        """Whether the failure does not count against the request's attempts: an overload
        while other requests were in flight to the endpoint (it may have queued behind them)."""
        return outcome in OVERLOADS and ticket.in_flight > 1

    def summary(self) -> dict[str, int]:
        """What this endpoint went through, for the run's usage (``scores.json``)."""
        return {"requested": self.requested, "started": self.started_at, "final": self.allowed,
                "lowest": self.lowest, "backoffs": self.backoffs,
                "timeouts": self.timeouts, "rate_limited": self.counts.get("429", 0),
                "unavailable": self.counts.get("503", 0)}

    def adapted(self) -> bool:
        """Whether there is anything to say: the limit moved, or the endpoint was overloaded
        (growing from slow start's few requests is not news)."""
        if self.backoffs or any(self.counts.get(k, 0) for k in OVERLOADS):
            return True
        return not self.slow_start and (self.lowest != self.requested
                                        or self.allowed != self.requested)


#: (endpoint, requested) -> (limit, ceiling, repeats, ramping, fastest, queues) the last gate of this
#: process ended with.
_LEARNED: dict[tuple[str, int], tuple[float, int | None, int, bool, float | None, bool]] = {}


def learned_limit(endpoint: str, requested: int, *, slow_start: bool = True) -> AdaptiveLimit:
    """A limit for ``endpoint`` at the requested value, slow-starting (see the module) when
    ``slow_start`` (a server over the network; an in-process model or a batch API takes the
    requested value at once), or where the last one in this process ended (see :func:`remember`)."""
    learned = _LEARNED.get((endpoint, requested))
    if learned is None:
        return AdaptiveLimit(requested, slow_start=slow_start)
    limit, ceiling, repeats, ramping, fastest, queues = learned
    return AdaptiveLimit(requested, limit=limit, ceiling=ceiling, repeats=repeats,
                         ramping=ramping, fastest=fastest, queues=queues)


def remember(endpoint: str, state: AdaptiveLimit) -> None:
    """Keep where ``state`` ended, for the next gate of ``endpoint`` in this process."""
    _LEARNED[(endpoint, state.requested)] = (state.limit, state.ceiling, state.repeats,
                                             state.ramping, state.fastest, state.queues)


class AdaptiveGate:
    """Awaited by each request to an endpoint: lets through :attr:`AdaptiveLimit.allowed` at
    a time, in the order they came, and more as the limit grows."""

    def __init__(self, state: AdaptiveLimit) -> None:
        self.state = state
        self._waiting: deque[asyncio.Future[Ticket]] = deque()

    async def acquire(self) -> Ticket:
        if not self._waiting and self.state.can_start():
            return self.state.start()
        future: asyncio.Future[Ticket] = asyncio.get_running_loop().create_future()
        self._waiting.append(future)
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # let through as it was cancelled
                self.release(future.result(), "other")
            else:
                self._waiting.remove(future)
            raise

    def release(self, ticket: Ticket, outcome: Outcome, latency: float | None = None) -> bool:
        """The request of ``ticket`` ended (after ``latency`` seconds); True when the limit
        backed off."""
        backed_off = self.state.finish(ticket, outcome, latency)
        while self._waiting and self.state.can_start():
            future = self._waiting.popleft()
            if not future.done():
                future.set_result(self.state.start())
        return backed_off
