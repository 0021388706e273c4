"""``creval verify``: whether a run's files agree with each other, read from what the run
recorded, never taken on trust.

For one run directory (or each run of a profile) it checks, and names every difference:

- **scores**: every score is computed again from ``records.jsonl`` by the benchmark's own
  scorer (as ``creval run ... --rescore`` does), in the order of the run's units (a file the
  scorer read that the options do not name, DAT's people, found again by the digests the run
  recorded: :mod:`creval.evaluation.verify.inputs`), and held
  against ``scores.json``: each headline value, each per-item value (floats within a relative
  1e-6), the per-item table, the unit counts, and the digest of the records, units and
  options that ``scores.json`` says it was computed from;
- **replay**: every unit run again against the answers its run recorded, each request and
  output compared with the records (:mod:`creval.evaluation.verify.replay`); the scores are
  computed from the replayed outputs, and what cannot be replayed is ``unverified``;
- **the records' digest chain** (:func:`creval.records.changed_outside`);
- **manifest against records**: the model of each role against the requests recorded, as
  :mod:`creval.evaluation.compare.evidence` reads them;
- **digests**: each record's item digest against the one the manifest planned for its unit,
  the prompts' digests against the generation fingerprint, and each file the run read
  against the same path now (a file changed since the run is said; the run's own digest
  stands for what it read);
- **code**: the creval version and git revision that wrote the run, this one, and whether
  this one scores it the same.

A run whose own files disagree (not :attr:`Verification.sound`) is refused by ``creval
references check`` and ``creval compare --published`` (:func:`refusal`); a file changed at its
path since the run is said by ``creval verify`` but refuses nothing: the digest the run
recorded stands for what it read.
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from creval._util.inputs import ITEM_DIGEST, changed_files, file_record
from creval.errors import CrevalError
from creval.evaluation.verify.inputs import recorded_locations
from creval.records import (
    RECORDS,
    SCORES_FORMAT,
    Record,
    latest_records,
    read_records,
    superseded_count,
)

#: Relative and absolute tolerance of a re-scored float.
REL_TOL, ABS_TOL = 1e-6, 1e-9
#: Headline fields set after scoring (not by the scorer), so not re-derived.
AFTER_SCORING = frozenset({"judged_by"})


#: What a note says of an input file no longer at its recorded path.
MOVED = "is no longer there"


@dataclass
class Verification:
    """What :func:`verify_run` found in one run directory."""

    run: str
    benchmark: str = ""
    #: Every way the run's own files disagree, one sentence each.
    differences: list[str] = field(default_factory=list)
    #: Files the run read that are different at their paths now (the run's digests stand for
    #: what it read, so the run is sound; said all the same).
    changed_since: list[str] = field(default_factory=list)
    #: What could not be checked, and other facts (a file moved since the run).
    notes: list[str] = field(default_factory=list)
    #: ``{"run": {"creval", "git_revision"}, "this": {...}, "scores_the_same": bool | None}``.
    code: dict[str, Any] = field(default_factory=dict)
    #: What could not be replayed (so is not verified), one sentence each: never passed.
    unverified: list[str] = field(default_factory=list)
    #: Units replayed against their recorded answers.
    replayed: int = 0

    @property
    def ok(self) -> bool:
        """Nothing differs and everything was replayed: ``creval verify`` exits 0."""
        return not self.differences and not self.changed_since and not self.unverified

    @property
    def sound(self) -> bool:
        """Nothing found differs: the run may be compared (what could not be replayed is said
        beside it as ``not verified``, see :func:`unverified_line`)."""
        return not self.differences

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok, "sound": self.sound}


def verify_path(path: str | Path, *, progress: bool = False) -> list[Verification]:
    """:func:`verify_run` for the run at ``path``, or for each run below it (a profile)."""
    from creval.evaluation.compare.comparability import run_dirs
    from creval.evaluation.verify.rank import is_rank_dir

    if is_rank_dir(Path(path)) is not None:  # creval rank's output: its judgements are a run
        return [verify_run(path, progress=progress)]
    return [verify_run(folder, progress=progress) for folder in run_dirs(Path(path))]


def verify_run(path: str | Path, *, progress: bool = False) -> Verification:
    """Check one run directory; see the module. ``progress``: a line on stderr every few
    seconds of a long replay."""
    root = Path(path)
    out = Verification(run=str(root))
    from creval.evaluation.verify.panel import is_panel_dir, verify_panel
    from creval.evaluation.verify.rank import is_rank_dir, verify_rank

    if (rank := is_rank_dir(root)) is not None:  # creval rank: each verdict replayed, ratings again
        verify_rank(root, rank, out)
        return out
    if (panel := is_panel_dir(root)) is not None:  # --judge a,b,c: each judge's run, then the panel
        verify_panel(root, panel, out, verify_run=verify_run, same=_same)
        return out
    manifest, records, scores = _read(root, out)
    if manifest is None:
        return out
    from creval.records import changed_outside

    if (changed := changed_outside(root)) is not None:  # the digest chain of the lines
        out.differences.append(changed)
    out.benchmark = str(manifest.get("benchmark", ""))
    out.code = _code(manifest)
    if records is None:
        return out
    latest = latest_records(records)
    inputs = manifest.get("inputs") or {}
    planned: dict[str, Any] | None = inputs.get("units") if isinstance(inputs.get("units"), dict) else None
    if planned is None:
        out.notes.append("the manifest names no planned units (a run of an older creval): units "
                         "counted and scored in the order of records.jsonl")
    keys = list(planned) if planned is not None else list(latest)
    _check_items(planned, latest, out)
    _check_requests(root, manifest, [latest[k] for k in keys if k in latest], out)
    _check_files(manifest, inputs, out)
    before = len(out.differences)
    rederived = _replay(manifest, latest, keys, out, progress=progress)
    if out.changed_since or any(MOVED in n for n in out.notes):
        # replay read today's files, not what the run read (its recorded digests stand for
        # that): what replay finds then is not the run's doing, so it is unverified, not passed
        found, out.differences[before:] = out.differences[before:], []
        if found:
            out.unverified.append(f"replayed against input files changed or moved since the run, "
                                  f"so {len(found)} difference(s) are not the run's: {found[0]}")
    if scores is not None:
        same = _check_scores(root, manifest, records, keys, scores, out, rederived)
        out.code["scores_the_same"] = same
    return out


def _replay(manifest: dict[str, Any], latest: dict[str, Record], keys: list[str],
            out: Verification, *, progress: bool) -> dict[str, Record] | None:
    """Every unit of ``keys`` run again against its recorded answers
    (:mod:`creval.evaluation.verify.replay`); the re-derived records, or None when the
    units cannot be built (said as unverified)."""
    from creval.benchmarks.base import get_benchmark
    from creval.evaluation.verify.replay import replay_units

    try:
        bench = get_benchmark(str(manifest.get("benchmark")))
        fields = bench.Options.model_fields
        options = bench.parse_options({k: v for k, v in (manifest.get("options") or {}).items()
                                       if k in fields})
        units = bench.planned_units(options)
    except Exception as exc:  # noqa: BLE001 - said: nothing was replayed
        out.unverified.append(f"the units cannot be built again from manifest.json, so no answer "
                              f"was replayed ({type(exc).__name__}: {str(exc)[:200]})")
        return None
    built = {u.key for u in units}
    if lost := [k for k in keys if k in latest and k not in built]:
        out.unverified.append(f"{len(lost)} recorded unit(s) are not among the units this creval "
                              f"builds from manifest.json, so not replayed: {', '.join(lost[:5])}")
    found = replay_units([u for u in units if u.key in set(keys)], latest, manifest,
                         progress=progress)
    out.replayed = found.replayed
    out.differences += found.differences
    out.unverified += found.unverified
    return found.records


def _read(root: Path, out: Verification) -> tuple[dict[str, Any] | None, list[Record] | None,
                                                  dict[str, Any] | None]:
    def load(name: str) -> dict[str, Any] | None:
        file = root / name
        if not file.is_file():
            out.differences.append(f"{name} is missing")
            return None
        try:
            value = json.loads(file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            out.differences.append(f"{name} is not valid JSON ({exc})")
            return None
        if not isinstance(value, dict):
            out.differences.append(f"{name} is not a JSON object")
            return None
        return value

    manifest = load("manifest.json")
    if manifest is None:
        return None, None, None
    if not manifest.get("benchmark"):
        out.differences.append("manifest.json names no benchmark: it is not a creval run's manifest")
        return None, None, None
    scores = load("scores.json")
    file = root / RECORDS
    if not file.is_file():
        out.differences.append(f"{RECORDS} is missing: no score can be re-derived")
        return manifest, None, scores
    data = file.read_bytes()
    if data and not data.endswith(b"\n"):
        out.differences.append(f"{RECORDS} ends in a partial line (cut while written, or "
                               "truncated)")
    try:
        records = read_records(file)
    except CrevalError as exc:
        out.differences.append(str(exc))
        return manifest, None, scores
    return manifest, records, scores


def _code(manifest: dict[str, Any]) -> dict[str, Any]:
    written = {"creval": (manifest.get("packages") or {}).get("creval"),
               "git_revision": manifest.get("git_revision")}
    return {"run": written, "this": dict(_this_code()), "scores_the_same": None}


@functools.cache
def _this_code() -> tuple[tuple[str, str | None], ...]:
    """This creval's version and git revision, asked once per process (reading the installed
    packages' metadata and asking git took more than the replay of a small run)."""
    from creval.runner.manifest import git_revision, package_versions

    return (("creval", package_versions().get("creval")), ("git_revision", git_revision()))


