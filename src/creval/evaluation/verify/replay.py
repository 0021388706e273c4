"""Verify by replay: every unit of a run runs again, against a model that answers only with
the completions the run recorded for that unit, in order (no model is called; sandbox
executions, embeddings, entailment and index look-ups run again).

Each request the unit makes is compared with the recorded one (the role, every field of the
request: messages, sampling fields, response schema; a judge's request holds the text it
judged, so an answer swapped under its judge shows), and each unit's output with the
recorded output. The records re-derived this way (the recorded ones with the replayed
outputs) are what the scores are computed from again. One mechanism for every benchmark,
plug-ins included: it needs of a benchmark only its units.

A difference names the unit, the call or output field and both values. A unit that cannot
be run again (the benchmark's units cannot be built from the manifest, a record of a unit
outside the plan) is said as unverified, never passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from creval.models.base import Capabilities, Completion, GenerateRequest
from creval.models.prompt_scoring import PromptRequest, PromptScores
from creval.records import Record
from creval.runner.engine import ModelRefused, Unit, UnitFailed

#: Differences said per unit at most (the first ones; the rest counted).
PER_UNIT = 3
#: Seconds a call waits for the calls recorded before it (see :meth:`ReplayContext._in_order`).
ORDER_WAIT = 5.0
#: Units replayed at once (each awaits only its own local work: no model is called).
WIDTH = 8


class _Unrecorded(UnitFailed):
    """The unit asked for a call the run did not record."""


@dataclass
class Replay:
    """What :func:`replay_units` found."""

    #: The records re-derived by replay, by unit key (the recorded ones with the replayed
    #: status and output).
    records: dict[str, Record] = field(default_factory=dict)
    differences: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    replayed: int = 0


class ReplayContext:
    """A unit's context whose model answers only with the completions recorded for that
    unit, in order, comparing each request with the recorded one."""

    def __init__(self, record: Record, capabilities: dict[str, Capabilities]) -> None:
        self.key = record.key
        self._record = record
        self._recorded = list(record.calls)
        self._next = 0
        self._used: set[int] = set()
        self._served: set[int] = set()
        self._answered = asyncio.Condition()
        self._caps = capabilities
        self.calls: list[dict[str, Any]] = []
        self.differences: list[str] = []

    def capabilities(self, role: str = "target") -> Capabilities:
        return self._caps.get(role) or self._caps.get("target") or Capabilities()

    def _take(self, role: str, what: str, sent: dict[str, Any], first_sample: int = 0,
              kind: str = "request") -> tuple[int, dict[str, Any]]:
        """The recorded call that answers this one: the first unused call with this very
        request (calls a unit makes at once are recorded in the order their answers came),
        else the next unused one (whose differences are then said)."""
        number = self._next + 1
        left = [i for i in range(len(self._recorded)) if i not in self._used]
        if not left:
            if self._record.status == "ok":  # an error record ends where its call failed
                self.differences.append(f"{self.key}: call {number} ({role}): the unit asks for "
                                        f"{what} the run did not record")
            raise _Unrecorded(f"no recorded answer for call {number}")
        same = [i for i in left if str(self._recorded[i].get("role", "target")) == role
                and int(self._recorded[i].get("first_sample", 0)) == first_sample
                and self._recorded[i].get(kind, self._recorded[i].get(f"refused_{kind}")) == sent]
        index = (same or left)[0]
        self._used.add(index)
        call = self._recorded[index]
        self._next += 1
        number = index + 1
        return number, call

    async def _in_order(self, index: int) -> None:
        """Answer recorded call ``index`` only once the calls recorded before it were
        answered: calls a unit makes at once are recorded in the order their answers came,
        and a unit that gathers what they say in that order (a list of parse failures) gives
        the same output only if they come back in that order again. A call recorded before it
        that the unit never asks (a changed unit: said elsewhere) is waited for
        :data:`ORDER_WAIT` seconds at most."""
        async with self._answered:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._answered.wait_for(
                    lambda: all(i in self._served for i in range(index))), ORDER_WAIT)
            self._served.add(index)
            self._answered.notify_all()

    def _check_role(self, number: int, role: str, call: dict[str, Any]) -> None:
        if str(call.get("role", "target")) != role:
            self.differences.append(f"{self.key}: call {number}: asked of the {role} model, "
                                    f"recorded of the {call.get('role')} model")

    def _compare(self, number: int, role: str, sent: dict[str, Any], recorded: Any) -> None:
        if not isinstance(recorded, dict):
            self.differences.append(f"{self.key}: call {number} ({role}): the run recorded no "
                                    "request for it")
            return
        found = first_difference(sent, recorded, omitted_default=True)
        if found is not None:
            path, mine, theirs = found
            self.differences.append(f"{self.key}: call {number} ({role}) request {path.lstrip('.')}: replay "
                                    f"sends {short(mine)}, the run recorded {short(theirs)}")

    async def generate(self, request: GenerateRequest, *, role: str = "target",
                       first_sample: int = 0) -> list[Completion]:
        dumped = request.model_dump(mode="json")
        number, call = self._take(role, "a generation", dumped, first_sample)
        self._check_role(number, role, call)
        await self._in_order(number - 1)
        self._compare(number, role, dumped, call.get("request", call.get("refused_request")))
        if int(call.get("first_sample", 0)) != first_sample:
            self.differences.append(f"{self.key}: call {number} ({role}): first sample "
                                    f"{first_sample}, the run recorded {call.get('first_sample')}")
        if "refused" in call:
            raise ModelRefused(str(call["refused"]))
        try:
            completions = [Completion.model_validate(c) for c in call.get("completions") or []]
        except ValueError as exc:
            self.differences.append(f"{self.key}: call {number} ({role}): a recorded completion "
                                    f"is not one ({str(exc)[:120]})")
            raise _Unrecorded("bad completion") from None
        if len(completions) != request.n:
            self.differences.append(f"{self.key}: call {number} ({role}): {request.n} sample(s) "
                                    f"asked, {len(completions)} recorded")
        self.calls.append({"role": role, "request": dumped, "first_sample": first_sample,
                           "completions": call.get("completions") or []})
        return completions

    async def prompt_logprobs(self, text: str, *, role: str = "target", window: int | None = None,
                              stride: int | None = None) -> PromptScores:
        asked = PromptRequest(text=text, window=window, stride=stride).model_dump(mode="json")
        number, call = self._take(role, "prompt log-probabilities", asked, kind="prompt_request")
        self._check_role(number, role, call)
        await self._in_order(number - 1)
        self._compare(number, role, asked, call.get("prompt_request"))
        if "refused" in call:
            raise ModelRefused(str(call["refused"]))
        try:
            return PromptScores.model_validate(call.get("prompt_scores"))
        except ValueError:
            self.differences.append(f"{self.key}: call {number} ({role}): no prompt "
                                    "log-probabilities recorded")
            raise _Unrecorded("no prompt scores") from None

    def leftover(self) -> None:
        """Recorded calls the replay did not ask for."""
        left = len(self._recorded) - self._next
        if left > 0 and self._record.status == "ok":
            self.differences.append(f"{self.key}: the run recorded {len(self._recorded)} call(s), "
                                    f"the replayed unit asked for {self._next}")


def capabilities_of(manifest: dict[str, Any]) -> dict[str, Capabilities]:
    """Each role's capabilities as the manifest recorded them (what the units were told)."""
    described = {"target": manifest.get("model"), "judge": manifest.get("judge"),
                 **(manifest.get("roles") or {})}
    out: dict[str, Capabilities] = {}
    for role, entry in described.items():
        caps = entry.get("capabilities") if isinstance(entry, dict) else None
        if isinstance(caps, dict):
            try:
                out[role] = Capabilities.model_validate(caps)
            except ValueError:
                continue
    return out


