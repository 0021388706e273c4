"""The files of the Batch API and the run's ledger of batches: plain data, no network.

A batch input file holds one JSON line per request (:func:`batch_line`), its ``custom_id`` a
digest of the request's body and sample index (:func:`custom_id`), so the same call gets the
same id in every run. Output and error files come back as lines by custom id
(:func:`parse_lines`). The ledger (``batches.jsonl`` in the run directory, :class:`Ledger`)
records each upload (input file id, custom ids) before its batch is created, each submitted
batch (id, input file), its status changes and, at its end, which of its lines failed; :mod:`creval.models.openai_batch` reads it to resume. Also: ``--batch``'s options
(:func:`batch_options`), the wait before a line goes again (:func:`resubmission_wait`) and a
batch's line counts as a status line says them (:func:`status_counts`).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.models.base import digest

if TYPE_CHECKING:
    from creval.models import ModelOptions

ENDPOINT = "/v1/chat/completions"
LEDGER = "batches.jsonl"


def batch_options(options: ModelOptions, spec: str, out: Path) -> ModelOptions:
    """``options`` with the ledger in run directory ``out`` when ``--batch`` is on; a model
    without a Batch API is a :class:`CrevalError` that says which have one.

    >>> from creval.models import ModelOptions
    >>> batch_options(ModelOptions(batch=True), "openai:m", Path("run")).batch_ledger
    PosixPath('run/batches.jsonl')
    >>> batch_options(ModelOptions(batch=True), "local", Path("run"))
    Traceback (most recent call last):
    ...
    creval.errors.CrevalError: --batch needs a model with a batch API; local has none. Backends with one: openai: (the OpenAI Batch API, and servers that implement its files and batches endpoints). Drop --batch, or use --model openai:NAME.
    """
    if not options.batch:
        return options
    if not spec.startswith("openai:"):
        raise CrevalError(
            f"--batch needs a model with a batch API; {spec} has none. Backends with one: "
            "openai: (the OpenAI Batch API, and servers that implement its files and batches "
            "endpoints). Drop --batch, or use --model openai:NAME."
        )
    return options.model_copy(update={"batch_ledger": Path(out) / LEDGER})


def custom_id(body: dict[str, Any], sample: int) -> str:
    """The line id of ``body`` as sample ``sample``: the same call gets the same id.

    >>> a = custom_id({"model": "m", "messages": []}, 0)
    >>> a == custom_id({"messages": [], "model": "m"}, 0), a == custom_id({"model": "m", "messages": []}, 1)
    (True, False)
    >>> a.startswith("creval-"), len(a)
    (True, 47)
    """
    return "creval-" + digest({"body": body, "sample": sample})[:40]


def batch_line(cid: str, body: dict[str, Any]) -> bytes:
    """One line of a batch input file.

    >>> batch_line("c1", {"model": "m"})
    b'{"custom_id":"c1","method":"POST","url":"/v1/chat/completions","body":{"model":"m"}}\\n'
    """
    line = {"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body}
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


#: The longest wait before a line goes again in a new batch, in polls (``batch_poll``).
BACKOFF_CAP_POLLS = 16


def resubmission_wait(poll: float, times: int, cap_polls: float = BACKOFF_CAP_POLLS) -> float:
    """Seconds to wait before a line's ``times``-th resubmission: ``poll``, then twice as long
    each time, at most ``cap_polls`` polls.

    >>> [resubmission_wait(30.0, k) for k in (1, 2, 3, 5, 6, 9)]
    [30.0, 60.0, 120.0, 480.0, 480.0, 480.0]
    """
    return float(min(poll * 2 ** (times - 1), poll * cap_polls))


def status_counts(counts: dict[str, Any] | None) -> str:
    """A batch's line counts as said in a status line.

    >>> status_counts({"total": 4, "completed": 2, "failed": 1}), status_counts(None)
    (', 2 of 4 lines done, 1 failed', '')
    """
    if not counts:
        return ""
    return f", {counts.get('completed', 0)} of {counts.get('total', 0)} lines done, {counts.get('failed', 0)} failed"


def read_ledger(path: Path) -> list[dict[str, Any]]:
    """The records of a ledger; a torn last line (a killed run) is left out."""
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            if isinstance(record, dict):
                records.append(record)
    return records


def ledger_summary(path: Path) -> list[dict[str, Any]]:
    """Each submitted batch of a ledger: id, lines, last status, lines that failed."""
    batches: dict[str, dict[str, Any]] = {}
    for record in read_ledger(path):
        batch_id = str(record.get("batch_id"))
        if record.get("event") == "submitted":
            batches[batch_id] = {"batch": batch_id, "lines": record.get("lines"),
                                 "status": "submitted", "failed": 0}  # fmt: skip
        elif batch_id in batches:
            batches[batch_id]["status"] = record.get("status", batches[batch_id]["status"])
            if record.get("event") == "finished":
                batches[batch_id]["failed"] = len(record.get("failed") or [])
    return list(batches.values())


class Ledger:
    """The batches of a run: which batch holds each custom id, written through to a file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        #: custom id -> the batch that holds it and has not failed it
        self.index: dict[str, str] = {}
        #: batch id -> its custom ids
        self.members: dict[str, list[str]] = {}
        #: input file id -> its custom ids, for uploads whose batch the ledger does not know
        #: (a run killed between creating the batch and writing it down)
        self.uploaded: dict[str, list[str]] = {}
        self._upload_times: dict[str, float] = {}
        self.unconfirmed: dict[str, list[str]] = {}
        for record in read_ledger(path) if path is not None else []:
            self._apply(record)
        #: uploads found without their batch when the ledger was read: an earlier run's
        #: (those of this run are written down as their batches are created)
        self.unconfirmed.update(self.uploaded)
        #: when the earliest of them was uploaded (seconds since the epoch)
        self.unconfirmed_since = min((self._upload_times[f] for f in self.unconfirmed), default=0.0)

    def _apply(self, record: dict[str, Any]) -> None:
        batch_id, event = str(record.get("batch_id")), record.get("event")
        if event == "uploaded":
            self.uploaded[str(record.get("input_file_id"))] = [str(c) for c in record.get("custom_ids") or []]
            self._upload_times[str(record.get("input_file_id"))] = float(record.get("time") or 0)
        elif event == "orphan":  # no batch was made of it
            self.uploaded.pop(str(record.get("input_file_id")), None)
            self.unconfirmed.pop(str(record.get("input_file_id")), None)
        elif event == "submitted":
            ids = self.uploaded.pop(str(record.get("input_file_id")), None)
            self.unconfirmed.pop(str(record.get("input_file_id")), None)
            ids = [str(c) for c in record.get("custom_ids") or ids or []]
            self.members[batch_id] = ids
            self.index.update(dict.fromkeys(ids, batch_id))
        elif event == "finished":
            for cid in record.get("failed") or []:
                if self.index.get(cid) == batch_id:
                    del self.index[cid]

    def unconfirm(self, file_id: str) -> None:
        """Whether a batch was made of upload ``file_id`` is not known (its creation timed
        out, or failed with a server error that may have come after it)."""
        if file_id in self.uploaded:
            self.unconfirmed[file_id] = self.uploaded[file_id]
            self.unconfirmed_since = min(self._upload_times[f] for f in self.unconfirmed)

    def write(self, record: dict[str, Any]) -> None:
        """Apply ``record`` and append it to the file, flushed to disk before returning."""
        record = {**record, "time": round(time.time(), 3)}
        self._apply(record)
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())


