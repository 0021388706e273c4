"""``creval profile`` and :func:`profile`: the battery of all five families against one model.

A profile directory holds one run directory per benchmark (``PROFILE/dat``, ...), the
profile's manifest (``profile-manifest.json``: battery version, size, every run's options,
every role's model), and the profile report (``profile.json``, ``profile.md``,
``profile.html``). Each run resumes like any run, so running the same profile again sends
no request for finished units and only rebuilds the report.

``--model replay:PROFILE_DIR`` replays a recorded profile: each benchmark answers from the
run directory of the same name inside it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.evaluation.panel.panels import run_plan
from creval.evaluation.profile.battery import BATTERY_VERSION, PlannedRun, battery, describe_battery
from creval.evaluation.run.plans import Plan, plan_runs, slug
from creval.evaluation.run.runs import RunResult, RunSettings

PROFILE_MANIFEST = "profile-manifest.json"
PROFILE_JSON = "profile.json"


@dataclass(frozen=True)
class ProfileRequest:
    """What a profile runs: the model, the battery's size and language, the judges."""

    model: str = "local"
    size: str = "standard"
    lang: str = "en"
    preset: str | None = None
    judge: str | None = None
    roles: Mapping[str, str] = dataclasses.field(default_factory=dict)
    families: tuple[str, ...] = ()
    #: Run only these benchmarks of the battery (empty: all).
    only: tuple[str, ...] = ()
    #: Options per benchmark that replace the battery's (``{"dat": {"trials": 10}}``).
    overrides: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)
    #: Independent samples per item of the benchmarks that can repeat (``--repeats``).
    repeats: int = 1


@dataclass(frozen=True)
class ProfileResult:
    """A finished profile: its directory, the profile document and every run."""

    out: Path
    document: dict[str, Any]
    runs: list[RunResult]

    @property
    def html(self) -> Path:
        return self.out / "profile.html"

    @property
    def ok(self) -> bool:
        return all(not r.scores.units.errors and not r.endpoints_down for r in self.runs)


def default_out(request: ProfileRequest) -> Path:
    return Path("runs") / "profiles" / f"{slug(request.model)}-{request.size}"


def _replay_root(model: str) -> Path | None:
    """The recorded profile a ``replay:`` spec points at, or None for a single run."""
    if not model.startswith("replay:"):
        return None
    root = Path(model.removeprefix("replay:"))
    return root if (root / PROFILE_MANIFEST).is_file() else None


def plan_profile(request: ProfileRequest, out: Path) -> list[tuple[PlannedRun, Plan]]:
    """Every run of the profile with validated options; bad input stops here."""
    from creval.benchmarks.base import get_benchmark
    from creval.benchmarks.repeats import RepeatOptions

    planned = battery(request.size, lang=request.lang, families=list(request.families) or None,
                      only=list(request.only) or None)
    unknown = sorted(set(request.overrides) - {p.member.benchmark for p in planned})
    if unknown:
        raise CrevalError(f"Options given for {', '.join(unknown)}, which this profile does not "
                          "run; see `creval profile --help` for the battery.")
    replay = _replay_root(request.model)
    plans = []
    for p in planned:
        name = p.member.benchmark
        model = request.model
        if replay is not None:
            if not (replay / name / "records.jsonl").is_file():
                raise CrevalError(f"{replay} has no run of {name} to replay; profile it with "
                                  "the same --size and --lang first.")
            model = f"replay:{replay / name}"
        bench = get_benchmark(name)
        # lotbench's own repeats (games per sample) is another option of the same name
        repeats = {"repeats": request.repeats} if issubclass(bench.Options, RepeatOptions) else {}
        options = {**p.options, **repeats, **request.overrides.get(name, {})}
        roles = {r: s for r, s in request.roles.items() if r in bench.extra_roles}
        [plan] = plan_runs([name], options, out / name, model, preset=request.preset,
                           judge=request.judge, roles=roles)
        plans.append((p, plan))
    return plans


def _manifest(request: ProfileRequest, plans: list[tuple[PlannedRun, Plan]]) -> dict[str, Any]:
    return {
        "creval_profile": 1, "battery_version": BATTERY_VERSION, "size": request.size,
        "lang": request.lang, "model": request.model, "preset": request.preset,
        "judge": request.judge, "roles": dict(request.roles),
        "runs": [{"family": p.family.name, "seed": p.family.seed, "benchmark": p.member.benchmark,
                  "options": plan.options.model_dump(mode="json"),
                  "judge": plan.judge or ("self" if "judge" in plan.benchmark.roles else None),
                  "roles": dict(plan.roles), "self_judged": _self_roles(plan)}
                 for p, plan in plans],
        "battery": describe_battery(),
    }


def _self_roles(plan: Plan) -> list[str]:
    """The judging roles the tested model plays itself: no judge given, and a role of the
    benchmark's own with no model of its own falls back to the judge, then the model."""
    judged = [r for r in plan.benchmark.roles if r != "target"] + list(plan.benchmark.extra_roles)
    if plan.judge is not None:
        return []
    return [r for r in judged if r == "judge" or r not in plan.roles]