async def _replay_one(unit: Unit, record: Record, caps: dict[str, Capabilities]) -> tuple[Record, list[str]]:
    ctx = ReplayContext(record, caps)
    status, output, error = "ok", {}, None
    try:
        output = await unit.run(ctx)  # type: ignore[arg-type]
    except UnitFailed as exc:
        status, error = "error", str(exc)
    except Exception as exc:  # noqa: BLE001 - as the runner records a unit's bug
        status, error = "error", f"{type(exc).__name__}: {exc}"
    ctx.leftover()
    found = ctx.differences
    if status != record.status:
        found.append(f"{record.key}: status: replayed {status}{f' ({short(error)})' if error else ''}"
                     f", the run recorded {record.status}")
    elif status == "ok":
        again = json.loads(Record(key=record.key, status="ok", output=output).model_dump_json())["output"]
        diff = first_difference(again, record.output)
        if diff is not None:
            path, mine, theirs = diff
            found.append(f"{record.key}: output{path}: replayed {short(mine)}, the run recorded "
                         f"{short(theirs)}")
        record = record.model_copy(update={"output": again})
    if len(found) > PER_UNIT:
        found = [*found[:PER_UNIT], f"{record.key}: and {len(found) - PER_UNIT} more difference(s)"]
    return record, found


