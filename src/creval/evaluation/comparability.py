"""When a run's number may stand beside a published one: the one set of rules used by
``creval profile``, ``creval references check`` and the reports.

A run is comparable with a published value only when it measured the way the value's
protocol (:class:`creval.report.references.Protocol`) says:

- the same benchmark, on the paper's data recognised by content
  (:mod:`creval.evaluation.paper_data`);
- judged (and evaluated, for roles such as LoTbench's E1 and E2) by the model the paper
  used, by **snapshot**: the model id each endpoint reported in its answers, else the spec's
  model name; an alias (``gpt-4o``) counts only through the snapshots the protocol says
  it covers;
- with **every** benchmark option equal to the protocol's value (default-deny): the only
  options left out are those :data:`NOT_COMPARED` names, each with why, and the data option
  (compared by content). A new option is compared unless it is declared here, and a protocol
  that states no value for a compared option is not comparable;
- with at least as many items behind the value as the paper (:func:`items_behind`: DAT's
  valid trials, the solutions semantic entropy was computed on).

Every difference is said, not only the first. :func:`comparable_references` gives one
:class:`Check` per published value of every measure a run (or each run of a profile) has.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.paper_data import PAPER_DATA, DataIdentity, data_identity, sha256_file
from creval.reader import Run, read_run
from creval.records import Scores
from creval.report.references import PaperReferences, Protocol, Reference, load_references

#: The options that do not change what is measured, each with why: the one place. Keyed by
#: option name (every benchmark) or ``benchmark.option``. Options of how a run executes
#: (concurrency, cache, threads, executor, output paths, progress, resume) are command-line
#: settings, not benchmark options, and never reach the comparison. Every other benchmark
#: option is compared.
NOT_COMPARED: dict[str, str] = {
    "limit": "how many items: the items behind the value are compared with the paper's count",
    "seed": "which random draw, not how it is measured (the papers do not give theirs)",
    "neocoder.states": "which states are run: the (problem, state) pairs behind the value are "
                       "compared with the paper's count",
    "dat.trials": "how many trials: the valid trials behind the value are compared with the "
                  "paper's count",
    "entailment_lookup": "which entailment pairs are asked: the same classes either way",
    "lotbench.confidence": "the level of the interval shown beside S_c, not S_c",
    "lotbench.leaderboard": "a leaderboard the report shows the run on, not how S_c is measured",
    "dat.people": "where the people's word lists are read from, to place the run among people "
                  "(human_percentile, re-scored by the run's own scorer); not how dat_mean is "
                  "measured",
}


def not_compared(benchmark: str, option: str) -> str | None:
    """Why ``option`` of ``benchmark`` is left out of the comparison, or None (compared).

    >>> not_compared("jcq", "concurrency") is None, not_compared("jcq", "questions")
    (True, 'the data: compared by the digest of its content')
    """
    data = PAPER_DATA.get(benchmark)
    if data is not None and option == data.option:
        return "the data: compared by the digest of its content"
    return NOT_COMPARED.get(f"{benchmark}.{option}") or NOT_COMPARED.get(option)


def compared_options(benchmark: str) -> list[str]:
    """Every option of ``benchmark`` that a protocol must state and a run must match."""
    from creval.benchmarks.base import registry

    cls = registry().get(benchmark)
    names = list(cls.Options.model_fields) if cls is not None else []
    return [n for n in names if not_compared(benchmark, n) is None]


@dataclass(frozen=True)
class RunConditions:
    """How one run measured, to hold against a :class:`Protocol`."""

    benchmark: str
    data: DataIdentity
    #: The judge role's spec (None: no judge) and the model ids its endpoint reported.
    judge: str | None = None
    judge_reported: tuple[str, ...] = ()
    self_judged: bool = False
    #: Other roles: role -> spec, and role -> reported model ids.
    roles: Mapping[str, str] = field(default_factory=dict)
    roles_reported: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


def bare(spec: str) -> str:
    """A model spec as compared with a paper's model: lower case, without the provider.
    The snapshot date stays: ``gpt-4o`` and ``gpt-4o-2024-08-06`` are different models.

    >>> bare("openai:gpt-4o-2024-08-06"), bare("GPT-4o")
    ('gpt-4o-2024-08-06', 'gpt-4o')
    """
    name = spec.strip().lower()
    if re.match(r"^[a-z][a-z0-9_-]*:(?!/)", name):
        name = name.split(":", 1)[1]
    return name


def _shown(values: Any) -> str:
    if isinstance(values, tuple):
        return " or ".join(_shown(v) for v in values)
    return json.dumps(values) if isinstance(values, bool) or values is None else str(values)


def _model_reason(what: str, accepted: Sequence[str], snapshots: Mapping[str, tuple[str, ...]],
                  spec: str, reported: Sequence[str]) -> str | None:
    allowed = {bare(s) for a in accepted for s in snapshots.get(a, (a,))}
    ids = sorted({bare(r) for r in reported}) or [bare(spec)]
    wrong = [i for i in ids if i not in allowed]
    if not wrong:
        return None
    papers = _shown(tuple(accepted))
    covers = [f"{a} covers {', '.join(snapshots[a])}" for a in accepted if a in snapshots]
    said = f" ({'; '.join(covers)})" if covers else ""
    if reported:
        return f"{what} answered as {', '.join(wrong)} (spec {spec}), the paper's was {papers}{said}"
    return (f"{what} {spec} (its endpoint reported no model id), the paper's was "
            f"{papers}{said}")


def reasons(protocol: Protocol, run: RunConditions, *, items: int) -> list[str]:
    """Every way ``run`` measured differently from ``protocol``; empty when comparable.

    >>> from creval.evaluation.paper_data import DataIdentity
    >>> p = Protocol("p", "mytask", "none", 100, None, "a plug-in's task", options={"lang": "ja"})
    >>> run = RunConditions("mytask", DataIdentity("none", ""), options={"lang": "en"})
    >>> reasons(p, run, items=90)
    ['lang=en, the paper used ja', '90 items behind the value, the paper measured 100']
    """
    if run.benchmark != protocol.benchmark:
        return [f"a {run.benchmark} run, the paper measured {protocol.benchmark}"]
    out = _data_reasons(protocol, run) + _model_reasons(protocol, run) + _option_reasons(protocol, run)
    if protocol.items is not None and items < protocol.items:
        out.append(f"{items} item{'' if items == 1 else 's'} behind the value, the paper "
                       f"measured {protocol.items}")
    return out


def _data_reasons(protocol: Protocol, run: RunConditions) -> list[str]:
    if protocol.data == "unavailable":
        return ["the paper's data is not public"]
    if protocol.data == "none" or run.data.kind == "paper":
        return []
    if run.data.kind == "starter":
        return ["the starter set, not the paper's data"]
    return [f"the data {run.data.shown}, not the paper's (checked by content)"]


def _model_reasons(protocol: Protocol, run: RunConditions) -> list[str]:
    out: list[str] = []
    if protocol.judge is not None:
        papers = _shown(protocol.judge)
        if run.self_judged:
            out.append(f"self-judged (the paper's judge was {papers})")
        elif run.judge is None:
            out.append(f"no judge, the paper's was {papers}")
        elif why := _model_reason("judge", protocol.judge, protocol.snapshots, run.judge,
                                  run.judge_reported):
            out.append(why)
    for role, accepted in protocol.roles.items():
        spec = run.roles.get(role)
        if spec is None:
            out.append(f"no {role} model, the paper's was {_shown(accepted)}")
        elif why := _model_reason(role, accepted, protocol.snapshots, spec,
                                  run.roles_reported.get(role, ())):
            out.append(why)
    return out


_UNSTATED = object()


def _option_reasons(protocol: Protocol, run: RunConditions) -> list[str]:
    names = dict.fromkeys([*compared_options(run.benchmark),
                           *(n for n in run.options if not_compared(run.benchmark, n) is None)])
    out = []
    for name in names:
        wanted = protocol.options.get(name, _UNSTATED)
        if wanted is _UNSTATED:
            out.append(f"{name}: the protocol states no value for it (every option that "
                       "changes the number must be stated)")
            continue
        accepted = wanted if isinstance(wanted, tuple) else (wanted,)
        if name not in run.options:
            out.append(f"{name} not recorded, the paper used {_shown(wanted)}")
        elif not _equal_any(run.options[name], accepted):
            out.append(f"{name}={_shown(run.options[name])}, the paper used {_shown(wanted)}")
    return out


def _equal_any(value: Any, accepted: tuple[Any, ...]) -> bool:
    """``value`` is one of ``accepted``; ``sha256:HEX`` accepts a file with that content.

    >>> _equal_any(1, (1.0,)), _equal_any(True, (1,)), _equal_any(None, (None, "x"))
    (True, False, True)
    """
    for a in accepted:
        if isinstance(a, str) and a.startswith("sha256:"):
            if isinstance(value, str) and Path(value).is_file() and sha256_file(Path(value)) == a[7:]:
                return True
        elif isinstance(a, bool) or isinstance(value, bool):
            if value is a:
                return True
        elif isinstance(a, int | float) and isinstance(value, int | float):
            if math.isclose(float(a), float(value)):
                return True
        elif a == value:
            return True
    return False


def inferred_notes(protocol: Protocol) -> list[str]:
    """The values the paper does not print, each with where it comes from."""
    return [f"{name}={_shown(protocol.options.get(name, protocol.judge if name == 'judge' else None))}"
            f" (inferred: {why})" for name, why in protocol.inferred.items()]


# --- a run directory --------------------------------------------------------------------

def _reported(run: Run) -> dict[str, tuple[str, ...]]:
    """Role -> the model ids its endpoint reported in the run's answers."""
    seen: dict[str, set[str]] = {}
    for record in run.records:
        for call in record.calls:
            for c in call.get("completions") or []:
                if isinstance(c, dict) and isinstance(c.get("model"), str):
                    seen.setdefault(str(call.get("role", "target")), set()).add(c["model"])
    return {role: tuple(sorted(ids)) for role, ids in seen.items()}