@dataclass
class Outcome:
    """One line of an output or error file."""

    status: int | None  # the HTTP status of the line's response; None: no response
    body: dict[str, Any] | None = None
    message: str = ""
    code: str | None = None


@dataclass
class Finished:
    """A batch at its end: its lines by custom id, and its state."""

    status: str
    lines: dict[str, Outcome] = field(default_factory=dict)
    errors: str = ""


def _error_text(body: Any) -> tuple[str, str | None]:
    """Message and code of an error body (``{"error": {...}}``) or error object."""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if isinstance(body, dict):
        return str(body.get("message") or body), body.get("code")
    return str(body), None


def parse_lines(text: str) -> dict[str, Outcome]:
    """The lines of an output or error file by custom id.

    >>> out = parse_lines('{"custom_id": "a", "response": {"status_code": 200, "body": {"x": 1}}}\\n'
    ...                   '{"custom_id": "b", "response": null, "error": {"code": "batch_expired", "message": "late"}}')
    >>> out["a"].status, out["a"].body, out["b"].status, out["b"].code, out["b"].message
    (200, {'x': 1}, None, 'batch_expired', 'late')
    """
    lines: dict[str, Outcome] = {}
    for raw in text.splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(line, dict) or "custom_id" not in line:
            continue
        response = line.get("response") or {}
        status = response.get("status_code")
        body = response.get("body")
        if status == 200 and isinstance(body, dict) and not line.get("error"):
            lines[str(line["custom_id"])] = Outcome(200, body)
            continue
        message, code = _error_text(line.get("error") or body)
        lines[str(line["custom_id"])] = Outcome(status if status != 200 else None, None, message, code)
    return lines
