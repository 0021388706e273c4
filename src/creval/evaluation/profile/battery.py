"""The profile battery: which benchmarks of the five papers a profile runs, at which size,
and which of their measurements it reports, read from what each registered benchmark declares
(``Benchmark.battery_member``: family, place, measures, options per size).

The battery is versioned (:data:`BATTERY_VERSION`): a profile directory records the
version it ran, and a change of benchmarks, sizes or measurements bumps it, so two profiles
are compared only when they ran the same battery.

Sizes:

- ``smoke``: minutes on the offline default model; checks a set-up, separates nothing.
- ``standard`` (the default): sized so that the 95% intervals of two models are disjoint
  when their means differ by the smallest gap the paper itself separates. A mean's
  interval half-width is about ``1.96 * sd / sqrt(n)``, so disjoint intervals at a gap
  ``g`` need ``n >= (2 * 1.96 * sd / g) ** 2`` items (:func:`items_to_separate`). The sd
  and the gap of each benchmark are declared by it (``Separation`` in its ``battery_member``),
  with where they come from; the profile report also recomputes the size from its own
  bootstrap intervals.
- ``paper``: each paper's full protocol and sizes (use it with ``--preset paper``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from creval.errors import CrevalError
from creval.records.declarations import SIZES, BatteryMember, Family, Measure, MeasureKind, Size

BATTERY_VERSION = "2"

Kind = MeasureKind

__all__ = ["BATTERY_VERSION", "SIZES", "Family", "Kind", "Measure", "Member", "PlannedRun",
           "Separation", "Size", "battery", "battery_families", "describe_battery", "items_to_separate",
           "judged", "separation"]


@dataclass(frozen=True)
class Member:
    """One benchmark of a family, with its options per size and language (its declaration)."""

    benchmark: str
    measures: tuple[Measure, ...]
    sizes: dict[str, dict[str, Any]]
    #: Only in profiles of this language (None: every language).
    lang: str | None = None
    #: Sizes this member runs in (default: all).
    in_sizes: tuple[str, ...] = SIZES
    declared: BatteryMember | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Separation:
    """How many items the ``standard`` size needs for one measure, and why."""

    benchmark: str
    measure: str
    sd: float
    gap: float
    source: str
    #: The units of the measure where a benchmark has several (DAT: ``x100`` for the Olson
    #: variant, ``0-1`` for all-valid, the Japanese paper's); empty where it has one.
    units: str = ""

    @property
    def items(self) -> int:
        return items_to_separate(self.sd, self.gap)


def items_to_separate(sd: float, gap: float, *, z: float = 1.96) -> int:
    """Items per model so that two 95% intervals of a mean are disjoint at a difference of
    ``gap``: each half-width ``z * sd / sqrt(n)`` must be at most ``gap / 2``.

    >>> items_to_separate(0.5, 0.1)   # a proportion near 0.5, 10 points apart
    385
    >>> items_to_separate(1.8, 1.3)   # DAT (0-100), seed 004 Table 6
    30
    """
    if sd < 0 or gap <= 0:
        raise CrevalError("items_to_separate needs sd >= 0 and gap > 0.")
    return max(1, math.ceil((2 * z * sd / gap) ** 2))


def _declared() -> dict[str, BatteryMember]:
    """Every registered benchmark's battery declaration, by name."""
    from creval.benchmarks import registry

    return {name: cls.battery_member for name, cls in registry().items()
            if cls.battery_member is not None}


def separation(benchmark: str, measure: str, options: dict[str, Any]) -> Separation | None:
    """The sd and gap of ``measure`` in the units the run's ``options`` give it, as the
    benchmark declares them (None: not declared)."""
    declared = _declared().get(benchmark)
    s = declared.separation(measure, options) if declared is not None else None
    if s is None:
        return None
    return Separation(benchmark, s.measure, s.sd, s.gap, s.source, s.units)


def judged(benchmark: str, key: str) -> bool:
    """Whether the headline ``key`` of ``benchmark`` depends on a judge, detector or
    evaluator model (so that self-judging weakens it), as the benchmark declares."""
    declared = _declared().get(benchmark)
    return declared is not None and declared.judged(key)


def battery_families() -> list[tuple[Family, tuple[Member, ...]]]:
    """The battery's families in order, each with its members in order."""
    grouped: dict[str, tuple[Family, list[tuple[int, str, Member]]]] = {}
    for name, d in _declared().items():
        member = Member(name, d.measures, d.sizes, d.lang, d.in_sizes, d)
        grouped.setdefault(d.family.name, (d.family, []))[1].append((d.position, name, member))
    ordered = sorted(grouped.values(), key=lambda g: (g[0].rank, g[0].name))
    return [(family, tuple(m for _, _, m in sorted(members, key=lambda x: x[:2])))
            for family, members in ordered]


LANGS = ("en", "ja")


@dataclass(frozen=True)
class PlannedRun:
    """One benchmark of the battery as a profile of ``size`` and ``lang`` runs it."""

    family: Family
    member: Member
    options: dict[str, Any]


def battery(size: str, *, lang: str = "en", families: list[str] | None = None,
            only: list[str] | None = None) -> list[PlannedRun]:
    """The runs of a profile, in order, with their options.

    >>> [r.member.benchmark for r in battery("smoke")]
    ['neocoder', 'macgyver', 'metric-validity', 'oogiri', 'lotbench', 'ttct', 'dat', 'sat', 'ttcw-judges', 'ttcw', 'aut', 'noveltybench']
    >>> [r.member.benchmark for r in battery("paper", lang="ja", families=["ttct"])]
    ['jcq', 'dat', 'sat']
    """
    if size not in SIZES:
        raise CrevalError(f"Unknown size {size!r}: choose smoke, standard or paper.")
    if lang not in LANGS:
        raise CrevalError(f"Unknown language {lang!r}: choose {' or '.join(LANGS)}.")
    known = battery_families()
    names = [f.name for f, _ in known]
    unknown = sorted(set(families or []) - set(names))
    if unknown:
        raise CrevalError(f"Unknown famil{'y' if len(unknown) == 1 else 'ies'} "
                          f"{', '.join(unknown)}: choose from {', '.join(names)}.")
    members = {m.benchmark for _, ms in known for m in ms}
    if only and (wrong := sorted(set(only) - members)):
        raise CrevalError(f"{', '.join(wrong)} not in the battery: choose from "
                          f"{', '.join(sorted(members))}.")
    planned = []
    for family, family_members in known:
        if families and family.name not in families:
            continue
        for member in family_members:
            if size not in member.in_sizes or (member.lang not in (None, lang)):
                continue
            if only and member.benchmark not in only:
                continue
            options = dict(member.sizes.get(size, {}))
            if member.declared is not None and member.declared.takes_lang and lang != "en":
                options["lang"] = lang
            planned.append(PlannedRun(family, member, options))
    return planned


def describe_battery() -> list[dict[str, Any]]:
    """Every member with its options per size, for the manifest and the docs."""
    return [
        {"family": f.name, "seed": f.seed, "benchmark": m.benchmark, "lang": m.lang or "any",
         "measures": [x.key for x in m.measures],
         "sizes": {s: m.sizes.get(s, {}) for s in m.in_sizes}}
        for f, ms in battery_families() for m in ms
    ]
