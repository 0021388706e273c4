"""Per-model counters: requests sent, cache hits, retries, errors and tokens."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FIELDS = ("requests", "cache_hits", "retries", "errors", "input_tokens", "output_tokens")


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
    units_done: int = 0
    units_failed: int = 0

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
            "units_done": self.units_done,
            "units_failed": self.units_failed,
            "models": {m: dict(row) for m, row in self.per_model.items()},
        }


def sum_usage(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Add up the ``as_dict`` counters of several invocations.

    >>> a = {"units_done": 1, "units_failed": 0, "models": {"m": {"requests": 1}}}
    >>> sum_usage([a, a])["models"]["m"]["requests"]
    2
    """
    out: dict[str, Any] = {"units_done": 0, "units_failed": 0, "models": {}}
    for entry in entries:
        out["units_done"] += entry.get("units_done", 0)
        out["units_failed"] += entry.get("units_failed", 0)
        for model, row in entry.get("models", {}).items():
            target = out["models"].setdefault(model, dict.fromkeys(FIELDS, 0))
            for name, value in row.items():
                target[name] = target.get(name, 0) + value
    return out
