"""Per-model counters (requests, cache hits, retries, errors, tokens) and unit outcomes.

The same numbers, with the same names, appear on the console, in ``scores.json`` and in
the report:

* units: ``ok`` (finished), ``failed`` (an error record), ``not_run`` (left for a later
  invocation, for example after the endpoint stopped answering);
* ``requests``: requests as the server sees them, retries and the extra calls that top up
  ``n`` included; ``retries`` of them were repeats after a transient failure. Through a
  Batch API, a request is a line the server ran (answered or failed with an HTTP status)
  whose outcome this invocation collected: a line of a refused batch, or one its batch
  expired before running, counts none;
* ``cache_hits``: samples served from the response cache instead of a request;
* ``timeouts``: requests that timed out (each also a retry or an error);
* ``endpoints``: per endpoint whose concurrency adapted or that was overloaded, the requests
  in flight requested, started with, ended with and at the lowest, its back-offs, timeouts,
  429s (``rate_limited``) and 503s (``unavailable``) (see :mod:`creval.runner.limits`).
* ``reasoning_tokens``: the part of ``output_tokens`` a reasoning model spent thinking
  (billed as output; included in ``output_tokens``, not added to it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FIELDS = ("requests", "cache_hits", "retries", "errors", "input_tokens", "output_tokens",
          "timeouts", "reasoning_tokens")
UNIT_FIELDS = ("units_ok", "units_failed", "units_not_run")


@dataclass
class Counters:
    """Tallies for one invocation of a run.

    >>> c = Counters()
    >>> c.add("local", requests=2, output_tokens=10)
    >>> c.add("local", cache_hits=1)
    >>> c.per_model["local"]["requests"], c.total("output_tokens")
    (2, 10)
    """

    per_model: dict[str, dict[str, int]] = field(default_factory=dict)
    units_ok: int = 0
    units_failed: int = 0
    units_not_run: int = 0
    endpoints: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, model: str, **amounts: int) -> None:
        row = self.per_model.setdefault(model, dict.fromkeys(FIELDS, 0))
        for name, amount in amounts.items():
            if name not in row:
                raise KeyError(f"unknown counter {name!r}")
            row[name] += amount

    def total(self, name: str) -> int:
        return sum(row.get(name, 0) for row in self.per_model.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "units_ok": self.units_ok,
            "units_failed": self.units_failed,
            "units_not_run": self.units_not_run,
            "models": {m: dict(row) for m, row in self.per_model.items()},
            **({"endpoints": dict(self.endpoints)} if self.endpoints else {}),
        }


def _units(entry: dict[str, Any]) -> dict[str, int]:
    """Unit outcomes of one ``as_dict`` entry (older entries said ``units_done``)."""
    if "units_ok" in entry or "units_done" not in entry:
        return {k: int(entry.get(k) or 0) for k in UNIT_FIELDS}
    failed = int(entry.get("units_failed") or 0)
    return {"units_ok": int(entry["units_done"]) - failed, "units_failed": failed,
            "units_not_run": 0}


def sum_usage(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Add up the ``as_dict`` counters of several invocations.

    >>> a = {"units_ok": 1, "units_failed": 0, "models": {"m": {"requests": 1}}}
    >>> total = sum_usage([a, a])
    >>> total["models"]["m"]["requests"], total["units_ok"]
    (2, 2)
    """
    out: dict[str, Any] = {**dict.fromkeys(UNIT_FIELDS, 0), "models": {}}
    for entry in entries:
        for name, value in _units(entry).items():
            out[name] += value
        for model, row in (entry.get("models") or {}).items():
            target = out["models"].setdefault(model, dict.fromkeys(FIELDS, 0))
            for name, value in row.items():
                target[name] = target.get(name, 0) + value
    return out


