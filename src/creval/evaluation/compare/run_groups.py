"""Which of the user's runs were measured the same way: the rules a run meets against a
published value (:mod:`creval.evaluation.compare.comparability`), applied between runs.

``creval compare A B ...`` ranks runs of one benchmark together only when they measured
alike (:func:`differences`: the same data by content, the same judge and evaluator models by
the snapshot their endpoints reported, every compared option equal, except the tested
model's own sampling, which runs of several models may set apart on purpose). Runs that
measured differently are grouped apart (:func:`group_runs`), each group with every
difference from the first group named; ``--strict`` refuses them instead. Runs on different
item sets (another number of items) are said, not grouped apart: the items behind each value
are shown beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from creval.errors import CrevalError
from creval.evaluation.compare.comparability import conditions_of, reasons
from creval.evaluation.compare.conditions import effective_options
from creval.evaluation.panel.conditions import panel_differences, panel_of
from creval.report.references import Protocol

if TYPE_CHECKING:
    from creval.reader import Run

#: Options of the tested model's sampling, which two runs may differ in on purpose.
SAMPLING = ("temperature", "top_p", "max_tokens")
#: Options that do not change what is measured (how much was run, and how), and the data
#: options (compared as the data's identity instead of the path).
_NOT_PROTOCOL = {"limit", "seed", "concurrency", "states", "questions", "data", "source",
                 "samples", "stories"}


def _protocol_of(run: Run) -> Protocol:
    """Run ``run``'s own protocol, to hold another run against: its judge and roles by the
    model ids their endpoints reported (else the spec); its data is compared apart
    (:func:`_same_data`)."""
    cond = conditions_of(run)
    options = {k: v for k, v in effective_options(cond).items() if k not in _NOT_PROTOCOL}
    judge = cond.judge_reported or ((cond.judge,) if cond.judge is not None else None)
    return Protocol(id=f"run {run.path}", benchmark=cond.benchmark, data="none", items=None,
                    judge=judge, description=f"as run {run.path} measured",
                    roles={r: cond.roles_reported.get(r) or (spec,) for r, spec in cond.roles.items()},
                    options=options)


def _same_data(a: Run, b: Run) -> str | None:
    """None when both runs measured the same data (by content), else why not."""
    da, db = conditions_of(a).data, conditions_of(b).data
    return None if da.key == db.key else f"not comparable: the data {db.shown}, the first run's was {da.shown}"


def differences(first: Run, other: Run) -> list[str]:
    """Every way ``other`` measured differently from ``first`` (empty: alike), each naming
    the option and both values; the comparability rules, ``the first run`` for ``the paper``.
    A judge panel (``--judge a,b,c``) is held against another run by its members and
    aggregate, and by its first member's run for the rest (:mod:`creval.evaluation.panel.conditions`)."""
    if (judged := panel_differences(first.manifest, other.manifest)) is not None:
        rest = differences(_member_run(first), _member_run(other))
        return judged + [w for w in rest if not w.startswith(("judge", "no judge", "self-judged"))]
    protocol = _protocol_of(first)
    options = dict(protocol.options)
    for name in SAMPLING:  # the tested model's sampling may differ: take the other's
        if name in options and name in other.manifest.options:
            options[name] = other.manifest.options[name]
    protocol = Protocol(**{**protocol.__dict__, "options": options})
    why = reasons(protocol, conditions_of(other), items=0)
    if (data := _same_data(first, other)) is not None:
        why.append(data.removeprefix("not comparable: "))
    return [w.replace("the paper's", "the first run's").replace("the paper", "the first run")
            for w in why]


def _member_run(run: Run) -> Run:
    """A judge panel's first member's run (its data, options, tested model); else ``run``."""
    from creval.reader import read_run

    panel = panel_of(run.manifest)
    first = next((m for m in (panel or {}).get("members", []) if m.get("included")), None)
    return run if first is None else read_run(run.path / str(first["dir"]))


@dataclass
class RunGroup:
    """Runs of one benchmark measured alike; ``differs`` names how the group's first run
    measured differently from the benchmark's first group (empty for that group)."""

    benchmark: str
    runs: list[Run]
    differs: list[str] = field(default_factory=list)

    def items(self) -> dict[str, int]:
        """Run path -> the items behind its headline (finished units; DAT: valid trials)."""
        out = {}
        for run in self.runs:
            scores = run.scores
            if scores is None:
                continue
            valid = scores.headline.get("valid_trials")
            out[str(run.path)] = int(valid) if isinstance(valid, int | float) else scores.units.finished
        return out

    def item_note(self) -> str | None:
        """Said when the group's runs stand on different numbers of items."""
        items = self.items()
        if len(set(items.values())) <= 1:
            return None
        return "different item sets: " + ", ".join(f"{p} {n} items" for p, n in items.items())


def group_runs(runs: Sequence[Run], *, strict: bool = False) -> list[RunGroup]:
    """The runs grouped per benchmark by how they measured (a run joins the first group
    whose first run it measured alike with); ``strict`` raises instead of a second group."""
    groups: list[RunGroup] = []
    for run in runs:
        if run.scores is None:
            continue
        mine = [g for g in groups if g.benchmark == run.benchmark]
        home = next((g for g in mine if not differences(g.runs[0], run)), None)
        if home is not None:
            home.runs.append(run)
            continue
        why = differences(mine[0].runs[0], run) if mine else []
        if strict and mine:
            raise CrevalError(f"{run.path} ({run.benchmark}) was measured differently from "
                              f"{mine[0].runs[0].path}: {'; '.join(why)}. Compare runs measured "
                              "the same way, or drop --strict to see them grouped apart.")
        groups.append(RunGroup(run.benchmark, [run], why))
    return groups


def group_title(group: RunGroup, index: int) -> str:
    """The heading of a group: the benchmark, and for a second group how it differs."""
    if index == 0 or not group.differs:
        return group.benchmark
    return f"{group.benchmark} (measured differently: {'; '.join(group.differs)})"


def profile_groups(dirs: Sequence[Path], *,
                   strict: bool = False) -> dict[str, list[tuple[list[int], RunGroup]]]:
    """Per benchmark, the profiles (by index in ``dirs``) grouped by how their runs of it
    measured (with each group's :class:`RunGroup`); ``strict`` raises on a second group."""
    import json

    from creval.reader import PROFILE, read_run

    by_bench: dict[str, list[tuple[int, Run]]] = {}
    for i, d in enumerate(dirs):
        doc = json.loads((Path(d) / PROFILE).read_text(encoding="utf-8"))
        for fam in doc.get("families", []):
            for entry in fam.get("runs", []):
                if not entry.get("missing"):
                    by_bench.setdefault(entry["benchmark"], []).append(
                        (i, read_run(Path(d) / entry["dir"])))
    out: dict[str, list[tuple[list[int], RunGroup]]] = {}
    for bench, entries in by_bench.items():
        index = {id(run): i for i, run in entries}
        out[bench] = [([index[id(r)] for r in g.runs], g)
                      for g in group_runs([run for _, run in entries], strict=strict)]
    return out
