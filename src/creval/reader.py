"""Reading run directories without touching them: :func:`read_run` and :func:`read_runs`.

The reader never creates, truncates or appends to anything, so it is safe beside a run
that is still writing (it sees the records finished so far; a partial last line is left
out). Records are taken last line per unit key, like every creval reader.

>>> import tempfile, json, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "manifest.json").write_text(json.dumps({"benchmark": "dat", "model_spec": "local"}))
>>> _ = (d / "records.jsonl").write_text(
...     '{"key": "trial-0", "status": "error", "error": "boom"}\\n'
...     '{"key": "trial-0", "status": "ok", "unit": {"trial": 0}, "output": {"text": "cat"}}\\n')
>>> run = read_run(d)
>>> [(r.key, r.status) for r in run.records], run.scores is None
([('trial-0', 'ok')], True)
"""

from __future__ import annotations

import glob as globbing
import json
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.records import (
    RECORDS,
    Analysis,
    Manifest,
    Record,
    Scores,
    latest_records,
    read_analyses,
    read_records,
)

if TYPE_CHECKING:
    import pandas as pd

MANIFEST = "manifest.json"
SCORES = "scores.json"


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise CrevalError("Data frames need pandas: pip install pandas (or creval[data]).") from None
    return pandas


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


class Run:
    """One run directory, read-only. Build it with :func:`read_run`."""

    def __init__(self, path: Path, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, benchmark={self.benchmark!r}, model={self.model!r})"

    @property
    def benchmark(self) -> str:
        return self.manifest.benchmark

    @property
    def model(self) -> str:
        return self.manifest.model_spec

    @cached_property
    def scores(self) -> Scores | None:
        """``scores.json``, or None when the run was never scored."""
        path = self.path / SCORES
        if not path.is_file():
            return None
        try:
            return Scores.model_validate_json(path.read_bytes())
        except ValueError as exc:
            raise CrevalError(f"{path} is not a creval scores file ({exc}).") from None

    @property
    def analyses(self) -> list[Analysis]:
        """The analyses ``creval analyze ...`` saved into this run (``analyses/*.json``)."""
        return read_analyses(self.path)

    @property
    def all_records(self) -> list[Record]:
        """Every line of ``records.jsonl``, superseded ones included, in order."""
        return read_records(self.path / RECORDS)

    @property
    def records(self) -> list[Record]:
        """The last record per unit key, in the order the units first finished."""
        return list(latest_records(self.all_records).values())

    def samples_df(self) -> pd.DataFrame:
        """One row per unit: its key, status, error, the unit's fields, the output's plain
        fields (``text``, ``finish_reason``, ...) and the item's row of the scores table
        (matched on ``key`` or ``id``; its columns prefixed ``score_`` where they clash)."""
        pd = _pandas()
        per_item = self._item_scores()
        rows = []
        for record in self.records:
            row: dict[str, Any] = {"run": str(self.path), "benchmark": self.benchmark,
                                   "model": self.model, "key": record.key,
                                   "status": record.status, "error": record.error,
                                   "seconds": record.seconds}
            for source in (record.unit, record.output):
                row.update({k: v for k, v in source.items() if _scalar(v) and k not in row})
            item = per_item.get(record.key) or per_item.get(str(record.unit.get("id", "")))
            for name, value in (item or {}).items():
                row[name if name not in row else f"score_{name}"] = value
            rows.append(row)
        return pd.DataFrame(rows)

    def _item_scores(self) -> dict[str, dict[str, Any]]:
        table = self.scores.table if self.scores is not None else []
        out: dict[str, dict[str, Any]] = {}
        for row in table:
            ident = row.get("key", row.get("id"))
            if ident is not None:
                out[str(ident)] = {k: v for k, v in row.items() if k not in ("key",) and _scalar(v)}
        return out

    def paired_df(self) -> pd.DataFrame:
        """The run's item-by-item comparisons with published models (``paired.json``, written
        with the run's reports): one row per published model and measure (``difference`` is
        published minus this run); empty when none were made."""
        path = self.path / "paired.json"
        doc = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        return _pandas().DataFrame(doc.get("rows", []), columns=list(PAIRED_COLUMNS))

    def scores_df(self) -> pd.DataFrame:
        """One row: the run, benchmark, model, its headline metrics and unit counts."""
        pd = _pandas()
        return pd.DataFrame([self._scores_row()])

    def noise_df(self) -> pd.DataFrame:
        """A run with ``--repeats``: one row per measure with the shares of its variance
        (``items``, ``samples``, ``judge``), the ``reliability`` (no interval: ``interval_note`` says why), and the
        noise ``floor`` (``scores.noise``); no rows without repeats."""
        return _pandas().DataFrame(self._noise_rows())

    def _noise_rows(self) -> list[dict[str, Any]]:
        rows = []
        for measure, entry in (self.scores.noise if self.scores is not None else {}).items():
            interval = (entry.get("interval") or {}).get("reliability") or [None, None]
            rows.append({"run": str(self.path), "benchmark": self.benchmark, "model": self.model,
                         "measure": measure, **{k: v for k, v in entry.items() if _scalar(v)},
                         "reliability_low": interval[0], "reliability_high": interval[1]})
        return rows

    def _scores_row(self) -> dict[str, Any]:
        row: dict[str, Any] = {"run": str(self.path), "benchmark": self.benchmark,
                               "model": self.model}
        if self.scores is not None:
            row.update({k: v for k, v in self.scores.headline.items() if _scalar(v)})
            row.update({f"units_{k}": v for k, v in self.scores.units.model_dump().items()})
        return row


