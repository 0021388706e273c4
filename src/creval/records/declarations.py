"""What a benchmark declares about itself, as typed data: published references, presets,
battery membership, sweep pairing, plan cost shape, data sources.

The benchmark fills these values in its own package; ``evaluation/``, ``report/`` and ``cli/``
read them through the benchmark's hooks and never name a benchmark. Like the run contract
beside it, this module imports nothing of creval but ``errors`` (a bottom layer), so a
benchmark declares without importing the layers that read the declarations.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from creval.records import Record, Scores

# --- the profile battery: membership and the measures a profile shows ---------------------

Size = Literal["smoke", "standard", "paper"]
#: The battery's sizes, smallest first (see :mod:`creval.evaluation.profile.battery`).
SIZES: tuple[Size, ...] = ("smoke", "standard", "paper")
MeasureKind = Literal["convergent", "divergent", "evaluator"]


@dataclass(frozen=True)
class Measure:
    """One headline value of a benchmark that the profile reports. A ``key`` holding
    ``{last_state}`` stands for the last state the run scored (``divergent@{last_state}``)."""

    key: str
    kind: MeasureKind
    label: str
    #: True when a larger value means more creative (or a better evaluator).
    higher_is_better: bool = True
    #: True when the value depends on a judge, detector or evaluator model, so that a
    #: self-judged run weakens it.
    judged: bool = field(default=False, compare=False)


@dataclass(frozen=True)
class Family:
    """One paper's family of benchmarks in the battery; ``rank`` orders the families."""

    name: str
    seed: str
    title: str
    rank: int = 100


@dataclass(frozen=True)
class Separation:
    """How many items the ``standard`` size needs for one measure, and why: the spread of one
    item (``sd``) and the smallest gap between two models the paper separates."""

    measure: str
    sd: float
    gap: float
    source: str
    #: The units of the measure where a benchmark has several (DAT: ``x100`` for the Olson
    #: variant, ``0-1`` for all-valid); empty where it has one.
    units: str = ""


@dataclass(frozen=True)
class BatteryMember:
    """A benchmark's place in the profile battery (``Benchmark.battery``)."""

    family: Family
    #: The benchmark's place among its family's members.
    position: int
    measures: tuple[Measure, ...]
    #: Options per size.
    sizes: dict[str, dict[str, Any]]
    #: Only in profiles of this language (None: every language).
    lang: str | None = None
    #: Sizes this member runs in (default: all).
    in_sizes: tuple[str, ...] = SIZES
    #: True when a profile in another language than English passes ``lang=`` to it.
    takes_lang: bool = False
    separations: tuple[Separation, ...] = ()
    #: The units of the measures under a run's options (matched with ``Separation.units``).
    units: Callable[[dict[str, Any]], str] | None = None

    def separation(self, measure: str, options: dict[str, Any]) -> Separation | None:
        """The declared sd and gap of ``measure`` in the units ``options`` give it."""
        units = self.units(options) if self.units is not None else ""
        for s in self.separations:
            if s.measure == measure and s.units == units:
                return s
        return None

    def judged(self, key: str) -> bool:
        """Whether the headline ``key`` (resolved: ``divergent@3``) is a judged measure."""
        for m in self.measures:
            prefix = m.key.split("{", 1)[0] if "{" in m.key else None
            if m.key == key or (prefix is not None and key.startswith(prefix)):
                return m.judged
        return False


# --- presets (``--preset paper``) ----------------------------------------------------------


@dataclass(frozen=True)
class Need:
    """One thing a preset needs: a check and what to do when it fails."""

    what: str
    available: Callable[[], bool]
    how: str
    #: The model role it is for ("judge", "e1", ...): a model the user names drops it.
    role: str | None = None
    #: The option it fills (the data): a value the user gives drops it.
    option: str | None = None


