"""The adaptive concurrency limit of an endpoint (creval.runner.limits): the arithmetic, the
gate, and the two together against a one-slot server simulated in asyncio."""

from __future__ import annotations

import asyncio
import doctest
import random
from pathlib import Path

import pytest

from creval.runner import limits
from creval.runner.limits import AdaptiveGate, AdaptiveLimit, Ticket, learned_limit, remember


def test_the_module_examples_run() -> None:
    assert doctest.testmod(limits).failed == 0


def test_a_round_of_overloads_halves_the_requests_in_flight_down_to_one() -> None:
    """Every request fails, the last sent first: the third overload of a round of 8 is more
    than a quarter, 6 were in flight when it was sent: 6 -> 3; then 3 -> 1."""
    limit = AdaptiveLimit(8)
    assert limit.allowed == 8
    seen = []
    for _ in range(4):
        before = limit.allowed
        tickets = [limit.start() for _ in range(before)]
        assert not limit.can_start()
        backed = [limit.finish(t, "timeout" if i == 0 else "429")
                  for i, t in enumerate(reversed(tickets))]
        assert sum(backed) == (before > 1)  # the rest of the round is the same event
        seen.append(limit.allowed)
    assert seen == [3, 1, 1, 1]
    assert limit.lowest == 1 and limit.backoffs == 2 and limit.in_flight == 0
    assert limit.summary()["timeouts"] == 4 and limit.summary()["rate_limited"] == 7 + 2
    assert limit.adapted()


def test_a_few_overloads_in_a_round_are_not_load() -> None:
    """More than a quarter of a round's answers back off, a quarter or fewer do not."""
    limit = AdaptiveLimit(8)
    tickets = [limit.start() for _ in range(8)]
    assert [limit.finish(t, "503") for t in tickets[6:]] == [False, False]  # 2 of 8
    assert limit.allowed == 8
    assert limit.finish(tickets[5], "429") and limit.allowed == 3  # the third: 6 -> 3
    assert not any(limit.finish(t, "503") for t in tickets[:5])
    assert limit.allowed == 3 and limit.backoffs == 1


def test_one_overload_while_a_run_is_still_sending_is_not_load() -> None:
    """A run whose requests go out one by one (an executor handing out units) meets a
    random 429 on its first answer: one of one is chance as often as load, the limit stays
    (it fell to 1, and grew back one request per round)."""
    limit = AdaptiveLimit(64)
    assert not limit.finish(limit.start(), "429")
    for _ in range(3):  # a round of four answers, one overloaded
        assert not limit.finish(limit.start(), "ok")
    assert not limit.finish(limit.start(), "503")  # the first of the next round
    assert limit.allowed == 64 and limit.backoffs == 0


def _random_overloads(requested: int, share: float, answers: int, seed: int) -> list[int]:
    """The limit after each answer of an endpoint kept full, whose answers are overloads
    (429, 503, timeouts) at random with probability ``share``."""
    rng = random.Random(seed)
    limit = AdaptiveLimit(requested)
    flying: list[Ticket] = []
    seen = []
    for _ in range(answers):
        while limit.can_start():
            flying.append(limit.start())
        ticket = flying.pop(rng.randrange(len(flying)))
        outcome = rng.choice(("429", "503", "timeout")) if rng.random() < share else "ok"
        limit.finish(ticket, outcome)  # type: ignore[arg-type]
        seen.append(limit.allowed)
    return seen


@pytest.mark.parametrize("requested", [8, 64])
def test_random_overloads_keep_the_limit_near_the_requested_value(requested: int) -> None:
    """A busy API answers 8 % of requests with a 429, 503 or a timeout at random, whatever
    the load (the soak's stand-in server): that is not load, the limit stays near the
    requested value (per failed request it fell to 1-2, and the soak crawled)."""
    means = []
    for seed in range(5):  # (per failed request, the means were 2.6-4.7 at 8 and at 64)
        seen = _random_overloads(requested, 0.08, 20 * requested + 400, seed)
        means.append(sum(seen) / len(seen))
        assert means[-1] >= 0.6 * requested, (seed, min(seen))
        assert max(seen[-requested:]) >= 0.75 * requested
    assert sum(means) / len(means) >= 0.85 * requested, means