def _check_items(planned: dict[str, Any] | None, latest: dict[str, Record],
                 out: Verification) -> None:
    """Each record's item digest against the one the manifest planned for its unit."""
    if planned is None:
        return
    differing = [k for k, r in latest.items() if k in planned and planned[k] is not None
                 and r.unit.get(ITEM_DIGEST) not in (None, planned[k])]
    if differing:
        out.differences.append(
            f"{len(differing)} record(s) carry another item digest than the manifest planned "
            f"for their unit ({', '.join(differing[:5])})")
    outside = [k for k in latest if k not in planned]
    if outside:
        out.notes.append(f"{len(outside)} record(s) of units outside the last invocation's plan "
                         f"(not scored): {', '.join(outside[:5])}")


def _check_requests(root: Path, manifest: dict[str, Any], records: list[Record],
                    out: Verification) -> None:
    """The manifest's models and tested-model request options against the requests the run
    sent, as :func:`~creval.evaluation.compare.evidence.read_evidence` reads them (a parameter the
    endpoint rejected, and so did not send, is the manifest's ``not_applied`` business)."""
    from creval.evaluation.compare.evidence import read_evidence

    sent = read_evidence(root, records).sent
    stated = {"target": manifest.get("model_spec"),
              "judge": (manifest.get("judge") or {}).get("spec"),
              **{r: d.get("spec") for r, d in (manifest.get("roles") or {}).items()
                 if isinstance(d, dict)}}
    for role, evidence in sent.items():
        spec = stated.get(role)
        if spec is not None and spec not in evidence.specs:
            out.differences.append(f"manifest.json names {spec} as the {role} model; the "
                                   f"{role} requests in {RECORDS} were sent to "
                                   f"{_counted(evidence.specs)}")
    # the options each benchmark sends verbatim, role by role, in one line per option (replay
    # then compares every field of every request: the units built again from the manifest)
    from creval.benchmarks import registry
    from creval.evaluation.compare.conditions import disagreements

    options = manifest.get("options") or {}
    declared = registry().get(str(manifest.get("benchmark")))
    for name, (role, field_name) in (declared.options_sent() if declared else {}).items():
        if options.get(name) is not None and role in sent:
            out.differences += disagreements(name, options[name], sent[role], field_name)


