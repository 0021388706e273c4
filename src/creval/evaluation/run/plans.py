"""What an invocation will run, before anything runs: each benchmark's validated options,
run directory, judge and role models (:func:`plan_runs`), from the command line's or the
Python API's values and a preset."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.benchmarks.base import Benchmark, BenchmarkOptions
from creval.errors import CrevalError
from creval.evaluation.run.roles import check_role_names


@dataclass(frozen=True)
class Plan:
    """One benchmark to run: its validated options, run directory and, when the user or a
    preset chose them, its judge and the models of its own roles."""

    benchmark: Benchmark[Any]
    options: BenchmarkOptions
    out: Path
    judge: str | None = None
    roles: dict[str, str] = field(default_factory=dict)


def did_you_mean(unknown: Sequence[str], known: Iterable[str]) -> str:
    """`` Did you mean --temperature?`` for the closest known option of each unknown one.

    >>> did_you_mean(["tempreature"], ["temperature", "top_p"])
    ' Did you mean --temperature?'
    >>> did_you_mean(["zzz"], ["temperature"])
    ''
    """
    import difflib

    choices = list(known)
    close = [m[0] for u in unknown if (m := difflib.get_close_matches(u, choices, n=1))]
    if not close:
        return ""
    return " Did you mean " + " or ".join("--" + c.replace("_", "-") for c in close) + "?"


def plan_runs(
    names: list[str], values: dict[str, Any], out: Path | None, model: str,
    *, preset: str | None = None, judge: str | None = None,
    roles: Mapping[str, str] | None = None, role_urls: Mapping[str, str] | None = None,
) -> list[Plan]:
    """Benchmarks with their validated options and run directories, before anything runs.

    ``values`` are option values by name (``{"trials": "5"}``); each benchmark takes those
    it has, and a name no chosen benchmark has is an error. The run directory is ``out``
    for one benchmark, else ``out/NAME``; without ``out``, ``runs/MODEL/NAME``. A ``preset``
    (``paper``) fills the options the user did not give and, without ``judge``, the judge
    and role models; what it needs is checked here (see :mod:`creval.evaluation.run.presets`). ``roles``
    (``{"e1": SPEC}``) and ``role_urls`` must name roles a chosen benchmark declares.
    """
    from creval.benchmarks.base import get_benchmark
    from creval.evaluation.run.presets import check_needs, preset_entry
    from creval.models import check_spec

    if not names:
        raise CrevalError("Name at least one benchmark: creval run BENCHMARK [...] (see `creval list`).")
    from creval.evaluation.panel.conditions import first_judge

    judge = first_judge(judge)  # a panel (--judge a,b,c): each judge runs apart, checked here
    for spec in (model, judge, *(roles or {}).values()):
        if spec is not None:
            check_spec(spec)  # a typo (--model locla) stops before anything is planned or written
    chosen = [get_benchmark(name) for name in names]
    known = {f for b in chosen for f in b.Options.model_fields}
    unknown = sorted(set(values) - known)
    hints = [h for u in unknown for b in chosen if (h := b.renamed_hint(u))]
    if hints:
        raise CrevalError("; ".join(hints))
    if unknown:
        raise CrevalError(
            f"Unknown option(s) {', '.join('--' + u.replace('_', '-') for u in unknown)} for "
            f"{', '.join(names)}.{did_you_mean(unknown, known)} See `creval list --verbose` or "
            "`creval run NAME --help`."
        )
    check_role_names(chosen, roles or {}, role_urls or {})
    root = out or Path("runs") / slug(model)
    from creval._util.paths import file_in_the_way

    if (blocker := file_in_the_way(root)) is not None:
        raise CrevalError(f"--out {root}: {blocker} is a file; name a directory (new or a run's).")
    plans, entries = [], {}
    for bench in chosen:
        mine = {k: v for k, v in values.items() if k in bench.Options.model_fields}
        mine_roles = {r: s for r, s in (roles or {}).items() if r in bench.extra_roles}
        chosen_judge = judge
        if preset is not None:
            # the user's judge and role models replace the preset's, and their needs
            entry = preset_entry(preset, bench.name, str(mine.get("lang", "en"))).overridden(
                judge, mine_roles, given=[k for k, v in mine.items() if v not in (None, "")])
            entries[bench.name] = entry
            mine = {**entry.options, **mine}
            chosen_judge = judge or entry.judge
            mine_roles = {**entry.roles, **mine_roles}
        options = bench.parse_options(mine)
        run_dir = root if (out is not None and len(chosen) == 1) else root / bench.name
        plans.append(Plan(bench, options, run_dir, chosen_judge, mine_roles))
    if entries:
        check_needs(entries)
    return plans


def slug(text: str) -> str:
    """A folder-safe name: ``openai:gpt-4o`` -> ``openai-gpt-4o``.

    >>> slug("local:/tmp/My Model.gguf")
    'local-tmp-my-model.gguf'
    """
    return re.sub(r"[^a-z0-9._]+", "-", text.lower()).strip("-") or "model"
