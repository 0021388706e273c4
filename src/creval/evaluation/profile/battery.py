"""The profile battery: which benchmarks of the five papers a profile runs, at which size,
and which of their measurements it reports.

The battery is versioned (:data:`BATTERY_VERSION`): a profile directory records the
version it ran, and a change of benchmarks, sizes or measurements bumps it, so two profiles
are compared only when they ran the same battery.

Sizes:

- ``smoke``: minutes on the offline default model; checks a set-up, separates nothing.
- ``standard`` (the default): sized so that the 95% intervals of two models are disjoint
  when their means differ by the smallest gap the paper itself separates. A mean's
  interval half-width is about ``1.96 * sd / sqrt(n)``, so disjoint intervals at a gap
  ``g`` need ``n >= (2 * 1.96 * sd / g) ** 2`` items (:func:`items_to_separate`). The sd
  and the gap of each benchmark are in :data:`SEPARATION`, with where they come from; the
  profile report also recomputes the size from its own bootstrap intervals.
- ``paper``: each paper's full protocol and sizes (use it with ``--preset paper``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from creval.errors import CrevalError

BATTERY_VERSION = "2"

Size = Literal["smoke", "standard", "paper"]
SIZES: tuple[Size, ...] = ("smoke", "standard", "paper")
Kind = Literal["convergent", "divergent", "evaluator"]


@dataclass(frozen=True)
class Measure:
    """One headline value of a benchmark that the profile reports."""

    key: str
    kind: Kind
    label: str
    #: True when a larger value means more creative (or a better evaluator).
    higher_is_better: bool = True


@dataclass(frozen=True)
class Member:
    """One benchmark of a family, with its options per size and language."""

    benchmark: str
    measures: tuple[Measure, ...]
    sizes: dict[str, dict[str, Any]]
    #: Only in profiles of this language (None: every language).
    lang: str | None = None
    #: Sizes this member runs in (default: all).
    in_sizes: tuple[str, ...] = SIZES


@dataclass(frozen=True)
class Family:
    """One paper's family of benchmarks."""

    name: str
    seed: str
    title: str
    members: tuple[Member, ...] = field(default_factory=tuple)


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


#: The standard size, benchmark by benchmark: the spread of one item and the smallest gap
#: between two models the paper separates.
SEPARATION: tuple[Separation, ...] = (
    Separation("dat", "dat_mean", 1.8, 1.3,
               "seed 004 Table 6 on the x100 scale of the Olson variant: per-trial sd 1.4-1.8; "
               "calm3-22b 51.4 vs GPT-4o 52.7", units="x100"),
    Separation("dat", "dat_mean", 0.018, 0.013,
               "seed 004 Table 6 as printed (0-1, the all-valid variant): per-trial sd "
               "0.014-0.018; calm3-22b 0.514 vs GPT-4o 0.527", units="0-1"),
    Separation("jcq", "mean", 0.6, 0.12,
               "seed 004 Table 3: calm3-22b 3.76 vs GPT-4o 3.64; sd of one answer's mean of "
               "four 1-5 scores about 0.6. Bootstrap intervals over GPT-4o's released "
               "judgements separate every adjacent pair of Table 3 that 700 questions "
               "separate at 105 questions (bench/profile_sizes.py); standard asks 140"),
    Separation("macgyver", "multiagent_overall", 0.35, 0.11,
               "seed 001 Table 3: GPT-4o 0.63 vs Qwen3 32B (thinking) 0.52; mean of three "
               "binary verdicts, sd about 0.35"),
    Separation("sat", "sat_mean", 0.15, 0.053,
               "seed 004 Table 7: Claude 3.5 Sonnet 0.579 vs GPT-4o 0.526; per-story sd "
               "about 0.15 in creval's runs"),
    Separation("oogiri", "acc", 0.5, 0.1, "a proportion near 0.5; 10 points apart"),
    Separation("neocoder", "convergent@0", 0.37, 0.1,
               "seed 000 Table 3: GPT-4 convergent@0 = 0.162, a proportion (sd 0.37)"),
)