def conditions_of(run: Run, scores: Scores | None = None) -> RunConditions:
    """How the run in ``run`` measured, from its manifest, scores and records."""
    manifest = run.manifest
    options = dict(manifest.options)
    paper = PAPER_DATA.get(manifest.benchmark)
    data = data_identity(manifest.benchmark, options.get(paper.option) if paper else None)
    reported = _reported(run)
    judge = (manifest.judge or {}).get("spec") if manifest.judge else None
    return RunConditions(
        benchmark=manifest.benchmark, data=data,
        judge=None if judge is None else str(judge), judge_reported=reported.get("judge", ()),
        self_judged=is_self_judged(scores or run.scores or Scores()),
        roles={r: str(d.get("spec")) for r, d in manifest.roles.items()},
        roles_reported={r: reported.get(r, ()) for r in manifest.roles},
        options=options,
    )


def is_self_judged(scores: Scores) -> bool:
    return str(scores.headline.get("judged_by", "")).startswith("self-judged")


def items_behind(benchmark: str, measure: str, scores: Scores) -> int:
    """How many items the value of ``measure`` was computed from: DAT's valid trials (an
    invalid trial is not in the mean), the solutions semantic entropy had log-probabilities
    for, else the units that finished.

    >>> s = Scores(headline={"dat_mean": 0.5, "valid_trials": 97, "invalid_trials": 3})
    >>> items_behind("dat", "dat_mean", s)
    97
    >>> items_behind("macgyver", "semantic_entropy",
    ...              Scores(per_item={"semantic_entropy": [0.2, None, 0.4]}))
    2
    """
    if benchmark == "dat" and isinstance(scores.headline.get("valid_trials"), int | float):
        return int(scores.headline["valid_trials"])
    if measure == "semantic_entropy" and measure in scores.per_item:
        return sum(v is not None for v in scores.per_item[measure])
    return scores.units.finished


