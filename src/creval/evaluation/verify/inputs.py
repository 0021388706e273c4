"""Where ``creval verify`` finds the files a run's scorer read when the run's options name
none: the benchmark found them itself (DAT's people from ``$CREVAL_DAT_HUMANS`` or
``./data/dat-humans``), so the checker's environment may not find them the same way; and
DAT's people however given (a relative ``--people``, a folder moved since).

The run recorded each such file or folder (its path and the SHA-256 of each file,
:func:`creval._util.inputs.file_record`); verify re-scores with the first place whose digests
match: the recorded path, else the benchmark's default locations. When none matches, the
scores cannot be re-derived, and what is missing or changed is said file by file.

>>> found, problems = recorded_locations("mytask", {"data": None}, {"files": {"data": {
...     "path": "/nowhere", "files": {"a.tsv": "0" * 64}}}})
>>> found, problems[0][-56:]
({}, 'no place holds what the run read (/nowhere is not there)')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from creval._util.inputs import changed_files, file_record


def default_locations(benchmark: str) -> Mapping[str, Callable[[], list[Path]]]:
    """Option -> the default locations the benchmark's loader looks in when the option is
    unset, as the benchmark declares (``Benchmark.default_locations``)."""
    from creval.benchmarks import registry

    cls = registry().get(benchmark)
    return {} if cls is None else cls.default_locations


def recorded_locations(benchmark: str, options: Mapping[str, Any], inputs: Mapping[str, Any]
                       ) -> tuple[dict[str, str], list[str]]:
    """(option -> the place to re-score with, problems): for each file the run recorded under
    an option its ``options`` leave unset (or one with default locations, such as DAT's
    ``people``, however given), the recorded path if its digests match, else the first default
    location whose digests match; a problem sentence when none does."""
    found: dict[str, str] = {}
    problems: list[str] = []
    locations = default_locations(benchmark)
    for name, then in (inputs.get("files") or {}).items():
        named = name in options and options[name] not in (None, "")
        if name not in options or not isinstance(then, Mapping) or (
                named and name not in locations):
            continue
        recorded = Path(str(then.get("path", "")))
        defaults = locations.get(name, list)()
        tried: list[str] = []
        for where in dict.fromkeys([recorded, *defaults]):
            if not (where.is_file() or where.is_dir()):
                tried.append(f"{where} is not there")
                continue
            changes = changed_files(then, file_record(where))
            if not changes:
                found[name] = str(where)
                break
            tried.append(f"{where}: {', '.join(changes[:5])}")
        else:
            problems.append(
                f"cannot re-derive the scores that read --{name.replace('_', '-')}: no place "
                f"holds what the run read ({'; '.join(tried)})")
    return found, problems