def _check_resumable(out: Path, manifest: dict[str, Any]) -> None:
    """Stop when ``out`` holds another profile; keep the runs of families not run now."""
    path = out / PROFILE_MANIFEST
    if not path.is_file():
        return
    try:
        old = json.loads(path.read_text())
    except ValueError as exc:
        raise CrevalError(f"{path} is not a creval profile manifest ({exc}).") from None
    for key in ("battery_version", "size", "lang", "model", "preset", "judge"):
        if old.get(key) != manifest[key]:
            raise CrevalError(
                f"{out} holds a profile with {key}={old.get(key)!r}, not {manifest[key]!r}. "
                "Use another --out, or the same settings to resume it.")
    now = {r["benchmark"] for r in manifest["runs"]}
    manifest["runs"] = [r for r in old.get("runs", []) if r["benchmark"] not in now] + manifest["runs"]


def run_profile(request: ProfileRequest, out: Path | None, settings: RunSettings) -> ProfileResult:
    """Run (or resume) the profile into ``out`` and write its reports."""
    out = out or default_out(request)
    plans = plan_profile(request, out)
    manifest = _manifest(request, plans)
    _check_resumable(out, manifest)
    made = [p for p in (out, *out.parents) if not p.exists()]  # folders this call creates
    out.mkdir(parents=True, exist_ok=True)
    (out / PROFILE_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    replay = _replay_root(request.model)
    results = []
    try:
        for planned, plan in plans:
            model = request.model if replay is None else f"replay:{replay / plan.benchmark.name}"
            chosen = dataclasses.replace(settings, model=model, judge=plan.judge, roles=plan.roles)
            if settings.progress:
                print(f"[profile] {planned.family.name}: {plan.benchmark.name} -> {plan.out}",
                      flush=True)
            results.append(run_plan(plan, chosen))  # a judge panel (--judge a,b,c) or one run
    except CrevalError:
        if made and not results:
            _remove_unused(out, made)
        raise
    document = write_profile(out)
    return ProfileResult(out, document, results)


def _remove_unused(out: Path, made: list[Path]) -> None:
    """Undo a profile folder this invocation made when its first run stopped before writing
    anything (an unreachable endpoint, bad input): its manifest and empty folders go, any
    other file stays."""
    import os

    (out / PROFILE_MANIFEST).unlink(missing_ok=True)
    for folder, _, _ in sorted(os.walk(out), key=lambda w: -len(w[0])):
        if Path(folder) != out:
            with contextlib.suppress(OSError):
                Path(folder).rmdir()  # only empty folders
    for made_folder in made:  # out, then the parents this invocation made
        with contextlib.suppress(OSError):
            made_folder.rmdir()


def write_profile(out: Path) -> dict[str, Any]:
    """(Re)build ``profile.json``, ``profile.md`` and ``profile.html`` from the runs in ``out``."""
    from creval.evaluation.profile.data import assemble_profile
    from creval.report.profile import write_profile_reports

    path = out / PROFILE_MANIFEST
    if not path.is_file():
        raise CrevalError(f"{out} is not a profile directory (no {PROFILE_MANIFEST}).")
    manifest = json.loads(path.read_text())
    families = sorted({r["family"] for r in manifest["runs"]})
    planned = battery(manifest["size"], lang=manifest["lang"], families=families,
                      only=sorted({r["benchmark"] for r in manifest["runs"]}))
    header = {k: manifest.get(k) for k in ("size", "lang", "model", "preset", "judge", "roles")}
    document = assemble_profile(out, planned, header)
    from creval.evaluation.compare.paired import attach_paired

    attach_paired(document, out)  # item by item against published models, where released
    (out / PROFILE_JSON).write_text(json.dumps(document, indent=2, default=str) + "\n")
    write_profile_reports(out, document)
    return document


def profile(
    model: str = "local",
    *,
    size: str = "standard",
    out: str | Path | None = None,
    lang: str = "en",
    preset: str | None = None,
    judge: str | None = None,
    roles: Mapping[str, str] | None = None,
    families: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    progress: bool = False,
    repeats: int = 1,
    **settings: Any,
) -> ProfileResult:
    """Run the profile battery against ``model`` and write its report, as ``creval profile``.

    ``size``: ``smoke``, ``standard`` or ``paper`` (see :mod:`creval.evaluation.profile.battery`);
    ``families``: a subset of ``neocoder``, ``open-ended``, ``metric-validity``,
    ``lotbench``, ``ttct``; ``only``: a subset of their benchmarks; ``options``: per-benchmark options that replace the battery's
    (``{"dat": {"trials": 10}}``); ``repeats``: independent samples per item of the
    benchmarks that can repeat them (dat, sat, ttct, jcq, noveltybench, aut), for the
    variance split and the noise floor in their reports (as ``--repeats``). Other keyword arguments are those of
    :func:`creval.evaluate` (``base_url``, ``judge_base_url``, ``cache``, ``threads``, ...).
    The same ``out`` resumes: finished units are not asked again.
    """
    from creval.evaluation.api import in_own_loop, run_settings

    request = ProfileRequest(model=model, size=size, lang=lang, preset=preset, judge=judge,
                             roles=dict(roles or {}), families=tuple(families or ()),
                             only=tuple(only or ()),
                             overrides={k: dict(v) for k, v in (options or {}).items()},
                             repeats=repeats)
    chosen = run_settings(model, judge=judge, progress=progress, **settings)
    return in_own_loop(lambda: run_profile(request, Path(out) if out is not None else None, chosen))