@dataclass(frozen=True)
class PresetEntry:
    """What a preset sets for one benchmark: the judge, options, role models and what they
    need; ``protocol`` names the published protocol whose options it also sets."""

    judge: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    needs: tuple[Need, ...] = ()
    #: Models of the benchmark's own roles (``Benchmark.extra_roles``).
    roles: dict[str, str] = field(default_factory=dict)
    protocol: str | None = None

    def overridden(self, judge: str | None, roles: Collection[str],
                   given: Collection[str] = ()) -> PresetEntry:
        """This entry less what the user chose: a ``judge`` replaces the preset's judge and
        every role model (the roles fall back to it); a role named in ``roles`` replaces the
        preset's model of that role; an option in ``given`` (the data) replaces the preset's.
        Their needs go with them."""
        drop = set(roles) | ({"judge", *self.roles} if judge is not None else set())
        return replace(
            self, judge=self.judge if judge is None else None,
            roles={r: s for r, s in self.roles.items() if r not in drop},
            needs=tuple(n for n in self.needs if (n.role is None or n.role not in drop)
                        and (n.option is None or n.option not in given)),
        )


def _api_key() -> bool:
    return bool(os.environ.get("OPENAI_API_KEY"))


def hub_model_need(name: str) -> Need:
    """The Hugging Face model ``name``: cached here, or the hub reachable."""
    def available() -> bool:
        try:
            from huggingface_hub import model_info, try_to_load_from_cache
        except ImportError:
            return False
        if isinstance(try_to_load_from_cache(name, "config.json"), str):
            return True
        if os.environ.get("HF_HUB_OFFLINE"):
            return False
        try:
            model_info(name, timeout=5)
        except Exception:  # no network, no such model, refused: not to be had
            return False
        return True

    return Need(f"the Hugging Face model {name}", available,
                f"download it on a connected machine (huggingface-cli download {name}) into "
                "the Hugging Face cache here, or pass a local directory for the option it fills")


def file_need(env: str, what: str) -> Need:
    """A local file named by the environment variable ``env``."""
    return Need(what, lambda: Path(os.environ.get(env, "")).is_file(),
                f"set {env}=/path/to/the/file (a local copy)")


def judge_need(model: str) -> Need:
    """The judge ``model`` behind an API key."""
    return Need(f"the judge {model}", _api_key,
                "set OPENAI_API_KEY, or pass --judge SPEC (and --judge-base-url URL) for "
                "another judge", role="judge")


def role_need(role: str, label: str, model: str) -> Need:
    """The model of the benchmark's own ``role`` behind an API key."""
    return Need(f"the {label} model {model}", _api_key,
                f"set OPENAI_API_KEY, or pass --{role} SPEC (and --{role}-base-url URL) or "
                "--judge SPEC for another model", role=role)


def data_need(option: str, what: str, how: str) -> Need:
    """Data the user must pass as ``option`` (never here by itself)."""
    return Need(what, lambda: False, how, option=option)


#: The judge snapshots behind the seed papers' published values (pinned, not moving aliases).
GPT4O = "openai:gpt-4o-2024-08-06"
GPT4_DETECTOR = "openai:gpt-4-1106-preview"
GPT4O_MINI = "openai:gpt-4o-mini"  # one snapshot ever (gpt-4o-mini-2024-07-18)


# --- the text of an answer: homogeneity (``compare --homogeneity``) and ratings (``rank``) --

#: One answer as homogeneity compares it: a text, or a set of words (DAT).
Answer = str | frozenset[str]
#: Published answers as one group: (label, kind: "published" or "people", answers per item, source).
AnswerGroup = tuple[str, str, dict[str, list[Answer]], str]


