"""The run store's record schema and its read-only readers (a bottom layer: no creval imports
beyond errors, so models, runner and report can all read runs).

``records.jsonl`` is append-only: a unit that ended in an error and was retried later has
two lines, the error and then its new outcome. Every reader takes the **last line per
key** (:func:`latest_records`); the earlier lines are *superseded* and kept only as history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

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