def _counted(seen: Counter[str]) -> str:
    return ", ".join(f"{value} ({n} request{'s' if n != 1 else ''})" for value, n in seen.most_common(3))


def _check_files(manifest: dict[str, Any], inputs: dict[str, Any], out: Verification) -> None:
    """The prompts' digests against the generation fingerprint, and each file read against
    the same path now."""
    generation = manifest.get("generation") or {}
    for name, whole in (inputs.get("prompts") or {}).items():
        if name in generation and not str(whole).startswith(str(generation[name])):
            out.differences.append(f"prompt {name}: manifest.json's generation holds "
                                   f"{generation[name]}, its inputs {str(whole)[:16]}")
    for name, then in (inputs.get("files") or {}).items():
        where = Path(str(then.get("path", "")))
        flag = f"--{name.replace('_', '-')}"
        if not (where.is_file() or where.is_dir()):
            out.notes.append(f"{where} ({flag}) {MOVED}; the digest the run recorded "
                             "of it stands for what it read")
            continue
        if changes := changed_files(then, file_record(where)):
            out.changed_since.append(f"{where} ({flag}) changed since the run read it: "
                                   f"{', '.join(changes[:5])}")


def _check_scores(root: Path, manifest: dict[str, Any], records: list[Record], keys: list[str],
                  written: dict[str, Any], out: Verification,
                  rederived: dict[str, Record] | None = None) -> bool | None:
    """Score the records again and hold the result against ``scores.json``; whether they agree
    (None: could not re-score)."""
    from creval.benchmarks.base import get_benchmark
    from creval.records import Scores

    try:
        scores = Scores.model_validate(written)
    except ValueError as exc:
        out.differences.append(f"scores.json is not a creval scores file ({str(exc)[:200]})")
        return None
    latest = latest_records(records)
    present = [latest[k] for k in keys if k in latest]
    counts = {"total": len(keys), "finished": sum(r.status == "ok" for r in present),
              "errors": sum(r.status == "error" for r in present),
              "missing": len(keys) - len(present), "superseded_lines": superseded_count(records)}
    for name, value in counts.items():
        if getattr(scores.units, name) != value:
            out.differences.append(f"scores.json counts {name}={getattr(scores.units, name)} "
                                   f"unit(s); {RECORDS} gives {value}")
    try:
        bench = get_benchmark(str(manifest.get("benchmark")))
        fields = bench.Options.model_fields  # run settings kept with the options (reasoning_effort)
        options = bench.parse_options({k: v for k, v in (manifest.get("options") or {}).items()
                                       if k in fields})
    except CrevalError as exc:
        out.differences.append(f"cannot re-score: {exc}")
        return None
    _check_inputs_digest(root, options, keys, scores, out)
    located, problems = recorded_locations(bench.name, options.model_dump(), manifest.get("inputs") or {})
    if problems:
        out.differences += problems
        return None
    if rederived is not None:  # scored from the outputs the replay derived, not the recorded ones
        present = [rederived.get(r.key, r) for r in present]
    try:
        again = bench.score(present, options.model_copy(update=located))
    except CrevalError as exc:
        out.differences.append(f"cannot re-score from {RECORDS}: {exc}")
        return None
    except Exception as exc:  # a scorer that breaks on these records: said, not raised
        out.differences.append(f"cannot re-score from {RECORDS}: {type(exc).__name__}: {exc}")
        return None
    # as scores.json holds it: JSON values
    again = Scores.model_validate(json.loads(json.dumps(again.model_dump(mode="json"), default=str)))
    found = _score_differences(scores, again)
    out.differences += found
    return not found