def dat_units(options: dict[str, Any]) -> str:
    """The scale of DAT's score under ``options``: ``x100`` (Olson) or ``0-1`` (all-valid).

    >>> dat_units({"lang": "ja", "variant": "auto"}), dat_units({}), dat_units({"variant": "all-valid"})
    ('0-1', 'x100', '0-1')
    """
    variant = options.get("variant", "auto")
    if variant == "auto":
        variant = "all-valid" if options.get("lang", "en") == "ja" else "olson"
    return "0-1" if variant == "all-valid" else "x100"


def separation(benchmark: str, measure: str, options: dict[str, Any]) -> Separation | None:
    """The sd and gap of ``measure`` in the units the run's ``options`` give it."""
    units = dat_units(options) if benchmark == "dat" else ""
    for s in SEPARATION:
        if s.benchmark == benchmark and s.measure == measure and s.units == units:
            return s
    return None




def _opts(**kw: Any) -> dict[str, Any]:
    return kw


_NEOCODER = Member(
    "neocoder",
    (Measure("convergent@0", "convergent", "NeoCoder convergent creativity at t=0"),
     Measure("divergent@{last_state}", "divergent",
             "NeoCoder divergent creativity at the last state")),
    {"smoke": _opts(limit=2, states="0-2", detector="both", max_tokens=300),
     "standard": _opts(limit=100, states="0-5"),
     "paper": _opts(states="0-5")},
)
_MACGYVER = Member(
    "macgyver",
    (Measure("multiagent_overall", "convergent", "MacGyver multi-agent judge, overall"),
     Measure("semantic_entropy", "divergent", "MacGyver step-wise semantic entropy")),
    {"smoke": _opts(limit=1, n=5, max_steps=3, judge_max_tokens=96, judges="multiagent"),
     "standard": _opts(limit=160),
     "paper": _opts(subset="paper300")},
)
_OPEN_ENDED_PAPER = tuple(
    Member(name, _MACGYVER.measures, {"paper": _opts(limit=300)},
           in_sizes=("paper",))
    for name in ("hypogen", "bookmia")
)
_METRIC_VALIDITY = Member(
    "metric-validity",
    (Measure("ppl_auroc", "evaluator", "perplexity under the model tells creative texts (AUROC)"),
     Measure("ci_mean_auroc", "evaluator", "Creativity Index tells creative texts (AUROC)")),
    {"smoke": _opts(limit=20), "standard": _opts(limit=200), "paper": _opts()},
)
_OOGIRI = Member(
    "oogiri",
    (Measure("acc", "convergent", "Oogiri choice accuracy"),),
    {"smoke": _opts(limit=3, constrain_answers=True),
     "standard": _opts(limit=400, constrain_answers=True),
     "paper": _opts()},
)
_LOTBENCH = Member(
    "lotbench",
    (Measure("S_c", "divergent", "LoTbench creativity score S_c"),),
    {"smoke": _opts(limit=1, repeats=1, max_rounds=2, judge_max_tokens=64),
     "standard": _opts(), "paper": _opts()},
)
_DAT = Member(
    "dat",
    (Measure("dat_mean", "divergent", "DAT score"),),
    {"smoke": _opts(trials=30), "standard": _opts(trials=100), "paper": _opts(trials=100)},
)
_SAT = Member(
    "sat",
    (Measure("sat_mean", "divergent", "SAT: distance of rewrite from original"),),
    {"smoke": _opts(limit=10), "standard": _opts(), "paper": _opts()},
)
_RUBRIC_MEASURES = (Measure("mean", "convergent", "TTCT rubric mean (1-5)"),
                    Measure("originality", "divergent", "TTCT rubric originality (1-5)"))
_RUBRIC_SIZES = {"smoke": _opts(limit=7, answers=1, max_tokens=200),
                 "standard": _opts(limit=140, answers=5),
                 "paper": _opts(answers=5)}
_JCQ = Member("jcq", _RUBRIC_MEASURES, {**_RUBRIC_SIZES, "paper": _opts(questions="upstream",
                                                                         answers=5)}, lang="ja")
