"""The run store's record schema and its read-only readers (a bottom layer: no creval imports
beyond errors, so models, runner and report can all read runs).

``records.jsonl`` is append-only: a unit that ended in an error and was retried later has
two lines, the error and then its new outcome. Every reader takes the **last line per
key** (:func:`latest_records`); the earlier lines are *superseded* and kept only as history.
"""

from __future__ import annotations

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
    ['inputs_digest', 'lang']
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