@dataclass(frozen=True)
class AnswerText:
    """The text of a benchmark's answers (``Benchmark.answer_text``). Without a declaration
    a record's answer is its output's ``text``, it is free text a judge can rate, and
    ``compare --homogeneity`` does not cover the benchmark."""

    #: The answers one record's output holds, under the run's options (None: its ``text``).
    texts: Callable[[dict[str, Any], dict[str, Any]], list[Any]] | None = None
    #: ``compare --homogeneity`` covers it.
    homogeneity: bool = False
    #: Every record answers the one same item (DAT's prompt): answers pool under ``prompt``,
    #: and a group with more than ``max_answers`` is a seeded sample.
    pooled: bool = False
    #: ``words``: Jaccard overlap of word sets; ``embedding``: cosine similarity of embeddings.
    measure: Literal["words", "embedding"] = "embedding"
    #: The default embedder spec under the run's options.
    embedder: Callable[[dict[str, Any]], str] | None = None
    #: Notes every homogeneity of it carries.
    notes: tuple[str, ...] = ()
    #: The keyword (of ``compare_homogeneity``) naming a folder of published answers, and how
    #: to read them: ``references(folder, first run)``.
    references_from: str | None = None
    references: Callable[[Path, Any], list[AnswerGroup]] | None = None
    #: The folder to read when the user names one or none (None: the one named, if any).
    references_folder: Callable[[Path | None], Path | None] | None = None
    #: When set, published groups with no answer are left out, and this note says when none is left.
    references_missing: str | None = None
    #: Why its answers are no free text a judge can rate (None: they are).
    not_free_text: str | None = None
    #: ``(task, answer)`` of a finished record for ratings, from its unit and output, where the
    #: answer is not the text above (the open-ended tasks' full solution); None: no answer.
    rated: Callable[[dict[str, Any], dict[str, Any]], tuple[str, str] | None] | None = None


# --- sweep pairing: a divergent measure against a quality measure (``creval sweep``) -------


@dataclass(frozen=True)
class SweepPair:
    """A divergent measure and a quality measure of one run, item by item (None: no value)."""

    measure: str
    label: str
    quality_measure: str
    quality_label: str
    divergent: list[float | None]
    quality: list[float | None]


@dataclass(frozen=True)
class SweepPairing:
    """How a benchmark's runs are swept (``Benchmark.sweep_pairing``): the pairs of a scored
    run, from its records and scores (empty: nothing to draw in this run)."""

    pairs: Callable[[list[Record], Scores], list[SweepPair]]


def finite(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (not a bool), else None.

    >>> finite(2), finite(True), finite(float("nan")), finite("1")
    (2.0, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def unrounded(rows: list[dict[str, Any]], column: str, values: list[float | None]) -> list[float | None]:
    """The table's ``column`` per row (None where it has none), with the rounded table values
    replaced by the exact per-item values, which list the rows that have one, in order.

    >>> unrounded([{"s": 0.5}, {"s": None}, {"s": 0.25}], "s", [0.50001, 0.24999])
    [0.50001, None, 0.24999]
    """
    present = [r for r in rows if finite(r.get(column)) is not None]
    if len(present) != len(values):  # not the same items: keep the table's values
        return [finite(r.get(column)) for r in rows]
    exact = iter(values)
    return [next(exact) if finite(r.get(column)) is not None else None for r in rows]


# --- the items behind a value (what a report and a comparison count) ----------------------


@dataclass(frozen=True)
class Items:
    """Items behind one value: ``valid`` ones (those the value was computed from), units
    ``finished`` and ``planned``; ``what`` names the valid ones; ``detail`` adds a count of
    their own (``350 of 3500 judgements parsed``). A benchmark whose valid items are not the
    units that finished says so in ``Benchmark.items_behind``; a published protocol's item
    count is compared with the valid ones."""

    valid: int
    finished: int
    planned: int
    what: str = "items"
    detail: str = ""

    def line(self) -> str:
        """The report line.

        >>> Items(350, 700, 700, "questions with a parsed judgement").line()
        'items behind the value: 350 valid (questions with a parsed judgement) of 700 finished, 700 planned'
        """
        more = f"; {self.detail}" if self.detail else ""
        return (f"items behind the value: {self.valid} valid ({self.what}) of {self.finished} "
                f"finished, {self.planned} planned{more}")
