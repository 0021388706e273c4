"""The run store's record schema and its read-only readers (a bottom layer: no creval imports
beyond errors, so models, runner and report can all read runs).

``records.jsonl`` is append-only: a unit that ended in an error and was retried later has
two lines, the error and then its new outcome. Every reader takes the **last line per
key** (:func:`latest_records`); the earlier lines are *superseded* and kept only as history.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from creval.errors import CrevalError

RECORDS = "records.jsonl"


class Record(BaseModel):
    """One finished unit of work."""

    key: str
    status: Literal["ok", "error"]
    unit: dict[str, Any] = Field(default_factory=dict)
    output: dict[str, Any] = Field(default_factory=dict)
    calls: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None
    started: float = 0.0
    seconds: float = 0.0


def read_records(path: Path) -> list[Record]:
    """Every line of a records file, in order; a partial (unterminated) last line is ignored.

    Read-only: it never creates, truncates or appends.
    """
    if not path.exists():
        return []
    records: list[Record] = []
    lines = path.read_bytes().split(b"\n")
    for number, raw in enumerate(lines[:-1], start=1):  # the piece after the last newline
        if not raw.strip():                              # is empty or partial
            continue
        try:
            records.append(Record.model_validate_json(raw))
        except ValidationError as exc:
            raise CrevalError(
                f"{path}:{number}: not a valid creval record ({exc.errors()[0]['msg']}). "
                "Fix or delete that line, or start a new run with another --out."
            ) from None
    return records


#: The key of a line's digest in ``records.jsonl``: the SHA-256 of the digest of the line
#: before (``""`` for the first) and of the line's own content (:func:`chain_digest`).
CHAIN = "chain"
#: The key of the records' head digest in ``scores.json`` and ``invocations.jsonl``.
HEAD = "records_head"


def chain_digest(previous: str, body: dict[str, Any]) -> str:
    """The digest of a line whose content (without its own digest) is ``body``, following
    the line whose digest is ``previous``: canonical JSON (sorted keys), so the digest
    depends on the values only, never on how a writer spaced them.

    >>> a = chain_digest("", {"key": "a", "status": "ok"})
    >>> a == chain_digest("", {"status": "ok", "key": "a"}), a == chain_digest("x", {"key": "a", "status": "ok"})
    (True, False)
    """
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(previous.encode() + b"\n" + canonical.encode()).hexdigest()


def chained_line(record: Record, previous: str) -> tuple[bytes, str]:
    """The line of ``record`` carrying its digest chained to ``previous``, and that digest."""
    body = json.loads(record.model_dump_json())
    head = chain_digest(previous, body)
    return json.dumps({**body, CHAIN: head}, ensure_ascii=False).encode() + b"\n", head


@dataclass
class Chain:
    """The digest chain of a ``records.jsonl`` (:func:`read_chain`)."""

    #: The digest after each complete line (``""`` after a line of an older creval that
    #: carries none, before any line that does).
    heads: list[str] = field(default_factory=list)
    #: The first line (1-based) whose digest does not follow the line before, and why.
    broken: int | None = None
    why: str = ""

    @property
    def head(self) -> str:
        """The digest of the last line (``""``: no line, or none chained)."""
        return self.heads[-1] if self.heads else ""

    @property
    def chained(self) -> bool:
        return any(self.heads)


def read_chain(path: Path) -> Chain:
    """Follow the digests of ``path`` line by line; the first line that does not follow is
    named. Lines of an older creval (no digest) are accepted only before the first line that
    has one; a partial last line (cut by a kill) is not a line."""
    out = Chain()
    if not path.is_file():
        return out
    previous = ""
    for number, raw in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
        if not raw.strip():
            out.heads.append(previous)
            continue
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            out.broken, out.why = number, "not a JSON record"
            return out
        given = body.pop(CHAIN, None)
        if given is None and not previous:
            out.heads.append("")  # written by a creval before the chain
            continue
        if given is None:
            out.broken, out.why = number, "carries no digest after lines that do"
            return out
        if given != chain_digest(previous, body):
            out.broken, out.why = number, "its digest does not follow from its content and the line before"
            return out
        previous = str(given)
        out.heads.append(previous)
    return out


def changed_outside(root: Path) -> str | None:
    """Why the records of the run at ``root`` were changed outside creval, in one line, or
    None: a line whose digest does not follow (named), fewer lines than the last invocation
    left, lines whose chain is not the one that invocation logged, or a ``scores.json``
    scored from records that are not these. A run of a creval before the chain passes."""
    file = Path(root) / RECORDS
    chain = read_chain(file)
    if chain.broken is not None:
        return (f"{file}:{chain.broken}: changed outside creval ({chain.why}); creval neither "
                "resumes nor re-scores edited records. Restore records.jsonl, or run again "
                "into a new --out.")
    logged = _last_logged(Path(root) / "invocations.jsonl")
    if logged is not None:
        head, lines = logged
        if len(chain.heads) < lines:
            return (f"{file}: {len(chain.heads)} line(s), but the last creval invocation left "
                    f"{lines}: lines were removed outside creval. Restore records.jsonl, or run "
                    "again into a new --out.")
        if lines and chain.heads[lines - 1] != head:
            return (f"{file}: lines 1-{lines} are not those the last creval invocation wrote "
                    f"(their digest is {chain.heads[lines - 1][:12] or 'missing'}, creval logged "
                    f"{head[:12]}): changed outside creval. Restore records.jsonl, or run again "
                    "into a new --out.")
    scored = _scored_head(Path(root) / "scores.json")
    if scored is not None and scored not in ("", *chain.heads):
        return (f"{Path(root) / 'scores.json'} was scored from records whose digest "
                f"({scored[:12]}) is not in {file}'s chain: one of them was changed outside "
                "creval. Restore them, or run again into a new --out.")
    return None


def not_verified(root: Path) -> str | None:
    """Why the numbers of the run at ``root`` are not vouched for by its records' digest
    chain (fast: no replay), in one line, or None: records changed outside creval
    (:func:`changed_outside`), a ``scores.json`` that names no head (an older creval, or
    written by hand) or was scored before the last lines were written. A run without
    ``scores.json`` has no number to vouch for: None."""
    root = Path(root)
    if not (root / "scores.json").is_file():
        return None
    if (problem := changed_outside(root)) is not None:
        return problem
    scored = _scored_head(root / "scores.json")
    chain = read_chain(root / RECORDS)
    if scored is None or not chain.chained:
        return ("its records carry no digest chain or scores.json names none (an older creval, "
                f"or written by hand): run `creval verify {root}`")
    if scored != chain.head:
        at = chain.heads.index(scored) + 1 if scored in chain.heads else 0
        return (f"scores.json was computed from the first {at} line(s) of {RECORDS}; "
                f"{len(chain.heads) - at} came after: run the same command again to score them")
    return None


def _last_logged(path: Path) -> tuple[str, int] | None:
    if not path.is_file():
        return None
    found = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get(HEAD), str) and isinstance(entry.get("records_lines"), int):
            found = (entry[HEAD], entry["records_lines"])
    return found


def _scored_head(path: Path) -> str | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    head = value.get(HEAD) if isinstance(value, dict) else None
    return head if isinstance(head, str) else None


def latest_records(records: list[Record]) -> dict[str, Record]:
    """The last record per key, in the order keys first appeared.

    >>> rs = [Record(key="a", status="error"), Record(key="b", status="ok"),
    ...       Record(key="a", status="ok")]
    >>> [(k, r.status) for k, r in latest_records(rs).items()]
    [('a', 'ok'), ('b', 'ok')]
    """
    out: dict[str, Record] = {}
    for record in records:
        out[record.key] = record
    return out


def superseded_count(records: list[Record]) -> int:
    """Lines replaced by a later line of the same key.

    >>> superseded_count([Record(key="a", status="error"), Record(key="a", status="ok")])
    1
    """
    return len(records) - len(latest_records(records))


#: Version of the ``manifest.json`` and ``scores.json`` schemas below.
SCHEMA_VERSION = 2
#: Version of what ``Scores.inputs_digest`` digests (records, unit keys, options): a run
#: re-scores, and ``creval verify`` recomputes it, under the same format.
SCORES_FORMAT = 1


class UnitCounts(BaseModel):
    """Units of a run as scored: ``missing`` units have no record yet (not run, or not run
    yet); ``superseded_lines`` are earlier lines of retried units."""

    total: int = 0
    finished: int = 0
    errors: int = 0
    missing: int = 0
    superseded_lines: int = 0


class UnitError(BaseModel):
    """One failed unit in ``scores.json``: its key and its error (cut to 500 characters)."""

    key: str
    error: str


class ErrorCause(BaseModel):
    """A distinct cause of unit errors and how many units it failed."""

    cause: str
    count: int


class Manifest(BaseModel):
    """``manifest.json``: what was run, with what, where and when."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    benchmark: str
    seed_paper: str = ""
    created: str = ""
    model_spec: str
    #: ``{"spec", "identity", "capabilities"}`` of the target model (and of the judge).
    model: dict[str, Any] = Field(default_factory=dict)
    judge: dict[str, Any] | None = None
    #: The benchmark's own model roles (``Benchmark.extra_roles``): role -> ``{"spec",
    #: "identity", "capabilities", "does", "chosen_by"}``.
    roles: dict[str, dict[str, Any]] = Field(default_factory=dict)
    options: dict[str, Any] = Field(default_factory=dict)
    #: What must be the same to resume: generation options and prompt digests.
    generation: dict[str, Any] = Field(default_factory=dict)
    seeds: dict[str, Any] = Field(default_factory=dict)
    command: list[str] = Field(default_factory=list)
    python: str = ""
    platform: str = ""
    packages: dict[str, str] = Field(default_factory=dict)
    git_revision: str | None = None


