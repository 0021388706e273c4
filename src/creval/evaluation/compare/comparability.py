"""When a run's number may stand beside a published one: the one set of rules used by
``creval profile``, ``creval references check`` and the reports.

A run is comparable with a published value only when it measured the way the value's
protocol (:class:`creval.report.references.Protocol`) says:

- its records are there and agree with its manifest: what was measured is read from what
  the run sent and received (:mod:`creval.evaluation.compare.conditions`,
  :mod:`creval.evaluation.compare.evidence`); a replay carries the protocol of the run it replays;
- the same benchmark, on the paper's data recognised by the digests the run recorded of its
  items and files when it ran (:mod:`creval.evaluation.compare.paper_data`);
- judged (and evaluated, for roles such as LoTbench's E1 and E2) by the model the paper
  used, by **snapshot**: the model ids its answers reported, every answer; answers without
  one make the snapshot *unverified* (not comparable); an alias (``gpt-4o``) counts only
  through the snapshots the protocol says it covers. Self-judging is accepted only where the
  paper let its judge model judge itself (a value of the protocol is the judge's own);
- with **every** benchmark option equal to the protocol's value (default-deny), as the
  requests applied it where it reaches one: the only options left out are those
  :data:`NOT_COMPARED` names, each with why, and the data option (compared by content). A new
  option is compared unless it is declared here, and a protocol that states no value for a
  compared option is not comparable;
- with at least as many valid items behind the value as the paper
  (:mod:`creval.evaluation.compare.items`: judged questions with a parsed judgement, DAT's valid
  trials, the solutions semantic entropy was computed on).

Every difference is said, not only the first. :func:`comparable_references` gives one
:class:`Check` per published value of every measure a run (or each run of a profile) has.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.compare.conditions import (
    Applied,
    RunConditions,
    bare,
    conditions_of,
    is_self_judged,
    same,
    shown,
)
from creval.evaluation.compare.items import Items, items_behind, items_of
from creval.reader import Run, read_run
from creval.records import Scores
from creval.records.references import LocatedInputs
from creval.report.references import (
    PaperReferences,
    Protocol,
    Reference,
    declaring,
    load_references,
    registered_benchmark,
)

#: The options of every benchmark that do not change what is measured, each with why; a
#: benchmark adds its own (:meth:`~creval.benchmarks.base.Benchmark.not_compared`). Options of
#: how a run executes (concurrency, cache, threads, executor, output paths, progress, resume)
#: are command-line settings, not benchmark options, and never reach the comparison. Every
#: other benchmark option is compared.
NOT_COMPARED: dict[str, str] = {
    "limit": "how many items: the items behind the value are compared with the paper's count",
    "seed": "which random draw, not how it is measured (the papers do not give theirs)",
    "entailment_lookup": "which entailment pairs are asked: the same classes either way",
}


def declared_not_compared() -> dict[str, str]:
    """Every registered benchmark's options left out of the comparison, keyed
    ``benchmark.option``, with why (what :meth:`~creval.benchmarks.base.Benchmark.not_compared`
    declares)."""
    return {f"{bench.name}.{option}": why for bench in declaring()
            for option, why in bench.not_compared().items()}


def not_compared(benchmark: str, option: str) -> str | None:
    """Why ``option`` of ``benchmark`` is left out of the comparison, or None (compared).

    >>> not_compared("jcq", "concurrency") is None, not_compared("jcq", "questions")
    (True, 'the data: compared by the digest of its content')
    """
    bench = registered_benchmark(benchmark)
    data = None if bench is None else bench.paper_data()
    if data is not None and option == data.option:
        return "the data: compared by the digest of its content"
    own = {} if bench is None else bench.not_compared()
    return own.get(option) or NOT_COMPARED.get(option)


def compared_options(benchmark: str) -> list[str]:
    """Every option of ``benchmark`` that a protocol must state and a run must match."""
    from creval.benchmarks.base import registry

    cls = registry().get(benchmark)
    names = list(cls.Options.model_fields) if cls is not None else []
    return [n for n in names if not_compared(benchmark, n) is None]


def _model_reason(what: str, accepted: Sequence[str], snapshots: Mapping[str, tuple[str, ...]],
                  spec: str, answers: Mapping[str, int], unreported: int) -> str | None:
    """Why the model that played ``what`` is not the paper's, judged by every answer: each
    reported snapshot must be accepted, and every answer must report one."""
    papers = shown(tuple(accepted))
    covers = [f"{a} covers {', '.join(snapshots[a])}" for a in accepted if a in snapshots]
    said = f" ({'; '.join(covers)})" if covers else ""
    allowed = {bare(s) for a in accepted for s in snapshots.get(a, (a,))}
    if unreported:
        total = unreported + sum(answers.values())
        return (f"{what} snapshot unverified: {unreported} of {total} answers carried no model "
                f"id (spec {spec}), so which model answered cannot be checked; the paper's was "
                f"{papers}{said}")
    if not answers:  # it was never asked: nothing it could have changed, said by its spec
        if bare(spec) in allowed:
            return None
        return f"{what} {spec} (no answer of it in the records), the paper's was {papers}{said}"
    counts: dict[str, int] = {}
    for model, n in answers.items():
        counts[bare(model)] = counts.get(bare(model), 0) + n
    if all(i in allowed for i in counts):
        return None
    if len(counts) == 1:
        return f"{what} answered as {next(iter(counts))} (spec {spec}), the paper's was {papers}{said}"
    mixed = ", ".join(f"{m} ({n} answers)" for m, n in sorted(counts.items(), key=lambda x: -x[1]))
    return f"{what} answered as {mixed} (spec {spec}), the paper's was {papers}{said}"


def reasons(protocol: Protocol, run: RunConditions, *, items: int | Items,
            self_judging: bool = False) -> list[str]:
    """Every way ``run`` measured differently from ``protocol``; empty when comparable.
    ``self_judging``: the paper let its judge model judge its own answers (so a self-judged
    run measured as the paper did).

    >>> from creval.evaluation.compare.paper_data import DataIdentity
    >>> p = Protocol("p", "mytask", "none", 100, None, "a plug-in's task", options={"lang": "ja"})
    >>> run = RunConditions("mytask", DataIdentity("none", ""), options={"lang": "en"})
    >>> reasons(p, run, items=90)
    ['lang=en, the paper used ja', '90 items behind the value, the paper measured 100']
    """
    if run.benchmark != protocol.benchmark:
        return [f"a {run.benchmark} run, the paper measured {protocol.benchmark}"]
    out = [*run.problems, *_data_reasons(protocol, run),
           *_model_reasons(protocol, run, self_judging), *_option_reasons(protocol, run)]
    valid = items.valid if isinstance(items, Items) else items
    of = run.data.paper_items
    if of is not None:  # a subset of the paper's items: only those are behind the value
        valid = min(valid, of)
    if protocol.items is not None and valid < protocol.items:
        said = [f"{items.what}; {items.detail}"] if isinstance(items, Items) and items.detail else []
        if of is not None and of != run.data.paper_total:
            said.append(f"{of} of {run.data.paper_total} items of the paper's data")
        what = f" ({'; '.join(said)})" if said else ""
        out.append(f"{valid} item{'' if valid == 1 else 's'} behind the value{what}, the "
                   f"paper measured {protocol.items}")
    return out


def _data_reasons(protocol: Protocol, run: RunConditions) -> list[str]:
    if protocol.data == "unavailable":
        return ["the paper's data is not public"]
    if protocol.data == "none" or run.data.kind == "paper":
        return []
    if run.data.kind == "starter":
        return ["the starter set, not the paper's data"]
    if run.data.kind == "unrecorded" or run.data.paper_total is not None:  # by its items
        return [f"the data: {run.data.shown}"]
    return [f"the data {run.data.shown}, not the paper's (checked by the digests recorded when "
            "the run ran)"]


def _role_answers(run: RunConditions, role: str, reported: Sequence[str]) -> tuple[Mapping[str, int], int]:
    """(answers per reported snapshot, answers without one) of ``role`` (no answers at all:
    the role was never asked)."""
    if role in run.answers or role in run.unreported:
        return run.answers.get(role, {}), run.unreported.get(role, 0)
    return {r: 1 for r in reported}, 0


def _model_reasons(protocol: Protocol, run: RunConditions, self_judging: bool) -> list[str]:
    out: list[str] = []
    if protocol.judge is not None:
        papers = shown(protocol.judge)
        why = None if run.judge is None else _model_reason(
            "judge", protocol.judge, protocol.snapshots, run.judge,
            *_role_answers(run, "judge", run.judge_reported))
        if run.judge is None:
            out.append(f"no judge, the paper's was {papers}")
        elif why:
            out.append(why)
        if run.self_judged and not (self_judging and why is None):
            how = f"; {run.self_judged_how}" if run.self_judged_how else ""
            out.append(f"self-judged: the tested model judged its own answers{how} (the "
                       f"paper's judge was {papers}, judging other models' answers)")
    for role, accepted in protocol.roles.items():
        spec = run.roles.get(role)
        if spec is None:
            out.append(f"no {role} model, the paper's was {shown(accepted)}")
        elif why := _model_reason(role, accepted, protocol.snapshots, spec,
                                  *_role_answers(run, role, run.roles_reported.get(role, ()))):
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
        if name in run.applied:
            out += _applied_reasons(name, run.applied[name], wanted, accepted)
        elif name not in run.options:
            out.append(f"{name} not recorded, the paper used {shown(wanted)}")
        elif not _equal_any(run.options[name], accepted, run.files.get(name)):
            out.append(f"{name}={shown(run.options[name])}, the paper used {shown(wanted)}")
    return out


def _applied_reasons(name: str, applied: Applied, wanted: Any, accepted: tuple[Any, ...]) -> list[str]:
    """An option as its requests applied it, each value the paper did not use said."""
    wrong = [(v, n) for v, n in applied.values if not _equal_any(v, accepted)]
    if not wrong:
        return []
    if applied.replayed_from is not None:
        where = f" (the {applied.role}'s answers were replayed from {applied.replayed_from}, asked so"
    elif len(applied.values) > 1:
        where = f" (as sent by the {applied.role}"
    else:
        return [f"{name}={shown(wrong[0][0])}, the paper used {shown(wanted)}"]
    return [f"{name}={shown(v)}{where} in {n} request(s)), the paper used {shown(wanted)}"
            for v, n in wrong]


def _equal_any(value: Any, accepted: tuple[Any, ...], recorded: str | None = None) -> bool:
    """``value`` is one of ``accepted``; ``sha256:HEX`` accepts a file the run recorded with
    that content when it ran (``recorded``), whatever is at its path now.

    >>> _equal_any(1, (1.0,)), _equal_any(True, (1,)), _equal_any(None, (None, "x"))
    (True, False, True)
    """
    for a in accepted:
        if isinstance(a, str) and a.startswith("sha256:"):
            if isinstance(value, str) and recorded == a[7:]:
                return True
        elif same(value, a):
            return True
    return False


def inferred_notes(protocol: Protocol) -> list[str]:
    """The values the paper does not print, each with where it comes from."""
    return [f"{name}={shown(protocol.options.get(name, protocol.judge if name == 'judge' else None))}"
            f" (inferred: {why})" for name, why in protocol.inferred.items()]


# --- a run directory --------------------------------------------------------------------

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
    #: Options compared by their effect rather than as asked (each a sentence).
    notes: tuple[str, ...] = ()
    #: The items behind the run's value: valid, finished, planned (:class:`Items`).
    items: Items | None = None
    #: The unit of ``ours`` and ``value`` where a benchmark has several (DAT: x100 or 0-1).
    unit: str | None = None
    #: A comparable value computed from released per-trial lists (English DAT): the unpaired
    #: difference, interval, p and verdict (:mod:`creval.evaluation.compare.placement`).
    placement: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["reasons"], out["inferred"] = list(self.reasons), list(self.inferred)
        out["notes"] = list(self.notes)
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
    items = items_of(run.benchmark, measure, scores)
    papers = load_references() if refs is None else refs
    out = []
    for paper in papers:
        for ref in paper.values:
            if (ref.benchmark == run.benchmark and ref.measure == measure
                    and not _other_language(paper.protocols[ref.protocol], cond)):
                protocol = paper.protocols[ref.protocol]
                out.append(_check(run, ref, protocol, cond, ours, items,
                                  judged_itself(paper, protocol)))
    # values computed from released per-answer data (English DAT's lists), re-scored by the run's scorer
    out += released_checks(run, measure, cond, scores, ours, items)
    return out


def judged_itself(paper: PaperReferences, protocol: Protocol) -> bool:
    """Whether the paper let its judge model judge its own answers under ``protocol``: one
    of the protocol's values is of the judge model itself (JCQ's GPT-4o row, judged by
    GPT-4o), so a self-judged run measured as the paper did."""
    if protocol.judge is None:
        return False
    names = {bare(n) for a in protocol.judge for n in (a, *protocol.snapshots.get(a, ()))}
    return any(v.protocol == protocol.id and bare(v.subject) in names for v in paper.values)


def located_inputs(run: Run) -> LocatedInputs:
    """Where the files the run recorded are now, found by their digests (the recorded path,
    else the benchmark's default places: :func:`creval.evaluation.verify.inputs.recorded_locations`)."""
    from creval.evaluation.verify.inputs import recorded_locations

    options = dict(run.manifest.options)
    inputs = getattr(run.manifest, "inputs", None) or {}
    recorded = frozenset(inputs.get("files") or {})
    if not recorded:
        return LocatedInputs()
    found, problems = recorded_locations(run.benchmark, options, inputs)
    return LocatedInputs(found, tuple(problems), recorded)


def released_checks(run: Run, measure: str, cond: RunConditions | None = None,
                    scores: Scores | None = None, ours: float | None = None,
                    items: Items | None = None) -> list[Check]:
    """The run against the values its benchmark computes from released per-answer data,
    re-scored by the run's scorer (:meth:`~creval.benchmarks.base.Benchmark.released_references`:
    English DAT's released lists); a comparable protocol's checks carry the unpaired placement
    of the run's valid answers among each group's (:mod:`creval.evaluation.compare.placement`)."""
    from dataclasses import replace

    from creval.evaluation.compare.placement import placements

    bench = registered_benchmark(run.benchmark)
    if bench is None:
        return []
    found = bench.released_references(run, measure, located_inputs(run))
    if not found:
        return []
    scores = scores or run.scores or Scores()
    cond = cond or conditions_of(run, scores)
    if items is None:
        value = scores.headline.get(measure)
        ours = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
        items = items_of(run.benchmark, measure, scores)
    trials = [float(v) for v in scores.per_item.get(measure, []) if v is not None]
    out: list[Check] = []
    for protocol, refs in found:
        checks = [_check(run, ref, protocol, cond, ours, items, False) for ref, _ in refs]
        if checks and checks[0].comparable and trials:
            stats = placements(trials, [values for _, values in refs])
            checks = [replace(c, placement=s) for c, s in zip(checks, stats, strict=True)]
        out += checks
    return out


def released_missing(run: Run) -> str | None:
    """Why the run has no released per-answer values to stand among (None: its benchmark
    computes none)."""
    bench = registered_benchmark(run.benchmark)
    return None if bench is None else bench.released_missing(run, located_inputs(run))


def _other_language(protocol: Protocol, run: RunConditions) -> bool:
    """A protocol of one language (its ``lang`` option) held against a run in another: not
    listed at all (a Japanese paper's values say nothing of an English run).

    >>> p = Protocol("p", "mytask", "none", 100, None, "", options={"lang": "ja"})
    >>> from creval.evaluation.compare.paper_data import DataIdentity
    >>> _other_language(p, RunConditions("mytask", DataIdentity("none", ""), options={"lang": "en"}))
    True
    """
    wanted, lang = protocol.options.get("lang"), run.options.get("lang")
    return isinstance(wanted, str) and isinstance(lang, str) and wanted != lang


def _check(run: Run, ref: Reference, protocol: Protocol, cond: RunConditions,
           ours: float | None, items: Items, self_judging: bool) -> Check:
    why = reasons(protocol, cond, items=items, self_judging=self_judging)
    return Check(run=str(run.path), benchmark=ref.benchmark, measure=ref.measure, ours=ours,
                 subject=ref.subject, kind=ref.kind, paper=ref.paper, seed=ref.seed,
                 protocol=ref.protocol, described=protocol.description, source=ref.source,
                 value=ref.value, comparable=not why, reasons=tuple(why),
                 inferred=tuple(inferred_notes(protocol)), notes=cond.notes, items=items,
                 unit=_unit(protocol))


def _unit(protocol: Protocol) -> str | None:
    """The unit of the values under ``protocol`` where its benchmark has several (DAT: x100
    or 0-1); None otherwise."""
    bench = registered_benchmark(protocol.benchmark)
    return None if bench is None else bench.reference_unit(protocol)


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
    if path.exists() and not path.is_dir():  # as `creval compare` says it
        raise CrevalError(f"{path} is not a directory: pass a run or profile directory.")
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


__all__ = ["NOT_COMPARED", "Check", "Items", "RunConditions", "check_measure", "check_run",
           "comparable_references", "compared_options", "conditions_of", "is_self_judged",
           "items_behind", "items_of", "judged_itself", "not_compared", "reasons"]