def test_sustained_overload_still_halves() -> None:
    """A server that takes 3 at once and answers 429 to the rest: the limit falls from 8 to
    half of the 4 that overloaded it at once, and stays near 3 (overloading the server
    about once in a few rounds)."""
    limit = AdaptiveLimit(8)
    levels = []
    for _ in range(60):
        tickets = [limit.start() for _ in range(limit.allowed)]
        for ticket in tickets:
            limit.finish(ticket, "429" if ticket.in_flight > 3 else "ok")
        levels.append(limit.allowed)
    assert levels[0] == 2 and limit.backoffs >= 2
    assert max(levels) <= 5 and 2.5 <= sum(levels) / len(levels) <= 4.5


@pytest.mark.parametrize(("answered", "levels"), [(0, [1, 1]), (1, [1, 1]), (3, [2, 3])])
def test_a_one_slot_server_that_times_out_backs_off_in_one_round(answered: int,
                                                                 levels: list[int]) -> None:
    """Answers so slow that only the first ``answered`` requests of a round are answered in
    time; those queued behind them time out (and the one in the slot too, when ``answered``
    is 0). The first round halves the limit from the fewest in flight that timed out:
    8 -> 1 when the server cannot take two at once, 8 -> 2 when it takes three (then
    answered, the limit grows)."""
    limit = AdaptiveLimit(8)
    seen = []
    for _ in range(2):
        tickets = [limit.start() for _ in range(limit.allowed)]
        for ticket in tickets:
            limit.finish(ticket, "ok" if ticket.in_flight <= answered else "timeout")
        seen.append(limit.allowed)
    assert seen == levels and limit.backoffs == 1


def test_the_level_is_the_requests_in_flight_when_the_overloaded_one_was_sent() -> None:
    """A server that timed out the second of two requests, twice, takes one at a time,
    whatever the limit was: 8 -> 1, not 8 -> 4 (once is chance as often as load)."""
    limit = AdaptiveLimit(8)
    first, second = limit.start(), limit.start()
    assert not limit.finish(second, "503") and limit.allowed == 8
    assert not limit.finish(first, "ok")
    first, second = limit.start(), limit.start()
    assert limit.finish(second, "503") and limit.allowed == 1 and limit.ceiling == 2
    assert not limit.finish(first, "503")  # sent before the back-off: the same event


def test_other_failures_and_cancelled_requests_leave_the_limit_alone() -> None:
    limit = AdaptiveLimit(4)
    tickets = [limit.start() for _ in range(4)]
    assert [limit.finish(t, "other") for t in tickets] == [False] * 4
    assert limit.allowed == 4 and not limit.adapted() and limit.counts == {}


def test_answers_grow_the_limit_back_one_per_round_and_never_past_the_request() -> None:
    limit = AdaptiveLimit(8, limit=1.0)
    assert _answers_to(limit, 8) == sum(range(1, 8))  # 1 + 2 + ... + 7: a round per step
    for _ in range(10):
        _answers_to(limit, 9, rounds=1)
    assert limit.allowed == 8 and limit.limit == 8.0


def test_answers_grow_the_limit_only_when_it_was_reached() -> None:
    """At the end of a run fewer requests are left than allowed: their answers say nothing
    about more, and neither do those sent before a back-off."""
    limit = AdaptiveLimit(8, limit=3.0)
    for _ in range(20):
        ticket = limit.start()  # one at a time: never 3 in flight
        limit.finish(ticket, "ok")
    assert limit.allowed == 3
    first, second, third = (limit.start() for _ in range(3))
    limit.finish(third, "503")
    limit.finish(second, "503")  # 2 of 3: 2 -> 1
    limit.finish(first, "ok")
    assert limit.limit == 1.0