def _check_inputs_digest(root: Path, options: Any, keys: list[str], scores: Any,
                         out: Verification) -> None:
    from creval.models.base import digest

    if scores.inputs_digest is None:
        return
    with (root / RECORDS).open("rb") as fh:
        import hashlib

        records_sha = hashlib.file_digest(fh, "sha256").hexdigest()
    now = digest({"format": SCORES_FORMAT, "records": records_sha, "keys": digest(keys),
                  "options": options.model_dump(mode="json")})
    if now != scores.inputs_digest:
        out.differences.append(f"scores.json was computed from other records, units or options "
                               f"than {RECORDS} and manifest.json hold now")


def _score_differences(scores: Any, again: Any) -> list[str]:
    out = []
    for name in dict.fromkeys([*scores.headline, *again.headline]):
        if name in AFTER_SCORING:
            continue
        a, b = scores.headline.get(name), again.headline.get(name)
        if not _same(a, b):
            out.append(f"headline {name}: scores.json {_short(a)}, re-scored from {RECORDS} "
                       f"{_short(b)}")
    for name in dict.fromkeys([*scores.per_item, *again.per_item]):
        a, b = scores.per_item.get(name), again.per_item.get(name)
        if not _same(a, b):
            where = _first_difference(a or [], b or [])
            out.append(f"per-item {name}: scores.json and the re-scored values differ ({where})")
    if not _same(scores.table, again.table):
        out.append(f"table: scores.json and the re-scored table differ "
                   f"({_first_difference(scores.table, again.table)})")
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal, floats within the tolerance, recursively."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _first_difference(a: list[Any], b: list[Any]) -> str:
    if len(a) != len(b):
        return f"{len(a)} values, re-scored {len(b)}"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if not _same(x, y):
            label = x.get("key", x.get("id", i)) if isinstance(x, dict) else i
            return f"first at {label}: {_short(x)} vs {_short(y)}"
    return "no single difference found"


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def unverified_line(result: Verification) -> str | None:
    """``not verified: RUN: why`` for a run compared although part of it could not be
    replayed (None when all of it was)."""
    if not result.unverified:
        return None
    more = f" (and {len(result.unverified) - 1} more)" if len(result.unverified) > 1 else ""
    return f"not verified: {result.run}: {result.unverified[0]}{more}"


def refusal(result: Verification) -> str:
    """Why a run that fails :func:`verify_run` is not compared, as one message."""
    said = [*result.differences, *(f"unverified: {u}" for u in result.unverified)]
    shown = "; ".join(said[:3])
    more = f" (and {len(said) - 3} more)" if len(said) > 3 else ""
    return (f"{result.run}: not compared: its files do not agree ({shown}{more}). Run `creval "
            f"verify {result.run}` for every difference; run the benchmark again into a new "
            "--out, or restore the run's files.")


__all__ = ["Verification", "refusal", "unverified_line", "verify_path", "verify_run"]
