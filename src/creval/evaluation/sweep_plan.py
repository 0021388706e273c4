"""A sweep's request from :func:`creval.evaluation.sweep.sweep`'s arguments, and every run it
would make, for ``creval sweep --plan`` (nothing run, nothing written)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.plans import Plan
from creval.evaluation.sweep import SweepRequest, parse_values, planned_sweep, sweep_out


def sweep_cells(request: SweepRequest, out: Path | None) -> list[tuple[str, list[tuple[str, Plan]]]]:
    """Every (model, plan) the sweep would run, per point (``temperature=0.7``), validated,
    nothing written (``--plan``)."""
    _, profiles, plans = planned_sweep(request, sweep_out(request, out))
    points = [(f"{request.option}={value!r}", [(run.model, run.plan) for run in runs])
              for value, runs in plans]
    if profiles:
        from creval.evaluation.profile import plan_profile

        points += [(point.name.replace("-", "=", 1), [(profile.model, plan) for _, plan in
                                                      plan_profile(profile, point)])
                   for point, profile in profiles]
    return points


def sweep_request(
    benchmarks: str | Sequence[str] | None = None, *, values: str | Mapping[str, Sequence[float]],
    model: str = "local", profile: bool = False, size: str = "standard", lang: str = "en",
    families: Sequence[str] | None = None, only: Sequence[str] | None = None,
    preset: str | None = None, judge: str | None = None, roles: Mapping[str, str] | None = None,
    role_base_urls: Mapping[str, str] | None = None, **options: Any,
) -> SweepRequest:
    """The sweep request of :func:`creval.evaluation.sweep.sweep`'s arguments (``creval
    sweep``, ``--plan``)."""
    option, chosen = parse_values(values)
    names = [benchmarks] if isinstance(benchmarks, str) else list(benchmarks or [])
    if profile == bool(names):
        raise CrevalError("Name the benchmarks to sweep, or sweep the profile battery "
                          "(creval sweep profile / profile=True), not both.")
    return SweepRequest(
        option=option, values=chosen, model=model, benchmarks=tuple(names),
        profile={"size": size, "lang": lang, "families": list(families or []),
                 "only": list(only or [])} if profile else None,
        options=dict(options), preset=preset, judge=judge, roles=dict(roles or {}),
        role_urls=dict(role_base_urls or {}))