def _answers_to(limit: AdaptiveLimit, level: int, *, rounds: int | None = None) -> int:
    """Answers, in rounds that fill the limit, until ``level`` is allowed (or ``rounds``)."""
    count = done = 0
    while limit.allowed < level and (rounds is None or done < rounds):
        tickets = [limit.start() for _ in range(limit.allowed)]
        for ticket in tickets:
            limit.finish(ticket, "ok")
        count, done = count + len(tickets), done + 1
    return count


def test_growth_is_slow_back_to_the_level_that_overloaded_the_server() -> None:
    limit = AdaptiveLimit(8)

    def overload_at(level: int) -> None:  # the level-th and the next time out: 2 of 7
        tickets = [limit.start() for _ in range(level + 1)]
        for ticket in tickets[-2:]:
            limit.finish(ticket, "timeout")
        for ticket in tickets[:-2]:
            limit.finish(ticket, "other")

    overload_at(6)  # 6 in flight overloaded it: 3 allowed
    assert (limit.allowed, limit.ceiling, limit.repeats) == (3, 6, 0)
    assert _answers_to(limit, 4) == 3  # far below the ceiling: a round (3 answers) per step
    assert _answers_to(limit, 5) == 4
    assert _answers_to(limit, 6) == 4 * 5  # back to the ceiling: four rounds
    overload_at(6)  # the same level again: twice slower still
    assert (limit.allowed, limit.repeats) == (3, 1)
    assert _answers_to(limit, 5) == 3 + 4 and _answers_to(limit, 6) == 8 * 5
    assert _answers_to(limit, 7) == 6  # past it at the usual pace, and then it is forgotten
    assert limit.ceiling is None and limit.repeats == 0


def test_an_overload_is_excused_only_when_other_requests_were_in_flight() -> None:
    limit = AdaptiveLimit(4)
    alone = limit.start()
    shared = limit.start()
    assert limit.excused(shared, "timeout") and limit.excused(shared, "503")
    assert not limit.excused(alone, "timeout")  # alone: the server is too slow, it counts
    assert not limit.excused(shared, "other")


def test_bad_values_and_a_learned_start() -> None:
    with pytest.raises(ValueError, match="requested concurrency"):
        AdaptiveLimit(0)
    assert AdaptiveLimit(4, limit=9.0).allowed == 4
    first = learned_limit("http://learned.test/v1", 8)
    assert first.allowed == 1 and first.ramping  # new to the process: slow start
    first = AdaptiveLimit(8)
    for ticket in [first.start() for _ in range(8)][-3:]:  # 3 of 8 overloaded: 6 -> 3
        first.finish(ticket, "timeout")
    remember("http://learned.test/v1", first)
    again = learned_limit("http://learned.test/v1", 8)
    assert (again.allowed, again.started_at, again.ceiling, again.repeats) == (3, 3, 6, 0)
    fresh = learned_limit("http://learned.test/v1", 2)  # another request: anew, slow start
    assert (fresh.allowed, fresh.requested, fresh.ramping) == (1, 2, True)


def test_the_gate_lets_through_in_order_and_never_more_than_allowed() -> None:
    async def main() -> tuple[list[int], int]:
        gate = AdaptiveGate(AdaptiveLimit(2))
        order: list[int] = []
        most = 0

        async def request(i: int) -> None:
            nonlocal most
            ticket = await gate.acquire()
            order.append(i)
            most = max(most, gate.state.in_flight)
            await asyncio.sleep(0.01)
            gate.release(ticket, "timeout" if i in (1, 2) else "ok")  # 2 -> 1 after the third

        await asyncio.gather(*(request(i) for i in range(6)))
        return order, most

    order, most = asyncio.run(main())
    assert order == list(range(6)) and most == 2