def replay_units(units: list[Unit], latest: dict[str, Record], manifest: dict[str, Any], *,
                 progress: bool = False) -> Replay:
    """Replay each of ``units`` that has a record in ``latest`` (see the module)."""
    caps = capabilities_of(manifest)
    out = Replay()
    todo = [(u, latest[u.key]) for u in units if u.key in latest]
    results: list[tuple[Record, list[str]] | None] = [None] * len(todo)
    started = last = time.monotonic()

    async def every() -> None:
        nonlocal last
        gate = asyncio.Semaphore(WIDTH)

        async def one(i: int) -> None:
            nonlocal last
            async with gate:
                results[i] = await _replay_one(*todo[i], caps)
            out.replayed += 1
            if progress and time.monotonic() - last > 5:
                last = time.monotonic()
                print(f"verify: replayed {out.replayed}/{len(todo)} unit(s) "
                      f"({last - started:.0f} s)", file=sys.stderr, flush=True)

        await asyncio.gather(*(one(i) for i in range(len(todo))))

    asyncio.run(every())
    for result in results:
        assert result is not None
        record, found = result
        out.records[record.key] = record
        out.differences += found
    return out


def first_difference(a: Any, b: Any, path: str = "", *,
                     omitted_default: bool = False) -> tuple[str, Any, Any] | None:
    """The first place where ``a`` and ``b`` differ, as ``(path, a's value, b's value)``;
    floats agree within a relative 1e-6. ``omitted_default``: a key ``b`` lacks whose value
    in ``a`` is None, empty or false is not a difference (a field a newer creval added).

    >>> first_difference({"m": [{"t": "x"}, {"t": "y"}]}, {"m": [{"t": "x"}, {"t": "z"}]})
    ('.m[1].t', 'y', 'z')
    """
    if isinstance(a, dict) and isinstance(b, dict):
        for k in dict.fromkeys([*a, *b]):
            if k not in b and omitted_default and a[k] in (None, "", [], {}, False, 0):
                continue
            if k not in a or k not in b:
                return f"{path}.{k}", a.get(k, "(absent)"), b.get(k, "(absent)")
            found = first_difference(a[k], b[k], f"{path}.{k}", omitted_default=omitted_default)
            if found is not None:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]", omitted_default=omitted_default)
            if found is not None:
                return found
        if len(a) != len(b):
            return f"{path} (length)", len(a), len(b)
        return None
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool) \
            and not isinstance(b, bool):
        import math

        if a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9):
            return None
        return path, a, b
    if isinstance(a, str) and isinstance(b, str) and a != b and max(len(a), len(b)) > 80:
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        start = max(0, at - 20)  # where they part, with a little before it
        return f"{path} (from character {at})", a[start:start + 60], b[start:start + 60]
    return None if a == b else (path, a, b)


def short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


__all__ = ["Replay", "ReplayContext", "capabilities_of", "first_difference", "replay_units"]
