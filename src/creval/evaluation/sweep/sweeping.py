"""``creval sweep`` and :func:`sweep`: a benchmark (or the profile battery) at several values
of one generation option, as curves of a divergent measure against a quality measure.

A sweep directory holds ``sweep-manifest.json`` (the option, its values so far, the model,
the benchmarks or the profile), one folder per value (``temperature-0.7``) with one run
directory per benchmark inside (``temperature-0.7/dat``; for a profile sweep the folder is a
profile directory, whose runs are laid out the same way), and the reports: ``sweep.json``
(the points, see :mod:`creval.evaluation.sweep.data`), ``sweep.md`` and ``sweep.html``. Each
run resumes like any run and answers come through the response cache, so running the same
sweep again sends no request and only rebuilds the reports; a new value adds a point.

``--model replay:SWEEP_DIR`` replays a recorded sweep, value by value.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.evaluation.run.grid import GridRun, run_grid
from creval.evaluation.run.plans import plan_runs, slug
from creval.evaluation.run.runs import RunResult, RunSettings
from creval.evaluation.sweep.data import (
    assemble_sweep,
    check_sweepable,
    compare_documents,
    point_dir,
    sweepable,
)

if TYPE_CHECKING:
    import pandas as pd

    from creval.evaluation.profile.profiling import ProfileRequest

SWEEP_MANIFEST = "sweep-manifest.json"
SWEEP_JSON = "sweep.json"
#: Columns of :meth:`Sweep.df`, one row per point.
POINT_COLUMNS = ("value", "benchmark", "measure", "estimate", "low", "high", "n",
                 "quality_measure", "quality", "quality_low", "quality_high", "quality_n", "run")


@dataclass(frozen=True)
class SweepRequest:
    """What a sweep runs: one option at several values, benchmarks or the profile battery."""

    option: str
    values: tuple[float, ...]
    model: str = "local"
    benchmarks: tuple[str, ...] = ()
    #: The profile battery instead of benchmarks: ``{"size", "lang", "families", "only"}``.
    profile: Mapping[str, Any] | None = None
    #: Benchmark options (a benchmark sweep) or ``{BENCH: {OPTION: VALUE}}`` (a profile).
    options: Mapping[str, Any] = field(default_factory=dict)
    preset: str | None = None
    judge: str | None = None
    roles: Mapping[str, str] = field(default_factory=dict)
    role_urls: Mapping[str, str] = field(default_factory=dict)


def parse_values(spec: str | Mapping[str, Sequence[float]]) -> tuple[str, tuple[float, ...]]:
    """``"temperature=0.2,0.7,1.0"`` (or ``{"temperature": [...]}``) -> the option and its
    values, sorted; at least two distinct numbers.

    >>> parse_values("temperature=1.0,0.2,0.7")
    ('temperature', (0.2, 0.7, 1.0))
    >>> parse_values({"top-p": [0.9, 0.5]})
    ('top_p', (0.5, 0.9))
    """
    if isinstance(spec, str):
        name, sep, text = spec.partition("=")
        if not sep or not name.strip():
            raise CrevalError(f"--values takes OPTION=V1,V2,... (e.g. temperature=0.2,0.7,1.0), "
                              f"got {spec!r}.")
        raw: list[Any] = [t.strip() for t in text.split(",") if t.strip()]
    else:
        if len(spec) != 1:
            raise CrevalError("values names one option: {'temperature': [0.2, 0.7, 1.0]}.")
        ((name, raw),) = ((k, list(v)) for k, v in spec.items())
    option = name.strip().removeprefix("--").replace("-", "_")
    try:
        values = [float(v) for v in raw]
    except (TypeError, ValueError):
        raise CrevalError(f"The values of {option} must be numbers, got {raw!r}.") from None
    if len(set(values)) != len(values):
        raise CrevalError(f"A value of {option} is given twice: {raw!r}; name each once.")
    if len(values) < 2:
        raise CrevalError(f"A sweep needs at least two values of {option}, got {raw!r}.")
    return option, tuple(sorted(values))


def _check_option(option: str, names: Sequence[str], options: Mapping[str, Any]) -> None:
    from creval.benchmarks.base import get_benchmark

    for name in names:
        bench = get_benchmark(name)
        if option not in bench.Options.model_fields:
            import difflib

            swept = [f for f in bench.Options.model_fields
                     if bench.Options.kind_of(f) == "generation"]
            close = difflib.get_close_matches(option, swept, n=1)
            hint = f" Did you mean {close[0]}?" if close else ""
            raise CrevalError(f"{name} has no option --{option.replace('_', '-')} to sweep.{hint}")
        if bench.Options.kind_of(option) != "generation":
            raise CrevalError(f"--{option.replace('_', '-')} of {name} is a "
                              f"{bench.Options.kind_of(option)} option: a sweep varies a "
                              "generation option (temperature, max_tokens, ...).")
    if option in options:
        raise CrevalError(f"--{option.replace('_', '-')} is the swept option: give its values "
                          "with --values only.")


def _replay(model: str, root: Path, name: str | None) -> str:
    """A ``replay:SWEEP_DIR`` answers each point (folder ``root``) from the point of the same
    name in that sweep: its run of ``name``, or its profile directory."""
    if not model.startswith("replay:"):
        return model
    source = Path(model.removeprefix("replay:"))
    if not (source / SWEEP_MANIFEST).is_file():
        raise CrevalError(f"{source} is not a sweep directory: a sweep replays a recorded sweep "
                          "(replay:SWEEP_DIR), one run per value, never one run at every value.")
    point = source / root.name
    return f"replay:{point / name if name else point}"


def _battery_names(request: SweepRequest) -> list[str]:
    from creval.evaluation.profile.battery import battery

    p = request.profile or {}
    from creval.evaluation.profile.battery import battery_families

    members = {m.benchmark for _, ms in battery_families() for m in ms}
    swept = [n for n in sweepable() if n in members]
    only = [n for n in (p.get("only") or swept) if n in swept]
    planned = battery(p.get("size", "standard"), lang=p.get("lang", "en"),
                      families=list(p.get("families") or []) or None, only=only or None)
    names = [r.member.benchmark for r in planned]
    if not names:
        raise CrevalError(f"The battery has nothing to sweep here: only {', '.join(swept)} "
                          "have a divergent and a quality measure.")
    return names


def plan_sweep(request: SweepRequest, out: Path) -> list[tuple[float, list[GridRun]]]:
    """Every run of a benchmark sweep, value by value, validated before anything runs."""
    check_sweepable(request.benchmarks)
    _check_option(request.option, request.benchmarks, request.options)
    planned = []
    for value in request.values:
        point = point_dir(out, request.option, value)
        plans = plan_runs(list(request.benchmarks), {**request.options, request.option: value},
                          point, request.model, preset=request.preset, judge=request.judge,
                          roles=request.roles, role_urls=request.role_urls)
        planned.append((value, [
            GridRun(_replay(request.model, point, p.benchmark.name),
                    dataclasses.replace(p, out=point / p.benchmark.name)) for p in plans]))
    return planned


def _manifest(request: SweepRequest, benchmarks: list[str], out: Path) -> dict[str, Any]:
    """The sweep's manifest, merged with the one already in ``out`` (the values so far)."""
    manifest = {"creval_sweep": 1, "option": request.option, "model": request.model,
                "benchmarks": benchmarks, "profile": dict(request.profile or {}) or None,
                "preset": request.preset, "judge": request.judge,
                "values": list(request.values)}
    path = out / SWEEP_MANIFEST
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise CrevalError(f"{path} is not a creval sweep manifest ({exc}).") from None
        for key in ("option", "model", "benchmarks", "profile", "preset", "judge"):
            if old.get(key) != manifest[key]:
                raise CrevalError(f"{out} holds a sweep with {key}={old.get(key)!r}, not "
                                  f"{manifest[key]!r}. Use another --out, or the same settings "
                                  "to resume it.")
        manifest["values"] = sorted({*old.get("values", []), *request.values})
    return manifest