class JudgeCheck(BaseModel):
    """A sign that a judge (or a judge's role) does not discriminate, in ``scores.json``.

    ``check`` names the rule that fired (:mod:`creval.judges.discrimination`): scores with no
    variance across items, scores that follow the order the criteria were asked in, one
    answer position chosen almost always, or (``weak_correlation``) scores that correlate too
    weakly with people's ratings of the same answers (the AUT's originality scorers). ``detail`` is a sentence for people; ``items`` is
    how many judgements the rule looked at.

    >>> JudgeCheck(judge="rubric judge (jcq)", check="no_variance",
    ...            detail="fluency was 1 on all 35 judgements (sd 0)", items=35).check
    'no_variance'
    """

    judge: str
    check: Literal["no_variance", "criterion_order", "position_bias", "weak_correlation"]
    detail: str
    items: int


class Scores(BaseModel):
    """``scores.json``: what a benchmark's scorer found, plus the run's counters.

    ``headline`` maps metric names to numbers (None when not computable); ``table`` holds one
    row per item (its ``key`` or ``id`` matches the unit); ``sections`` are further tables
    (``{"title", "rows", "columns"?, "text"?}``). A benchmark may add fields of its own
    (:meth:`with_extra`); read them with :meth:`extra`.

    >>> s = Scores(headline={"dat_mean": 80.0}).with_extra(lang="en")
    >>> s.headline["dat_mean"], s.extra("lang"), s.extra("games", [])
    (80.0, 'en', [])
    >>> list(s.model_dump(mode="json"))[-2:]  # a benchmark's own fields come last
    ['records_head', 'lang']
    """

    model_config = ConfigDict(extra="allow")

    schema_version: int = SCHEMA_VERSION
    benchmark: str = ""
    headline: dict[str, Any] = Field(default_factory=dict)
    table: list[dict[str, Any]] = Field(default_factory=list)
    sections: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    #: Problems with the results the console shows (for example no log-probabilities).
    warnings: list[str] = Field(default_factory=list)
    #: Problems of the last invocation only (an endpoint that stopped answering).
    run_warnings: list[str] = Field(default_factory=list)
    #: Signs that a judge does not discriminate (no variance, the criteria's order, one
    #: position always chosen); empty when no rule fired or no judge rated or chose.
    judge_checks: list[JudgeCheck] = Field(default_factory=list)
    #: The per-item values behind a headline metric (metric -> values; the metric is their
    #: mean), for confidence intervals and comparisons across runs.
    per_item: dict[str, list[float | None]] = Field(default_factory=dict)
    #: A run with repeats (``--repeats K``): per measure, the shares of ``items``,
    #: ``samples`` and ``judge`` in its variance, the ``reliability`` and the noise
    #: ``floor`` (see :func:`creval.benchmarks.repeats.noise`); empty without repeats.
    noise: dict[str, dict[str, Any]] = Field(default_factory=dict)
    units: UnitCounts = Field(default_factory=UnitCounts)
    #: ``this_invocation`` and ``all_invocations`` counters (see ``creval.runner.counters``).
    usage: dict[str, Any] = Field(default_factory=dict)
    #: The first failed units (at most 20).
    errors: list[UnitError] = Field(default_factory=list)
    error_causes: list[ErrorCause] = Field(default_factory=list)
    resources: dict[str, Any] = Field(default_factory=dict)
    artifacts: list[str] = Field(default_factory=list)
    inputs_digest: str | None = None
    #: The digest of the last line of ``records.jsonl`` these scores were computed from
    #: (:func:`read_chain`); None for a run of a creval before the chain.
    records_head: str | None = None

    def with_extra(self, **fields: Any) -> Scores:
        """These scores with fields of the benchmark's own (``games=[...]``), written to
        ``scores.json`` after the common ones, in this order."""
        common = sorted(set(fields) & set(type(self).model_fields))
        if common:
            raise ValueError(f"{', '.join(common)}: not a benchmark's own field; pass it to Scores()")
        return self.model_copy(update=fields)

    def extra(self, name: str, default: Any = None) -> Any:
        """A field of the benchmark's own (``games``, ``states``, ``lang``), or ``default``."""
        return (self.model_extra or {}).get(name, default)