@dataclass(frozen=True)
class Check:
    """One published value held against one run's measurement of the same measure."""

    run: str
    benchmark: str
    measure: str
    #: The run's own value (None when it has none).
    ours: float | None
    subject: str
    kind: str
    paper: str
    seed: str
    protocol: str
    described: str
    source: str
    #: The published value.
    value: float
    comparable: bool
    #: Every difference, each a short sentence; empty when comparable.
    reasons: tuple[str, ...]
    #: Protocol values the paper does not print, with where they come from.
    inferred: tuple[str, ...]
    #: The unit of ``ours`` and ``value`` where a benchmark has several (DAT: x100 or 0-1).
    unit: str | None = None
    #: A comparable value computed from released per-trial lists (English DAT): the unpaired
    #: difference, interval, p and verdict (:mod:`creval.evaluation.dat_released`).
    placement: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["reasons"], out["inferred"] = list(self.reasons), list(self.inferred)
        out["placement"] = None if self.placement is None else dict(self.placement)
        return out


def check_measure(run: Run, measure: str, cond: RunConditions | None = None,
                  refs: Sequence[PaperReferences] | None = None,
                  scores: Scores | None = None) -> list[Check]:
    """Every published value of ``measure`` of the run's benchmark, held against the run
    (its ``scores``: those given, else the run's ``scores.json``)."""
    scores = scores or run.scores or Scores()
    cond = cond or conditions_of(run, scores)
    value = scores.headline.get(measure)
    ours = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    items = items_behind(run.benchmark, measure, scores)
    papers = load_references() if refs is None else refs
    out = []
    for paper in papers:
        for ref in paper.values:
            if (ref.benchmark == run.benchmark and ref.measure == measure
                    and not _other_language(paper.protocols[ref.protocol], cond)):
                out.append(_check(run, ref, paper.protocols[ref.protocol], cond, ours, items))
    if run.benchmark == "dat":  # English DAT: the released lists, re-scored by the run's scorer
        out += _released_checks(run, measure, cond, scores, ours, items)
    return out