def sweep_out(request: SweepRequest, out: Path | None) -> Path:
    """The sweep directory: ``out``, else ``runs/sweeps/MODEL-OPTION``."""
    return out or Path("runs") / "sweeps" / f"{slug(request.model)}-{request.option}"


def planned_sweep(request: SweepRequest, out: Path) -> tuple[
        list[str], list[tuple[Path, ProfileRequest]], list[tuple[float, list[GridRun]]]]:
    """The sweep's benchmarks and its profiles or runs, value by value; bad input stops here."""
    profiles: list[tuple[Path, ProfileRequest]] = []
    plans: list[tuple[float, list[GridRun]]] = []
    if request.profile is not None:
        benchmarks = _battery_names(request)
        _check_option(request.option, benchmarks, {})
        unknown = sorted(set(request.options) - set(benchmarks))
        if unknown:
            raise CrevalError(f"Options given for {', '.join(unknown)}, which this sweep does "
                              f"not run (it runs {', '.join(benchmarks)}).")
        profiles = _profile_requests(request, benchmarks, out)  # bad input stops here
    else:
        benchmarks = list(request.benchmarks)
        plans = plan_sweep(request, out)  # bad input stops here
    return benchmarks, profiles, plans


def run_sweep(request: SweepRequest, out: Path | None, settings: RunSettings, *,
              confidence: float = 0.95, resamples: int = 2000) -> SweepResult:
    """Run (or resume) the sweep into ``out`` and write its reports."""
    out = sweep_out(request, out)
    benchmarks, profiles, plans = planned_sweep(request, out)
    manifest = _manifest(request, benchmarks, out)
    out.mkdir(parents=True, exist_ok=True)
    (out / SWEEP_MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    results: list[RunResult] = []
    if profiles:
        from creval.evaluation.profile.profiling import run_profile

        for point, profile in profiles:
            if settings.progress:
                print(f"[sweep] {point.name}", file=sys.stderr, flush=True)
            results += run_profile(profile, point, settings).runs
    for value, runs in plans:
        if settings.progress:
            print(f"[sweep] {request.option}={value!r}", file=sys.stderr, flush=True)
        results += run_grid(runs, settings)
    document = write_sweep(out, confidence=confidence, resamples=resamples)
    return SweepResult(out, document, results)


def _profile_requests(request: SweepRequest, benchmarks: list[str],
                      out: Path) -> list[tuple[Path, ProfileRequest]]:
    """One profile per value, each with the swept option set on every benchmark; checked
    (options, judges, data) before anything is written."""
    from creval.evaluation.profile.profiling import ProfileRequest, plan_profile

    p = dict(request.profile or {})
    planned = []
    for value in request.values:
        point = point_dir(out, request.option, value)
        overrides = {name: {**dict(request.options.get(name, {})), request.option: value}
                     for name in benchmarks}
        profile = ProfileRequest(
            model=_replay(request.model, point, None), size=p.get("size", "standard"),
            lang=p.get("lang", "en"), preset=request.preset, judge=request.judge,
            roles=dict(request.roles), families=tuple(p.get("families") or ()),
            only=tuple(benchmarks), overrides=overrides)
        plan_profile(profile, point)
        planned.append((point, profile))
    return planned


def write_sweep(out: Path, *, confidence: float = 0.95, resamples: int = 2000) -> dict[str, Any]:
    """(Re)build ``sweep.json``, ``sweep.md`` and ``sweep.html`` from the runs in ``out``."""
    from creval.report.sweep import write_sweep_reports

    path = out / SWEEP_MANIFEST
    if not path.is_file():
        raise CrevalError(f"{out} is not a sweep directory (no {SWEEP_MANIFEST}).")
    manifest = json.loads(path.read_text(encoding="utf-8"))
    header = {k: manifest.get(k) for k in ("option", "values", "model", "benchmarks", "profile",
                                           "preset", "judge")}
    document = assemble_sweep(out, header, confidence=confidence, resamples=resamples)
    (out / SWEEP_JSON).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    write_sweep_reports(out, document)
    return document


class Sweep:
    """A sweep directory, read-only (:func:`read_sweep`): its ``sweep.json`` and frames."""

    def __init__(self, path: Path, document: dict[str, Any]) -> None:
        self.path = path
        self.document = document

    def __repr__(self) -> str:
        return (f"Sweep({str(self.path)!r}, option={self.document.get('option')!r}, "
                f"model={self.document.get('model')!r})")

    @property
    def html(self) -> Path:
        return self.path / "sweep.html"

    def df(self) -> pd.DataFrame:
        """One row per point: value, benchmark, measure, estimate and interval, quality
        measure, quality and interval, the run directory."""
        import pandas as pd

        rows = [{c: p.get(c) for c in POINT_COLUMNS} for p in self.document["points"]]
        return pd.DataFrame(rows, columns=list(POINT_COLUMNS))


@dataclass
class SweepResult(Sweep):
    """A finished sweep: its directory, document and every run of this invocation."""

    path: Path
    document: dict[str, Any]
    runs: list[RunResult]

    @property
    def ok(self) -> bool:
        return all(not r.scores.units.errors and not r.endpoints_down for r in self.runs)


def read_sweep(path: str | Path) -> Sweep:
    """The sweep directory ``path`` (its ``sweep.json``), read-only."""
    root = Path(path)
    file = root / SWEEP_JSON
    if not file.is_file():
        raise CrevalError(f"{root} is not a finished sweep (no {SWEEP_JSON}): run `creval sweep` "
                          "into it first.")
    try:
        return Sweep(root, json.loads(file.read_text(encoding="utf-8")))
    except ValueError as exc:
        raise CrevalError(f"{file} is not a creval sweep document ({exc}).") from None


class SweepComparison:
    """Two sweeps compared (:func:`compare_sweeps`): the document and its frames."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def matched_df(self) -> pd.DataFrame:
        """One row per shared curve: the quality target, each model's option value and
        divergent value there, and A minus B with its interval."""
        import pandas as pd

        rows = []
        for c in self.document["comparisons"]:
            a, b = c.get("a") or {}, c.get("b") or {}
            rows.append({"benchmark": c["benchmark"], "measure": c["measure"],
                         "quality_measure": c["quality_measure"], "target": c["target"],
                         "a_value": a.get("value"), "a": a.get("estimate"),
                         "b_value": b.get("value"), "b": b.get("estimate"),
                         "difference": c.get("difference"), "low": c.get("low"),
                         "high": c.get("high"), "reached": c.get("reached")})
        return pd.DataFrame(rows)

    def fixed_df(self) -> pd.DataFrame:
        """One row per shared curve and option value: A minus B at that value."""
        import pandas as pd

        return pd.DataFrame([{"benchmark": c["benchmark"], "measure": c["measure"], **row}
                             for c in self.document["comparisons"] for row in c["fixed"]])


def compare_sweeps(a: str | Path, b: str | Path, *, target: float | None = None,
                   confidence: float = 0.95, resamples: int = 2000,
                   out: str | Path | None = None) -> SweepComparison:
    """Sweep ``a`` against sweep ``b``: each shared curve at matched quality (``target``, or
    the middle of the quality range both reach) and at each shared value; with ``out``, also
    ``compare.json``, ``compare.md`` and ``compare.html`` there."""
    if not 0 < confidence < 1:
        raise CrevalError("confidence takes a level between 0 and 1, such as 0.95.")
    first, second = read_sweep(a), read_sweep(b)
    document = compare_documents((first.path, first.document), (second.path, second.document),
                                 target=target, confidence=confidence, resamples=resamples)
    if out is not None:
        from creval.report.sweep import write_compare_reports

        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "compare.json").write_text(json.dumps(document, indent=2) + "\n",
                                             encoding="utf-8")
        write_compare_reports(folder, document, (first.document, second.document))
    return SweepComparison(document)


def sweep(
    benchmarks: str | Sequence[str] | None = None,
    *,
    values: str | Mapping[str, Sequence[float]],
    model: str = "local",
    out: str | Path | None = None,
    profile: bool = False,
    size: str = "standard",
    lang: str = "en",
    families: Sequence[str] | None = None,
    only: Sequence[str] | None = None,
    preset: str | None = None,
    judge: str | None = None,
    roles: Mapping[str, str] | None = None,
    role_base_urls: Mapping[str, str] | None = None,
    confidence: float = 0.95,
    resamples: int = 2000,
    progress: bool = False,
    settings: Mapping[str, Any] | None = None,
    **options: Any,
) -> SweepResult:
    """Run ``benchmarks`` (or, with ``profile=True``, the profile battery's sweepable members)
    at every value of one generation option, as ``creval sweep``: ``values`` is
    ``"temperature=0.2,0.7,1.0"`` or ``{"temperature": [0.2, 0.7, 1.0]}``.

    ``options`` are benchmark options (``trials=5``); for a profile, per-benchmark options
    (``dat={"trials": 10}``). ``settings`` are :func:`creval.evaluate`'s run settings
    (``base_url``, ``cache``, ``threads``, ...). The same ``out`` resumes.
    """
    from creval.evaluation.api import in_own_loop, run_settings

    if not 0 < confidence < 1:
        raise CrevalError("confidence takes a level between 0 and 1, such as 0.95.")
    request = sweep_request(benchmarks, values=values, model=model, profile=profile, size=size,
                            lang=lang, families=families, only=only, preset=preset, judge=judge,
                            roles=roles, role_base_urls=role_base_urls, **options)
    run = run_settings(model, judge=judge, progress=progress, role_base_urls=role_base_urls,
                       **dict(settings or {}))
    run = dataclasses.replace(run, progress=progress)
    where = Path(out) if out is not None else None
    return in_own_loop(lambda: run_sweep(request, where, run, confidence=confidence,
                                         resamples=resamples))


def sweep_request(
    benchmarks: str | Sequence[str] | None = None, *, values: str | Mapping[str, Sequence[float]],
    model: str = "local", profile: bool = False, size: str = "standard", lang: str = "en",
    families: Sequence[str] | None = None, only: Sequence[str] | None = None,
    preset: str | None = None, judge: str | None = None, roles: Mapping[str, str] | None = None,
    role_base_urls: Mapping[str, str] | None = None, **options: Any,
) -> SweepRequest:
    """The :class:`SweepRequest` of :func:`sweep`'s arguments (``creval sweep``, ``--plan``)."""
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