def totals(usage: dict[str, Any]) -> dict[str, int]:
    """One row of totals over models: units, requests, retries, cache hits, tokens.

    >>> totals({"units_ok": 2, "units_failed": 1, "units_not_run": 0,
    ...         "models": {"a": {"requests": 3, "retries": 1, "input_tokens": 5}}})["requests"]
    3
    """
    row = {k.removeprefix("units_"): int(usage.get(k) or 0) for k in UNIT_FIELDS}
    for name in ("requests", "retries", "cache_hits", "input_tokens", "output_tokens",
                 "reasoning_tokens"):
        row[name] = sum(int(m.get(name) or 0) for m in (usage.get("models") or {}).values())
    return row


def adaptation_lines(usages: Sequence[Mapping[str, Any]]) -> list[str]:
    """One line per endpoint whose concurrency adapted, over the ``as_dict`` counters of one
    or more runs in the order they ran (a profile's): from the first run's requested value to
    the last one's, and why.

    >>> run = {"endpoints": {"http://h/v1": {"requested": 8, "started": 8, "final": 1,
    ...        "lowest": 1, "backoffs": 3, "timeouts": 5, "rate_limited": 0, "unavailable": 0}}}
    >>> adaptation_lines([run])
    ['endpoint http://h/v1: concurrency 8 -> 1 after 5 timeouts']
    """
    merged: dict[str, dict[str, int]] = {}
    for usage in usages:
        for endpoint, row in (usage.get("endpoints") or {}).items():
            seen = merged.setdefault(endpoint, {**row, "timeouts": 0, "rate_limited": 0,
                                                "unavailable": 0})
            seen["final"] = row["final"]
            seen["lowest"] = min(seen["lowest"], row["lowest"])
            for name in ("timeouts", "rate_limited", "unavailable"):
                seen[name] += int(row.get(name) or 0)
    lines = []
    for endpoint, row in merged.items():
        causes = [f"{row[k]} {name}{'' if row[k] == 1 else 's'}" for k, name in
                  (("timeouts", "timeout"), ("rate_limited", "429"), ("unavailable", "503"))
                  if row[k]]
        line = f"endpoint {endpoint}: concurrency {row['requested']} -> {row['final']}"
        if row["lowest"] < row["final"]:
            line += f" (lowest {row['lowest']})"
        line += f" after {', '.join(causes)}" if causes else " (learned earlier in this process)"
        lines.append(line)
    return lines


def not_applied(records: Iterable[Any]) -> list[dict[str, Any]]:
    """Which generation parameters the endpoints did not apply, from the records' calls
    (each completion's ``not_applied``): one row per role, model and parameter, with how many
    of that role's completions went without it.

    >>> call = {"role": "target", "model": "openai:o3", "completions": [
    ...     {"text": "a", "not_applied": ["temperature"]}, {"text": "b"}]}
    >>> not_applied([{"calls": [call]}])
    [{'role': 'target', 'model': 'openai:o3', 'parameter': 'temperature', 'completions': 1, 'of': 2}]
    """
    seen: dict[tuple[str, str], int] = {}
    missing: dict[tuple[str, str, str], int] = {}
    for record in records:
        calls = record.get("calls") if isinstance(record, dict) else getattr(record, "calls", None)
        for call in calls or []:
            who = (str(call.get("role", "target")), str(call.get("model", "")))
            for completion in call.get("completions") or []:
                seen[who] = seen.get(who, 0) + 1
                for name in completion.get("not_applied") or []:
                    missing[(*who, name)] = missing.get((*who, name), 0) + 1
    return [{"role": role, "model": model, "parameter": name, "completions": count,
             "of": seen[(role, model)]} for (role, model, name), count in sorted(missing.items())]


def not_applied_warning(row: dict[str, Any]) -> str:
    """One row of :func:`not_applied` as the run's warning.

    >>> print(not_applied_warning({"role": "target", "model": "openai:o3",
    ...                            "parameter": "temperature", "completions": 2, "of": 2}))
    temperature not applied to openai:o3 (target, 2 of 2 answers): the endpoint rejected it, so those answers were generated at the endpoint's own setting
    """
    return (f"{row['parameter']} not applied to {row['model']} ({row['role']}, {row['completions']} "
            f"of {row['of']} answers): the endpoint rejected it, so those answers were generated "
            "at the endpoint's own setting")