def test_a_cancelled_waiter_does_not_keep_a_place() -> None:
    async def main() -> tuple[int, int]:
        gate = AdaptiveGate(AdaptiveLimit(1))
        first = await gate.acquire()
        waiter = asyncio.ensure_future(gate.acquire())
        await asyncio.sleep(0)
        waiter.cancel()
        gate.release(first, "ok")  # hands the place to the cancelled waiter, which gives it back
        await asyncio.gather(waiter, return_exceptions=True)
        third = await asyncio.wait_for(gate.acquire(), 1)
        in_flight = gate.state.in_flight
        gate.release(third, "ok")
        return in_flight, gate.state.in_flight

    assert asyncio.run(main()) == (1, 0)


def test_against_a_one_slot_server_the_limit_settles_where_nothing_times_out() -> None:
    """A server that answers one request at a time in ``work`` seconds, and finishes the
    requests whose client gave up: at 8 in flight with a timeout of 4 x work, the back of the
    queue times out until the limit is at most 4; every request is answered in the end."""
    work, timeout = 0.02, 0.08

    async def main() -> tuple[int, AdaptiveLimit, int]:
        slot = asyncio.Lock()
        gate = AdaptiveGate(AdaptiveLimit(8))
        answered = 0

        async def serve() -> None:
            async with slot:
                await asyncio.sleep(work)

        async def ask() -> None:
            nonlocal answered
            while True:
                ticket = await gate.acquire()
                job = asyncio.ensure_future(serve())  # the server goes on when the client leaves
                try:
                    await asyncio.wait_for(asyncio.shield(job), timeout)
                except TimeoutError:
                    gate.release(ticket, "timeout")
                    continue
                gate.release(ticket, "ok")
                answered += 1
                return

        await asyncio.gather(*(ask() for _ in range(60)))
        return answered, gate.state, gate.state.allowed

    answered, state, final = asyncio.run(main())
    assert answered == 60
    assert state.timeouts >= 1 and state.lowest <= 4 and state.backoffs >= 1
    assert final <= 6  # settled near what the server takes, not back at 8


def test_the_runner_backs_off_on_503_and_429_from_a_real_endpoint(tmp_path: Path) -> None:
    """The openai backend marks 429 and 503 as overloads: the runner halves the endpoint's
    requests in flight, says so in its counters, and every unit is answered; a 500 is
    retried like before and leaves the limit alone."""
    from _servers import ChatServer

    from creval.models import get_model
    from creval.models.base import GenerateRequest
    from creval.runner import RetryPolicy, Runner, RunStore, Unit, UnitContext

    server = ChatServer(script=[200] * 6 + [503, 429, 500])  # after slow start reached 4
    model = get_model("openai:scripted", base_url=server.url, api_key="k", concurrency=4)

    def unit(i: int) -> Unit:
        async def run(ctx: UnitContext) -> dict[str, str]:
            (answer,) = await ctx.generate(GenerateRequest.chat(f"q{i}", max_tokens=5))
            return {"text": answer.text}

        return Unit(key=f"u{i}", run=run)

    runner = Runner(RunStore(tmp_path), {"target": model}, progress=False,
                    retry=RetryPolicy(attempts=3, base_delay=0.01))
    try:
        records = asyncio.run(runner.run([unit(i) for i in range(16)]))
    finally:
        server.close()
    assert sorted(r.status for r in records) == ["ok"] * 16
    [(endpoint, seen)] = runner.counters.endpoints.items()
    assert endpoint == server.url and seen["requested"] == 4
    assert seen["unavailable"] == 1 and seen["rate_limited"] == 1 and seen["timeouts"] == 0
    assert 1 <= seen["backoffs"] <= 2 and seen["lowest"] <= 2
    assert runner.counters.per_model[model.spec]["retries"] == 3