ANALYSES = "analyses"


class AnalysisTable(BaseModel):
    """One table of an analysis: rows of plain values, optionally with a column order."""

    title: str
    rows: list[dict[str, Any]] = Field(default_factory=list)
    columns: list[str] | None = None
    text: str = ""


class Analysis(BaseModel):
    """``analyses/NAME.json`` in a run directory: a paper's table or figure recomputed from
    one or more runs (and label files), written by ``creval analyze ...`` and shown in the
    run's reports. ``plots`` are plot specs (see ``creval.report.plots``)."""

    model_config = ConfigDict(extra="allow")

    schema_version: int = 1
    name: str
    title: str
    seed_paper: str = ""
    #: The paper's table or figure this reproduces ("Table 5", "Figure 2").
    reproduces: str = ""
    created: str = ""
    inputs: list[str] = Field(default_factory=list)
    options: dict[str, Any] = Field(default_factory=dict)
    tables: list[AnalysisTable] = Field(default_factory=list)
    plots: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


def read_analyses(run_dir: Path) -> list[Analysis]:
    """The analyses saved in ``run_dir/analyses`` (sorted by name); a file that is not an
    analysis is an error naming it."""
    folder = Path(run_dir) / ANALYSES
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            out.append(Analysis.model_validate_json(path.read_bytes()))
        except ValidationError as exc:
            raise CrevalError(f"{path} is not a creval analysis ({exc.error_count()} problem(s): "
                              f"{exc.errors()[0]['msg']}); remove it or run the analysis again.") from None
    return out
