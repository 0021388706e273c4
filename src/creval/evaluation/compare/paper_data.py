"""Which data a run measured, read from what the run recorded when it ran, never from a file
at a path when the check runs.

Each unit records the digest of its item as loaded (``item_digest``: the parsed fields in a
canonical form, :mod:`creval._util.inputs`), and the manifest records the SHA-256 of every
file the run read. A paper's data is known by its items' digests where creval ships them
(:class:`~creval.records.references.PaperData` ``items``, declared by each benchmark: JCQ's 700
questions, NoveltyBench's prompts, NeoCoder's 1,063 (problem, state) pairs, MacGyver's 1,306
solvable problems), else by the SHA-256 of its files:

- the items: a run whose items are all the paper's measured the paper's data, in any order
  and any byte form of the file (reordered lines, other JSON separators, CRLF), whether it
  was given as a path, ``upstream`` or the URL; a run of some of them measured "N of M items
  of the paper's data"; an item whose content differs from the paper's item of the same key
  is named;
- the files (a paper whose items creval does not ship): the digest the run recorded of the
  file named by the benchmark's data option is one of the paper's.

>>> data_identity("jcq", None, {}, {}).kind, data_identity("dat", None, {}, {}).kind
('starter', 'none')
>>> data_identity("hypogen", "/x", {"files": {"a.json": "0" * 64}}, {}).kind
'other'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from typing import Any, Literal

from creval._util.inputs import ITEM_DIGEST
from creval.records.references import PaperData

Kind = Literal["starter", "paper", "other", "unrecorded", "none"]


def paper_data_of(benchmark: str) -> PaperData | None:
    """The option naming ``benchmark``'s data and the paper's data by digest where it is
    public, as the benchmark declares it (:meth:`~creval.benchmarks.base.Benchmark.paper_data`);
    None: no item set (DAT: the words are the model's)."""
    from creval.report.references import registered_benchmark

    bench = registered_benchmark(benchmark)
    return None if bench is None else bench.paper_data()


@dataclass(frozen=True)
class DataIdentity:
    """What a run's data was, recognised by the digests it recorded."""

    kind: Kind
    #: What to show: the paper's data (how many of its items), or what differs.
    shown: str
    #: What the content is, to tell two runs' data apart: ``paper`` for the paper's items
    #: (all or some), else the file's digest (or a digest of the run's item digests).
    key: str = ""
    #: The paper's items the run measured, of how many (None: known by files only; only
    #: these count as items behind the value).
    paper_items: int | None = None
    paper_total: int | None = None


@cache
def paper_items(benchmark: str) -> dict[str, str]:
    """The paper's items of ``benchmark`` as shipped: unit key -> item digest ({} if none)."""
    data = paper_data_of(benchmark)
    if data is None or data.items is None:
        return {}
    text = (resources.files("creval") / "data" / "paper_items" / data.items).read_text("utf-8")
    return dict(json.loads(text)["items"])


def paper_items_from(benchmark: str, value: str) -> dict[str, str]:
    """Unit key -> item digest of ``benchmark``'s units over the data ``value`` (the paper's
    file), as a run records them: what :func:`paper_items` ships, and its test recomputes."""
    from creval.benchmarks.base import get_benchmark

    bench = get_benchmark(benchmark)
    data = bench.paper_data()
    if data is None:
        raise ValueError(f"{benchmark} declares no paper data")
    options = bench.parse_options({data.option: value})
    return {u.key: str(u.meta.get(ITEM_DIGEST)) for u in bench.planned_units(options)
            if "~r" not in u.key}


def run_items(records: Any) -> dict[str, str]:
    """Unit key (without a repeat's suffix) -> item digest of the finished records."""
    out: dict[str, str] = {}
    for record in records:
        found = record.unit.get(ITEM_DIGEST) if record.status == "ok" else None
        if isinstance(found, str):
            out[record.key.split("~r")[0]] = found
    return out


def data_identity(benchmark: str, value: Any, recorded: Mapping[str, Any] | None,
                  items: Mapping[str, str]) -> DataIdentity:
    """The identity of a run's data: ``value`` is its data option (None: the starter set),
    ``recorded`` what the run recorded of the file it read (:func:`creval._util.inputs.file_record`),
    ``items`` its finished units' item digests (:func:`run_items`)."""
    data = paper_data_of(benchmark)
    if data is None:
        return DataIdentity("none", "no item set", "none")
    if value in (None, ""):
        return DataIdentity("starter", "the starter set", "starter")
    paper = paper_items(benchmark)
    if not paper:
        return _file_identity(data, str(value), recorded)
    found = _item_identity(paper, items)
    if found.kind == "other" and recorded and "sha256" in recorded:  # two runs of one file
        return replace(found, key=str(recorded["sha256"]))       # share their data's key
    return found


def _item_identity(paper: Mapping[str, str], items: Mapping[str, str]) -> DataIdentity:
    from creval.models.base import digest

    if not items:
        return DataIdentity("unrecorded", "no item digest recorded (a run of an older creval, "
                            "or no finished unit): run it again to compare its data", "unrecorded")
    ours, known = sorted(set(items.values())), set(paper.values())
    outside = [k for k, d in items.items() if d not in known]
    if outside:
        changed = [k for k in outside if k in paper]
        named = [f"{k} differs from the paper's" for k in changed[:5]]
        if len(outside) > len(changed):
            named.append(f"{len(outside) - len(changed)} not in the paper's data")
        return DataIdentity("other", f"{len(outside)} of {len(items)} items are not the paper's "
                            f"({'; '.join(named)})", digest(ours),
                            paper_items=len(set(ours) & known), paper_total=len(known))
    covered = len(ours)
    shown = (f"the paper's data (all {len(known)} items)" if covered == len(known)
             else f"{covered} of {len(known)} items of the paper's data")
    return DataIdentity("paper", shown, "paper", paper_items=covered, paper_total=len(known))


def _file_identity(data: PaperData, value: str, recorded: Mapping[str, Any] | None) -> DataIdentity:
    if not recorded:
        return DataIdentity("unrecorded", f"{value} (the run recorded no digest of it: a name "
                            "its loader resolved, or a run of an older creval)", f"unrecorded:{value}")
    if "sha256" in recorded:
        sha = str(recorded["sha256"])
        kind: Kind = "paper" if sha in data.files else "other"
        return DataIdentity(kind, f"{value} (sha256 {sha[:16]})", "paper" if kind == "paper" else sha)
    files = dict(recorded.get("files") or {})
    return DataIdentity("other", f"{value} (a folder)", json.dumps(files, sort_keys=True))