class Runs(list[Run]):
    """Several runs, to compare: their frames stacked, one ``run`` column telling them apart."""

    def samples_df(self) -> pd.DataFrame:
        pd = _pandas()
        frames = [run.samples_df() for run in self]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def scores_df(self) -> pd.DataFrame:
        return _pandas().DataFrame([run._scores_row() for run in self])

    def noise_df(self) -> pd.DataFrame:
        """Every run's :meth:`Run.noise_df`, stacked."""
        return _pandas().DataFrame([row for run in self for row in run._noise_rows()])


def read_run(path: str | Path) -> Run:
    """The run directory ``path`` (it must hold ``manifest.json``), read-only."""
    root = Path(path)
    file = root / MANIFEST
    if not file.is_file():
        raise CrevalError(f"{root} is not a creval run directory (no {MANIFEST}).")
    try:
        manifest = Manifest.model_validate(json.loads(file.read_text(encoding="utf-8")))
    except (json.JSONDecodeError, ValueError) as exc:
        raise CrevalError(f"{file} is not a creval manifest ({_what_is_wrong(exc)}).") from None
    return Run(root, manifest)


def _what_is_wrong(exc: Exception) -> str:
    """A validation error in one line: the fields missing or wrong, not pydantic's page."""
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError):
        return str(exc)
    missing = [".".join(map(str, e["loc"])) for e in exc.errors() if e["type"] == "missing"]
    wrong = [f"{'.'.join(map(str, e['loc'])) or 'the file'}: {e['msg']}" for e in exc.errors()
             if e["type"] != "missing"]
    return "; ".join([*([f"no {', '.join(missing)}"] if missing else []), *wrong[:3]])


