"""The application layer: one invocation of a benchmark against a model, from the CLI or
from Python. It resolves the models, checks that a run directory can be resumed, runs what is
missing through the runner, scores the records and writes the reports.

Everything below it (runner, benchmarks, report) knows nothing of the others' callers; this
module wires them, and ``creval.cli`` and :func:`evaluate` both call it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval._util.inputs import ITEM_DIGEST, resume_changes
from creval._util.redact import redact_argv
from creval.benchmarks.base import Benchmark, OptionsT
from creval.errors import CrevalError
from creval.evaluation.run.roles import (
    Choice,
    build,
    check_roles,
    choose,
    describe,
    describe_roles,
    self_roles,
)
from creval.models import Model, ModelOptions
from creval.models.base import EndpointUnreachable, digest
from creval.models.openai_batch import LEDGER, batch_options
from creval.models.openai_batch_files import ledger_summary
from creval.records import (
    RECORDS,
    SCORES_FORMAT,
    ErrorCause,
    Record,
    Scores,
    UnitCounts,
    UnitError,
    changed_outside,
    latest_records,
    read_records,
    superseded_count,
)
from creval.runner.cache import ResponseCache, default_cache_path
from creval.runner.counters import Counters, not_applied, not_applied_warning, sum_usage
from creval.runner.engine import RetryPolicy, Runner, Unit
from creval.runner.executors import get_executor, using_executor
from creval.runner.manifest import git_revision, package_versions
from creval.runner.remote_model import on_actors
from creval.runner.store import RunStore, read_manifest


@dataclass
class RunSettings:
    """How to run, as opposed to what to run."""

    model: str = "local"
    model_options: ModelOptions = field(default_factory=ModelOptions)
    #: The judge of LLM-judged benchmarks; None means the target model judges itself.
    judge: str | None = None
    judge_options: ModelOptions | None = None
    #: Models of the benchmark's own roles (``{"e1": SPEC}``), each falling back to the judge.
    roles: dict[str, str] = field(default_factory=dict)
    #: Options of those roles that differ from ``model_options`` (``--e1-base-url``).
    role_options: dict[str, ModelOptions] = field(default_factory=dict)
    cache: Path | None = field(default_factory=default_cache_path)  # None: no cache
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    progress: bool = True
    concurrency: int | None = None
    rescore: bool = False
    #: Where heavy local work runs: ``local`` (this process) or ``ray`` (see
    #: :mod:`creval.runner.executors`); not part of a run's identity, so either resumes either.
    executor: str = "local"
    ray_address: str | None = None  # None: RAY_ADDRESS, else a local Ray started for the run
    workers: int | None = None  # Ray workers to use; None: what the cluster has
    #: A judge panel (``--judge a,b,c``): a :class:`creval.evaluation.panel.panels.PanelSpec`; each
    #: judged run is then one run per judge, combined (:func:`creval.evaluation.panel.panels.run_plan`).
    panel: Any = None


@dataclass
class RunResult:
    benchmark: str
    out: Path
    scores: Scores
    counters: Counters
    ran_units: int
    #: endpoint -> last connection error, for endpoints that stopped answering mid-run
    endpoints_down: dict[str, str] = field(default_factory=dict)
    model: str = ""  # the target model's spec


def _check_compatible(
    old: dict[str, Any], new: dict[str, Any], out: Path
) -> None:
    for field_name, label in (("benchmark", "benchmark"), ("model_spec", "model")):
        if old.get(field_name) != new.get(field_name):
            raise CrevalError(
                f"{out} holds a run of {label} {old.get(field_name)!r}, not {new.get(field_name)!r}. "
                "Use another --out for a new run."
            )
    for role in ("model", "judge"):
        if old.get(role, {}).get("identity") != new.get(role, {}).get("identity"):
            raise CrevalError(
                f"{out} was run with a different {role} ({old.get(role, {}).get('identity')}). "
                "Use another --out for a new run."
            )
    check_roles(old, new, out)
    old_gen, new_gen = old.get("generation", {}), new.get("generation", {})
    changed = sorted(k for k in set(old_gen) | set(new_gen) if old_gen.get(k) != new_gen.get(k))
    if changed:
        detail = ", ".join(f"--{k.replace('_', '-')}: {old_gen.get(k)!r} -> {new_gen.get(k)!r}" for k in changed)
        raise CrevalError(
            f"{out} was run with other generation options ({detail}). Resume with the same "
            "options, or use another --out for a new run."
        )


async def _preflight(models: list[Model]) -> None:
    """Fail before anything is written when an endpoint does not answer at all."""
    remote = [m for m in models if getattr(m, "check", None) is not None]
    try:
        for model in remote:
            await model.check()  # type: ignore[attr-defined]
    except EndpointUnreachable as exc:
        raise CrevalError(str(exc)) from None
    finally:
        for model in remote:  # their clients belong to this event loop
            with contextlib.suppress(Exception):
                await model.aclose()


def _replay_options(benchmark: Benchmark[OptionsT], options: OptionsT, model: Model) -> OptionsT:
    """A ``replay:`` run re-scores a recorded run of the same benchmark and prompt: refuse
    another, and take the scale options the user did not give (``--trials``, ``--limit``)
    from the recorded run so that every replayed unit has an answer."""
    recorded = getattr(model, "manifest", None)
    if not isinstance(recorded, dict):
        return options
    source = model.spec.removeprefix("replay:")
    if recorded.get("benchmark") != benchmark.name:
        raise CrevalError(
            f"{source} is a run of {recorded.get('benchmark')!r}, not {benchmark.name!r}: "
            f"replay it with `creval run {recorded.get('benchmark')} --model {model.spec}`."
        )
    old_prompt = recorded.get("generation", {}).get("prompt")
    new_prompt = benchmark.generation_fingerprint(options).get("prompt")
    if old_prompt is not None and new_prompt is not None and old_prompt != new_prompt:
        raise CrevalError(
            f"{source} was run with another prompt ({old_prompt} then, {new_prompt} now): the "
            "replayed answers would not match. Pass the same --prompt-file (or none) as that run."
        )
    old = recorded.get("options", {})
    update = {
        name: old[name]
        for name in type(options).model_fields
        if options.kind_of(name) == "scale" and name in old
        and name not in options.model_fields_set
    }
    return benchmark.parse_options({**options.model_dump(exclude_unset=True), **update})


def _check_inputs(store: RunStore, units: list[Unit], out: Path) -> None:
    """Refuse to score a unit whose input changed since it ran (a ``*_digest`` in its meta,
    such as the SAT story's, differs from the record's)."""
    latest = store.latest()
    for unit in units:
        record = latest.get(unit.key)
        if record is None:
            continue
        for name, value in unit.meta.items():
            if name.endswith("digest") and name in record.unit and record.unit[name] != value:
                raise CrevalError(
                    f"{out}: the input of {unit.key} changed since it was run ({name} "
                    f"{record.unit[name]} then, {value} now), so its answer would be scored "
                    "against a different original. Restore the input file this run used, or "
                    "use another --out for a new run."
                )


def check_items(old: dict[str, Any], new: dict[str, Any], out: Path) -> None:
    """Refuse a resume whose items or files read differ from the first part of the run."""
    if problems := resume_changes(old.get("inputs") or {}, new.get("inputs") or {}):
        raise CrevalError(
            f"{out}: what this run asks differs from its first part: {'; '.join(problems)}. "
            "Restore the files it read, or use another --out for a new run."
        )


def build_manifest(
    benchmark: Benchmark[OptionsT], options: OptionsT, models: dict[str, Model],
    choices: dict[str, Choice] | None = None, units: list[Unit] | None = None,
) -> dict[str, Any]:
    model = models["target"]
    extra: dict[str, Any] = {"judge": describe(models["judge"])} if "judge" in models else {}
    if choices is not None and benchmark.extra_roles:
        extra["roles"] = describe_roles(benchmark, models, choices)
    return {
        "creval_manifest": 1,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "benchmark": benchmark.name,
        "seed_paper": benchmark.seed_paper,
        "model_spec": model.spec,
        "model": describe(model),
        **extra,
        "options": options.model_dump(mode="json"),
        "generation": benchmark.generation_fingerprint(options),
        # what this invocation read, by digest, and its units in order with their items'
        # digests: comparability and `creval verify` read these, never a file at a path
        "inputs": {**benchmark.read_inputs(options),
                   "units": {u.key: u.meta.get(ITEM_DIGEST) for u in units or []}},
        "seeds": {"seed": getattr(options, "seed", None), "rule": "sample i uses seed + i"},
        "command": redact_argv(sys.argv),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": package_versions(),
        "git_revision": git_revision(),
    }


def run_benchmark(
    benchmark: Benchmark[OptionsT], options: OptionsT, out: Path, settings: RunSettings
) -> RunResult:
    """Run ``benchmark`` into ``out`` (resuming what is there), score it, write the report.

    Bad input (options, files, a model spec, an endpoint that does not answer) stops before
    the run directory is created or changed.
    """
    choices = choose(
        benchmark, model=settings.model, judge=settings.judge, roles=settings.roles,
        model_options=batch_options(settings.model_options, settings.model, out),  # --batch
        judge_options=settings.judge_options,
        role_options=settings.role_options,
    )
    choices = {r: c for r, c in choices.items() if r == "target" or benchmark.uses_role(r, options)}
    models = build(choices)
    model = models["target"]
    if settings.model.startswith("replay:"):
        options = _replay_options(benchmark, options, model)
    units = benchmark.planned_units(options)
    unique = list({id(m): m for m in models.values()}.values())
    manifest = build_manifest(benchmark, options, models, choices, units)
    if (effort := settings.model_options.reasoning_effort) is not None:  # compared, resumed like an option
        manifest["options"]["reasoning_effort"] = manifest["generation"]["reasoning_effort"] = effort
    old = read_manifest(out)
    if (changed := changed_outside(out)) is not None:  # an edited run is refused, never re-scored
        raise CrevalError(changed)
    if old is not None:
        _check_compatible(old, manifest, out)
        check_items(old, manifest, out)
        manifest["created"] = old.get("created", manifest["created"])
    finished = {k for k, r in latest_records(read_records(out / RECORDS)).items() if r.status == "ok"}
    if any(u.key not in finished for u in units):
        asyncio.run(_preflight(unique))
    executor = get_executor(settings.executor, address=settings.ray_address,
                            workers=settings.workers)  # Ray missing or unreachable stops here
    with contextlib.ExitStack() as stack:
        stack.callback(executor.close)
        stack.enter_context(using_executor(executor))
        # under Ray, in-process models answer from actors (creval.runner.remote_model)
        models = on_actors(models, {r: c.options for r, c in choices.items()}, executor)
        unique = list({id(m): m for m in models.values()}.values())
        store = RunStore(out)
        _check_inputs(store, units, out)
        where = executor.describe()
        manifest["executor"] = {k: where[k] for k in ("executor", "address", "workers")}
        store.write_manifest(manifest)

        cache = ResponseCache(settings.cache) if settings.cache is not None else None
        runner = Runner(
            store, models, cache=cache, retry=settings.retry, progress=settings.progress,
            label=benchmark.name,
        )
        pending = runner.pending(units)
        started = time.time()
        opened = f"{os.getpid()}-{started}"
        if pending:  # a line now: a killed invocation leaves it without the closing one below
            store.log_invocation({"opened": opened, "pending": len(pending)})
        try:
            if pending:
                asyncio.run(_run(runner, unique, units, settings.concurrency))
        finally:
            seconds = time.time() - started
            store.log_invocation({"seconds": seconds, "pending": len(pending), "closes": opened,
                                  **runner.counters.as_dict(), "executor": executor.describe(),
                                  "process": {"host": platform.node(), "pid": os.getpid()}})
            if cache is not None:
                cache.close()
        scores = _score(benchmark, options, store, [u.key for u in units], settings.rescore)
        ran_on = executor.describe()
    scores = _label_self_judged(scores, store, self_roles(models), settings.judge is not None, out)
    from creval.evaluation.run.unscored import with_unscored

    scores = with_unscored(scores, benchmark.name, options.model_dump())  # a measure without items
    history = counted_invocations(store.invocations(), read_records(out / RECORDS))
    usage = {
        "this_invocation": {**runner.counters.as_dict(), "seconds": round(seconds, 3)},
        "all_invocations": {
            **sum_usage(history),
            "seconds": round(sum(float(i.get("seconds") or 0) for i in history), 3),
        },
        "invocations": len(history),
        "executor": ran_on,  # this invocation's: where its units and scoring ran
    }
    if batches := ledger_summary(out / LEDGER):  # --batch: the run's batches, for the reports
        usage["batches"] = batches
    run_warnings = [  # of this invocation; a reused scores.json drops them
        f"{endpoint} stopped answering ({error}); {runner.counters.units_not_run} unit(s) "
        "were not run. Start the server and run the same command again to resume."
        for endpoint, error in runner.down.items()
    ]
    if dropped := not_applied(store.latest().values()):  # parameters an endpoint rejected
        usage["not_applied"] = dropped
        run_warnings += [not_applied_warning(row) for row in dropped]
    scores = scores.model_copy(update={"usage": usage, "run_warnings": run_warnings})
    from creval.evaluation.compare.published_section import with_published_section

    scores = with_published_section(out, scores)  # every published value of its measures
    artifacts = benchmark.write_artifacts(scores, options, out)
    if artifacts:
        scores = scores.model_copy(update={"artifacts": artifacts})
    written = scores.model_dump(mode="json")
    store.write_scores(written)
    scores = Scores.model_validate(written)  # as the reader gives it back: JSON values
    from creval.evaluation.compare.paired import write_paired

    write_paired(out)  # item by item against published models, where a paper released them
    from creval.report.markdown import write_report

    write_report(out, manifest, scores)
    from creval.report.html import write_html_report  # without matplotlib: tables, no plots

    write_html_report(out)
    store.close()
    return RunResult(benchmark.name, out, scores, runner.counters, len(pending), dict(runner.down),
                     settings.model)


async def _run(
    runner: Runner, models: list[Model], units: list[Any], concurrency: int | None
) -> None:
    try:
        await runner.run(units, concurrency=concurrency, keep=False)  # a long run holds no records
    finally:
        for model in models:
            with contextlib.suppress(Exception):
                await model.aclose()


SELF_JUDGED = "self-judged: not comparable with published numbers"


def _label_self_judged(scores: Scores, store: RunStore, roles: list[str],
                       judge_given: bool = False, out: Path | None = None) -> Scores:
    """When the tested model also played the judge (detector, evaluator, rewriter) of its own
    answers in ``roles``, the headline and the warnings say so: published numbers come from
    other models. The judge is decided as comparability decides it, from the records (the
    same snapshot at the same endpoint: :func:`creval.evaluation.compare.conditions.self_judged`)."""
    called = {c.get("role") for r in store.latest().values() for c in r.calls}
    judged = [role for role in roles if role in called and role != "judge"]
    if "judge" in called and out is not None:
        from creval.evaluation.compare.conditions import self_judged
        from creval.reader import read_run

        if self_judged(read_run(out))[0]:
            judged.insert(0, "judge")
    elif "judge" in called and "judge" in roles:
        judged.insert(0, "judge")
    if not judged:
        return scores
    headline = {**scores.headline, "judged_by": SELF_JUDGED}
    if judged == ["judge"] and judge_given:  # the judge passed is the tested model's spec
        warning = (f"The judge you passed is the tested model itself ({SELF_JUDGED}, except "
                   "where the paper let its judge judge itself: see `creval references check`).")
    elif judged == ["judge"]:
        warning = (f"The judge was the tested model itself ({SELF_JUDGED}); pass --judge SPEC "
                   "(or --preset paper) for the paper's judge.")
    else:
        flags = " ".join(f"--{role} SPEC" for role in judged if role != "judge")
        warning = (f"The {', '.join(judged)} model was the tested model itself ({SELF_JUDGED});"
                   f" pass {flags} or --judge SPEC (or --preset paper) for the paper's choice.")
    warnings = scores.warnings if warning in scores.warnings else [*scores.warnings, warning]
    return scores.model_copy(update={"headline": headline, "warnings": warnings})


def counted_invocations(entries: list[dict[str, Any]], records: list[Record]) -> list[dict[str, Any]]:
    """The invocations of a run with their usage: each closed one as it logged itself; one
    that was killed (its opening line, no closing one) as its records tell it, the units
    that started between its opening and the next line, each model call one request (a
    cache hit is counted as one too: the records do not tell them apart), marked
    ``killed``.

    >>> killed = counted_invocations([{"opened": "a", "time": 1.0}], [])
    >>> killed[0]["killed"], killed[0]["units_ok"]
    (True, 0)
    """
    closed = {e.get("closes") for e in entries}
    out = []
    for i, entry in enumerate(entries):
        if "opened" not in entry:
            out.append(entry)
            continue
        if entry["opened"] in closed:
            continue
        start = float(entry.get("time") or 0.0)
        end = min((float(e.get("time") or 0.0) for e in entries[i + 1:]), default=float("inf"))
        mine = [r for r in records if start <= r.started < end]
        models: dict[str, dict[str, int]] = {}
        for record in mine:
            for call in record.calls:
                if "completions" not in call or str(call.get("model", "")).startswith("replay:"):
                    continue
                row = models.setdefault(str(call.get("model")), {})
                usage = [c.get("usage") or {} for c in call["completions"]]
                for name, value in (("requests", 1),
                                    ("input_tokens", sum(int(u.get("input_tokens") or 0) for u in usage)),
                                    ("output_tokens", sum(int(u.get("output_tokens") or 0) for u in usage)),
                                    ("reasoning_tokens", sum(int(u.get("reasoning_tokens") or 0) for u in usage))):
                    row[name] = row.get(name, 0) + value
        out.append({"killed": True, "pending": entry.get("pending"),
                    "units_ok": sum(r.status == "ok" for r in mine),
                    "units_failed": sum(r.status != "ok" for r in mine), "units_not_run": 0,
                    "models": models})
    return out


def _score(
    benchmark: Benchmark[OptionsT], options: OptionsT, store: RunStore, keys: list[str],
    force: bool,
) -> Scores:
    """Score the records of ``keys``; reuse scores.json when nothing it depends on changed."""
    inputs = {
        "format": SCORES_FORMAT,
        "records": store.records_digest(),
        "keys": digest(keys),
        "options": options.model_dump(mode="json"),
    }
    inputs_digest = digest(inputs)
    previous = store.read_scores()
    if not force and previous is not None and previous.get("inputs_digest") == inputs_digest:
        return Scores.model_validate(previous)  # its usage and run_warnings are replaced
    every = store.records()
    latest = latest_records(every)
    records = [latest[k] for k in keys if k in latest]
    scores = benchmark.score(records, options)
    if not isinstance(scores, Scores):  # a plug-in written for creval's older contract
        raise CrevalError(
            f"{benchmark.name}: score() returned {type(scores).__name__}, not "
            "creval.records.Scores. Return Scores(headline=..., table=..., notes=...) and "
            "add the benchmark's own fields with .with_extra(...)."
        )
    errors = [r for r in records if r.status == "error"]
    units = UnitCounts(
        total=len(keys),
        finished=sum(r.status == "ok" for r in records),
        errors=len(errors),
        missing=len(keys) - len(records),
        # records.jsonl is append-only: lines replaced by a later line of the same unit
        superseded_lines=superseded_count(every),
    )
    return scores.model_copy(update={
        "benchmark": benchmark.name,
        "units": units,
        "errors": [UnitError(key=r.key, error=(r.error or "")[:500]) for r in errors[:20]],
        "error_causes": error_causes([r.error or "" for r in errors]),
        "inputs_digest": inputs_digest,
        "records_head": store.head,  # the chain's head: report and compare check it
    })


def error_causes(errors: list[str], *, most: int = 5) -> list[ErrorCause]:
    """The distinct causes of unit errors, most frequent first, with their counts.

    A cause is the error's first line without its attempt count, so the same failure after
    2 or 5 attempts counts once.

    >>> error_causes(["ModelError: 404 (does --base-url need to end in /v1?)",
    ...               "ModelError: 404 (does --base-url need to end in /v1?)",
    ...               "TransientModelError after 5 attempts: 503"])[1]
    ErrorCause(cause='TransientModelError: 503', count=1)
    """
    causes = Counter(
        re.sub(r" after \d+ attempts:", ":", (e.strip().splitlines() or ["(no message)"])[0])[:300]
        for e in errors
    )
    return [ErrorCause(cause=c, count=n) for c, n in causes.most_common(most)]