def _released_checks(run: Run, measure: str, cond: RunConditions, scores: Scores,
                     ours: float | None, items: int) -> list[Check]:
    """English DAT against Chen and Ding's released lists and the people, re-scored by the
    run's scorer (:mod:`creval.evaluation.dat_released`); a comparable protocol's checks
    carry the unpaired placement of the run's valid trials among each group's lists."""
    from dataclasses import replace

    from creval.evaluation.dat_released import placements, released_references

    trials = [float(v) for v in scores.per_item.get("dat_mean", []) if v is not None]
    out: list[Check] = []
    for protocol, refs in released_references(run, measure):
        checks = [_check(run, ref, protocol, cond, ours, items) for ref, _ in refs]
        if checks and checks[0].comparable and trials:
            stats = placements(trials, [values for _, values in refs])
            checks = [replace(c, placement=s) for c, s in zip(checks, stats, strict=True)]
        out += checks
    return out


def _other_language(protocol: Protocol, run: RunConditions) -> bool:
    """A protocol of one language (its ``lang`` option) held against a run in another: not
    listed at all (a Japanese paper's values say nothing of an English run).

    >>> p = Protocol("p", "dat", "none", 100, None, "", options={"lang": "ja"})
    >>> from creval.evaluation.paper_data import DataIdentity
    >>> _other_language(p, RunConditions("dat", DataIdentity("none", ""), options={"lang": "en"}))
    True
    """
    wanted, lang = protocol.options.get("lang"), run.options.get("lang")
    return isinstance(wanted, str) and isinstance(lang, str) and wanted != lang


def _check(run: Run, ref: Reference, protocol: Protocol, cond: RunConditions,
           ours: float | None, items: int) -> Check:
    why = reasons(protocol, cond, items=items)
    return Check(run=str(run.path), benchmark=ref.benchmark, measure=ref.measure, ours=ours,
                 subject=ref.subject, kind=ref.kind, paper=ref.paper, seed=ref.seed,
                 protocol=ref.protocol, described=protocol.description, source=ref.source,
                 value=ref.value, comparable=not why, reasons=tuple(why),
                 inferred=tuple(inferred_notes(protocol)), unit=_unit(protocol))


def _unit(protocol: Protocol) -> str | None:
    """DAT's unit under ``protocol`` (x100 or 0-1); None for other benchmarks."""
    if protocol.benchmark != "dat":
        return None
    from creval.evaluation.dat_released import dat_unit

    variant = protocol.options.get("variant")
    lang = protocol.options.get("lang")
    return dat_unit(lang if isinstance(lang, str) else "en",
                    variant[-1] if isinstance(variant, tuple) else variant)


def check_run(run: Run, refs: Sequence[PaperReferences] | None = None,
              scores: Scores | None = None) -> list[Check]:
    """Every published value of every measure the run has a number for."""
    papers = load_references() if refs is None else refs
    scores = scores or run.scores or Scores()
    measures = dict.fromkeys(v.measure for p in papers for v in p.values
                             if v.benchmark == run.benchmark and v.measure in scores.headline)
    if not measures:
        return []
    cond = conditions_of(run, scores)
    return [c for m in measures for c in check_measure(run, m, cond, papers, scores)]


def run_dirs(path: Path) -> list[Path]:
    """``path`` when it is a run directory, else the run directories below it (a profile)."""
    if (path / "manifest.json").is_file():
        return [path]
    if not path.is_dir():
        raise CrevalError(f"{path} does not exist. Pass a run directory or a profile directory.")
    found = sorted(p.parent for p in path.rglob("manifest.json"))
    if not found:
        raise CrevalError(f"{path} holds no creval run (no manifest.json in it or below it). "
                          "Pass a run directory or a profile directory.")
    return found


def comparable_references(path: str | Path) -> list[Check]:
    """Every published value of every measure of the run (or of each run of the profile) at
    ``path``, with whether it may stand beside the run's number and every reason it may not.
    Runs without scores are skipped."""
    refs = load_references()
    out: list[Check] = []
    for folder in run_dirs(Path(path)):
        run = read_run(folder)
        if run.scores is not None:
            out += check_run(run, refs)
    return out


__all__ = ["NOT_COMPARED", "Check", "RunConditions", "check_measure", "check_run",
           "comparable_references", "compared_options", "conditions_of", "items_behind",
           "not_compared", "reasons"]