def read_runs(paths: str | Path | Iterable[str | Path]) -> Runs:
    """Runs from run directories, folders holding runs below them, or glob patterns
    (``"runs/*/dat"``), alone or in a list; sorted by path."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    found: list[Path] = []
    for item in items:
        text = str(item)
        if not globbing.has_magic(text) and not Path(text).exists():
            raise CrevalError(f"{text} does not exist: pass run directories, folders holding "
                              "runs, or glob patterns.")
        for path in [Path(p) for p in globbing.glob(text)] if globbing.has_magic(text) else [Path(text)]:
            found += [path] if (path / MANIFEST).is_file() else [m.parent for m in path.rglob(MANIFEST)]
    runs = [read_run(p) for p in sorted(set(found))]
    if not runs:
        shown = ", ".join(str(i) for i in items) or "(no path)"
        raise CrevalError(f"No creval run directory (with {MANIFEST}) found in {shown}: pass "
                          "run directories, folders holding runs, or glob patterns.")
    return Runs(runs)


PROFILE = "profile.json"
#: Columns of a paired comparison (:mod:`creval.evaluation.compare.paired`).
PAIRED_COLUMNS = ("benchmark", "subject", "measure", "n", "difference", "low", "high", "p",
                  "p_holm", "mdd", "verdict", "published", "this")
#: Columns of :meth:`Profile.df`, one row per measurement.
PROFILE_COLUMNS = ("model", "size", "family", "benchmark", "key", "kind", "label", "value",
                   "low", "high", "interval", "n", "weak", "placed", "not_comparable")


class Profile:
    """One profile directory (``creval profile``), read-only. Build it with :func:`read_profile`."""

    def __init__(self, path: Path, document: dict[str, Any]) -> None:
        self.path = path
        self.document = document

    def __repr__(self) -> str:
        return f"Profile({str(self.path)!r}, model={self.model!r}, size={self.document.get('size')!r})"

    @property
    def model(self) -> str:
        return str(self.document.get("model", "?"))

    def measurements(self) -> list[dict[str, Any]]:
        """Every measurement of every family, as written in ``profile.json``."""
        return [m for f in self.document.get("families", []) for m in f.get("measurements", [])]

    def runs(self) -> Runs:
        """The run directories of the profile, one per benchmark."""
        return read_runs(self.path)

    def rows(self) -> list[dict[str, Any]]:
        return [{"model": self.model, "size": self.document.get("size"),
                 "family": m["family"], "benchmark": m["benchmark"], "key": m["key"],
                 "kind": m["kind"], "label": m["label"], "value": m["value"], "low": m["low"],
                 "high": m["high"], "interval": m.get("interval"), "n": m["n"],
                 "weak": "; ".join(m["weak"]),
                 "placed": sum(bool(r["comparable"]) for r in m["references"]),
                 "not_comparable": sum(not r["comparable"] for r in m["references"])}
                for m in self.measurements()]

    def df(self) -> pd.DataFrame:
        """One row per measurement: model, family, benchmark, key, kind, value and its
        interval, items, weaknesses, and how many published values it was placed among."""
        return _pandas().DataFrame(self.rows(), columns=list(PROFILE_COLUMNS))

    def paired_df(self) -> pd.DataFrame:
        """The profile's item-by-item comparisons with published models, one row per
        published model and measure, Holm-corrected across the profile."""
        rows = [r for m in self.measurements() for r in m.get("paired", [])]
        return _pandas().DataFrame(rows, columns=list(PAIRED_COLUMNS))


class Profiles(list[Profile]):
    """Several profiles, to compare models: :meth:`df` stacks them and ranks each measure."""

    def df(self) -> pd.DataFrame:
        """One row per (model, measurement), with ``rank``, ``rank_low``, ``rank_high``
        (the ranks the intervals allow) and ``tied`` (an interval overlaps another model's)."""
        from creval.metrics.ranking import interval_ranks

        rows = [row for p in self for row in p.rows()]
        by_measure: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for row in rows:
            by_measure.setdefault((row["benchmark"], row["key"]), []).append(row)
        for group in by_measure.values():
            scored = [r for r in group if r["value"] is not None]
            ranks = interval_ranks([(r["value"], r["low"], r["high"]) for r in scored])
            for r, (rank, low, high, tied) in zip(scored, ranks, strict=True):
                r.update(rank=rank, rank_low=low, rank_high=high, tied=tied)
        columns = [*PROFILE_COLUMNS, "rank", "rank_low", "rank_high", "tied"]
        return _pandas().DataFrame(rows, columns=columns)


def read_profile(path: str | Path) -> Profile:
    """The profile directory ``path`` (it must hold ``profile.json``), read-only."""
    root = Path(path)
    file = root / PROFILE
    if not file.is_file():
        raise CrevalError(f"{root} is not a creval profile directory (no {PROFILE}); "
                          "write one with `creval profile --model SPEC --out DIR`.")
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CrevalError(f"{file} is not a creval profile ({exc}).") from None
    if not isinstance(document, dict) or "families" not in document:
        raise CrevalError(f"{file} is not a creval profile (no families).")
    return Profile(root, document)


def read_profiles(paths: Iterable[str | Path]) -> Profiles:
    """Profiles from profile directories, in the order given."""
    return Profiles(read_profile(p) for p in paths)