_TTCT = Member("ttct", _RUBRIC_MEASURES, _RUBRIC_SIZES, lang="en")
_AUT = Member(
    "aut",
    (Measure("originality_mean", "divergent", "AUT originality per use (--scorer; SemDis default)"),
     Measure("fluency_mean", "divergent", "AUT fluency: valid distinct uses per object")),
    {"smoke": _opts(limit=2, uses=5, max_tokens=200, validation_limit=60),
     "standard": _opts(), "paper": _opts()}, lang="en",
)

_TTCW_JUDGES = Member(
    "ttcw-judges",
    (Measure("kappa", "evaluator", "TTCW: the model as a writing judge, kappa with the experts"),),
    {"smoke": _opts(limit=1, tests="1,5,9", max_tokens=16), "standard": _opts(), "paper": _opts()},
)
_TTCW = Member(
    "ttcw",
    (Measure("pass_rate", "convergent", "TTCW: share of the 14 tests its stories pass"),),
    {"smoke": _opts(limit=1, tests="1,5,9", max_tokens=200, judge_max_tokens=16),
     "standard": _opts(), "paper": _opts()},
)

_NOVELTYBENCH = Member(
    "noveltybench",
    (Measure("distinct_mean", "divergent", "NoveltyBench distinct answers in k tries"),
     Measure("utility_mean", "convergent", "NoveltyBench utility of the distinct answers")),
    {"smoke": _opts(limit=2, k=3, max_tokens=64, partitioner="embedding"),
     "standard": _opts(), "paper": _opts(subset="curated")},
)

FAMILIES: tuple[Family, ...] = (
    Family("neocoder", "000", "NeoCoder: Denial Prompting and NeoGauge", (_NEOCODER,)),
    Family("open-ended", "001", "Open-ended tasks: semantic entropy and the multi-agent judge",
           (_MACGYVER, *_OPEN_ENDED_PAPER)),
    Family("metric-validity", "002", "Metric validity: the model as an evaluator of creativity",
           (_METRIC_VALIDITY,)),
    Family("lotbench", "003", "LoTbench and Oogiri: leaps of thought", (_OOGIRI, _LOTBENCH)),
    Family("ttct", "004", "TTCT family: rubric questions, DAT, SAT", (_TTCT, _JCQ, _DAT, _SAT)),
    Family("beyond", "-", "Beyond the five seed papers: the field's most used creativity "
           "measures (TTCW, AUT, NoveltyBench)", (_TTCW_JUDGES, _TTCW, _AUT, _NOVELTYBENCH)),
)

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
    names = [f.name for f in FAMILIES]
    unknown = sorted(set(families or []) - set(names))
    if unknown:
        raise CrevalError(f"Unknown famil{'y' if len(unknown) == 1 else 'ies'} "
                          f"{', '.join(unknown)}: choose from {', '.join(names)}.")
    members = {m.benchmark for f in FAMILIES for m in f.members}
    if only and (wrong := sorted(set(only) - members)):
        raise CrevalError(f"{', '.join(wrong)} not in the battery: choose from "
                          f"{', '.join(sorted(members))}.")
    planned = []
    for family in FAMILIES:
        if families and family.name not in families:
            continue
        for member in family.members:
            if size not in member.in_sizes or (member.lang not in (None, lang)):
                continue
            if only and member.benchmark not in only:
                continue
            options = dict(member.sizes.get(size, {}))
            if member.benchmark in ("dat", "sat", "oogiri") and lang != "en":
                options["lang"] = lang
            planned.append(PlannedRun(family, member, options))
    return planned


def describe_battery() -> list[dict[str, Any]]:
    """Every member with its options per size, for the manifest and the docs."""
    return [
        {"family": f.name, "seed": f.seed, "benchmark": m.benchmark, "lang": m.lang or "any",
         "measures": [x.key for x in m.measures],
         "sizes": {s: m.sizes.get(s, {}) for s in m.in_sizes}}
        for f in FAMILIES for m in f.members
    ]
