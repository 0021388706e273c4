"""``--preset paper``: per benchmark, the judge, models and resources its paper used, and
every compared option set to the value of the paper's protocol (the ``protocol`` its preset
names, read from the published references), as each benchmark declares them
(``Benchmark.presets``), so that a run made with it is comparable with the
paper's values (:mod:`creval.evaluation.compare.comparability`) or says what stands in the way.

The judge is pinned to the snapshot behind the published values (``gpt-4o-2024-08-06``,
``gpt-4-1106-preview``), not an alias that moves. Options the user gives win over the preset; so do ``--judge`` (over the preset's judge and
role models) and a role's own ``--ROLE SPEC`` (LoTbench's ``--e1``, ``--e2``). Before anything runs, the
preset checks that what it needs can be had (an API key for the judge, the hub models cached
or the hub reachable, local files for GloVe 840B and Olson's word list) and otherwise stops
with a message listing each missing piece and how to provide it locally.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from creval.errors import CrevalError
from creval.records.declarations import Need, PresetEntry

__all__ = ["Need", "PresetEntry", "check_needs", "preset_entry", "protocol_options"]

PRESETS = ("paper",)


def _declared(preset: str, benchmark: str, lang: str) -> PresetEntry | None:
    from creval.benchmarks import registry

    cls = registry().get(benchmark)
    return None if cls is None else cls().preset(preset, lang)


def _protocol(pid: str | None) -> dict[str, Any]:
    if pid is None:
        return {}
    from creval.report.references import load_references

    for paper in load_references():
        if pid in paper.protocols:
            options = paper.protocols[pid].options
            return {k: v[0] if isinstance(v, tuple) else v for k, v in options.items()}
    raise CrevalError(f"The paper preset names protocol {pid!r}, which no references file has.")


def protocol_options(benchmark: str, lang: str = "en") -> dict[str, Any]:
    """The option values of the protocol that the benchmark's paper preset names (the first
    accepted value where the protocol accepts several); none when it names none.

    >>> opts = protocol_options("jcq")
    >>> opts["answers"], opts["structured_judge"], opts["parser"]
    (5, False, 'upstream')
    """
    entry = _declared("paper", benchmark, lang)
    return _protocol(None if entry is None else entry.protocol)


def preset_entry(preset: str, benchmark: str, lang: str = "en") -> PresetEntry:
    """What ``preset`` sets for ``benchmark`` (in ``lang`` where the paper differs by it)."""
    if preset not in PRESETS:
        raise CrevalError(f"Unknown preset {preset!r}; the one preset is 'paper'.")
    entry = _declared(preset, benchmark, lang) or PresetEntry()
    return replace(entry, options={**_protocol(entry.protocol), **entry.options})


def check_needs(entries: dict[str, PresetEntry]) -> None:
    """Stop with every missing piece and how to provide it, or return when all are there."""
    missing: dict[str, list[str]] = {}
    seen: set[str] = set()
    for benchmark, entry in entries.items():
        for need in entry.needs:
            if need.what not in seen and not need.available():
                missing.setdefault(need.what, []).append(benchmark)
                seen.add(need.what)
            elif need.what in missing:
                missing[need.what].append(benchmark)
    if missing:
        hows = {n.what: n.how for e in entries.values() for n in e.needs}
        lines = [f"- {what} (for {', '.join(benches)}): {hows[what]}" for what, benches in missing.items()]
        raise CrevalError("--preset paper needs what is not here:\n" + "\n".join(lines))
