"""What a run actually sent and received, read from its ``records.jsonl``, role by role.

The manifest says what a run was asked to do; the records say what it did: every request a
unit made (``UnitContext.generate`` records it whole) and every answer, with the model id
the endpoint reported. :func:`read_evidence` derives from them, per role:

- for each generation parameter that reaches a request (:data:`FIELDS`: temperature, top_p,
  max_tokens, n, seed, stop, log-probabilities, the response schema and the system prompt,
  the last two by digest), the values sent and how many requests sent each. A parameter an
  endpoint rejected and that was therefore not sent (a completion's ``not_applied`` list,
  e.g. ``["temperature", "top_p"]``) counts as :data:`NOT_SENT` for that request;
- the model ids the answers reported, with how many answers carried none;
- for a role answered by ``replay:DIR``, the same read from the run it replays: the replayed
  answers were asked the way the replayed run asked them, never the way the replaying
  command would have (:attr:`RoleEvidence.replayed_from`).

Units' own records of an effect (``judge_constrained``: whether the judge's backend
constrained its answers) are counted per output key (:attr:`Evidence.flags`).

Reading only: no statistics, nothing written.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from creval.models.base import digest
from creval.records import RECORDS, Record, latest_records, read_records

#: The request fields read from every recorded request.
FIELDS = ("temperature", "top_p", "max_tokens", "n", "seed", "stop", "logprobs",
          "response_schema", "system")
#: The value of a parameter the endpoint rejected, so that it was not sent.
NOT_SENT = "not sent"
#: Unit outputs that record whether an option took effect (``True`` or ``False`` per unit).
FLAGS = ("judge_constrained",)
#: How deep a replay of a replay of ... is followed.
MAX_REPLAY_DEPTH = 5


@dataclass
class RoleEvidence:
    """What one role sent and received."""

    role: str
    #: The spec(s) the records name for the role.
    specs: Counter[str] = field(default_factory=Counter)
    requests: int = 0
    #: field -> value -> requests that sent it (values: JSON scalars, a tuple for stop, a
    #: ``sha256:`` digest for the schema and the system prompt, None when absent).
    values: dict[str, Counter[Any]] = field(default_factory=dict)
    #: model id reported -> answers that reported it.
    reported: Counter[str] = field(default_factory=Counter)
    #: answers without a model id.
    unreported: int = 0
    #: The run the answers were replayed from (None: asked by this run).
    replayed_from: str | None = None
    #: Answers whose request the replayed run does not hold (or that could not be read).
    unresolved: int = 0

    @property
    def answers(self) -> int:
        return sum(self.reported.values()) + self.unreported


@dataclass
class Evidence:
    """A run's records, summarised: counts and per-role evidence."""

    #: The records file read, whether it exists, and its latest record per key.
    path: Path
    exists: bool
    records: int = 0
    ok: int = 0
    #: As this run sent it.
    sent: dict[str, RoleEvidence] = field(default_factory=dict)
    #: As the answers were asked: ``sent``, except replayed roles (their replayed run's).
    asked: dict[str, RoleEvidence] = field(default_factory=dict)
    #: output key -> (units where it is true, units that record it).
    flags: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Why a replayed run could not be read (role -> sentence).
    problems: dict[str, str] = field(default_factory=dict)


def _conversation(messages: list[Any]) -> str:
    """The key of a conversation, as a replay matches answers to it (the messages; the
    sample index is added by the caller): one digest per request, not per sample."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _value(name: str, request: Mapping[str, Any]) -> Any:
    if name == "system":
        system = [m.get("content") for m in request.get("messages") or [] if m.get("role") == "system"]
        return "sha256:" + digest(system)[:16] if system else None
    value = request.get(name)
    if name == "response_schema":
        return None if value is None else "sha256:" + digest(value)[:16]
    if isinstance(value, list):
        return tuple(value)
    return value


def request_values(request: Mapping[str, Any], not_applied: set[str]) -> dict[str, Any]:
    """The :data:`FIELDS` of one recorded request, with :data:`NOT_SENT` for rejected ones.

    >>> request_values({"temperature": 0.7, "top_p": 0.9, "stop": ["\\n"]}, {"top_p"})["top_p"]
    'not sent'
    """
    return {name: NOT_SENT if name in not_applied else _value(name, request) for name in FIELDS}


def _not_applied(call: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()
    for c in call.get("completions") or []:
        if isinstance(c, dict) and isinstance(c.get("not_applied"), list):
            out |= {str(p) for p in c["not_applied"]}
    return out


def _replay_target(spec: str, manifest: Mapping[str, Any], run_dir: Path) -> Path | None:
    """The records file a ``replay:`` role read: its identity in the manifest, else the spec."""
    if not spec.startswith("replay:"):
        return None
    for desc in [manifest.get("model"), manifest.get("judge"), *(manifest.get("roles") or {}).values()]:
        if isinstance(desc, dict) and desc.get("spec") == spec:
            records = (desc.get("identity") or {}).get("records")
            if records:
                return Path(str(records))
    where = Path(spec[len("replay:"):])
    return where / RECORDS if where.is_dir() else where


#: conversation key -> (request values, origin id): how each replayable answer was asked.
Origins = dict[str, tuple[dict[str, Any], str]]


#: (file, mtime, size) -> its origins: a run's report, profile and checks all ask.
_ORIGINS: dict[tuple[str, int, int], Origins] = {}


def _origins(records_file: Path, depth: int) -> Origins | None:
    """How every answer of the run whose records are ``records_file`` was asked (following
    its own replays); None when the file is not there to read. Read once per process while
    the file is unchanged."""
    if not records_file.is_file() or depth > MAX_REPLAY_DEPTH:
        return None
    stat = records_file.stat()
    where = (str(records_file.resolve()), stat.st_mtime_ns, stat.st_size)
    if where not in _ORIGINS:
        _ORIGINS.clear()  # one replayed run at a time is what a check needs
        _ORIGINS[where] = _read_origins(records_file, depth)
    return _ORIGINS[where]


def _read_origins(records_file: Path, depth: int) -> Origins:
    run_dir = records_file.parent
    manifest = _manifest(run_dir)
    inner: dict[str, Origins | None] = {}
    out: Origins = {}
    for record in latest_records(read_records(records_file)).values():
        for index, call in enumerate(record.calls):
            if "request" not in call:
                continue
            spec = str(call.get("model", ""))
            source = _replay_target(spec, manifest, run_dir)
            if source is not None and spec not in inner:
                inner[spec] = _origins(source, depth + 1)
            mine = (request_values(call["request"], _not_applied(call)),
                    f"{records_file}#{record.key}#{index}")
            first = int(call.get("first_sample", 0))
            conversation = _conversation(call["request"].get("messages") or [])
            for i in range(len(call.get("completions") or [])):
                key = f"{conversation}#{first + i}"
                if source is None:
                    out.setdefault(key, mine)
                elif (found := (inner[spec] or {}).get(key)) is not None:
                    out.setdefault(key, found)
    return out


def _manifest(run_dir: Path) -> dict[str, Any]:
    try:
        loaded = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _add(role: RoleEvidence, values: Mapping[str, Any]) -> None:
    role.requests += 1
    for name, value in values.items():
        role.values.setdefault(name, Counter())[value] += 1


def _answers(role: RoleEvidence, call: Mapping[str, Any]) -> None:
    for c in call.get("completions") or []:
        model = c.get("model") if isinstance(c, dict) else None
        if isinstance(model, str) and model.strip():
            role.reported[model.strip()] += 1
        else:
            role.unreported += 1


def read_evidence(run_dir: Path, records: list[Record] | None = None) -> Evidence:
    """What the run in ``run_dir`` sent and received (``records``: its records, when the
    caller has read them already)."""
    file = run_dir / RECORDS
    ev = Evidence(file, file.is_file())
    latest = latest_records(records if records is not None else read_records(file))
    ev.records, ev.ok = len(latest), sum(r.status == "ok" for r in latest.values())
    manifest = _manifest(run_dir)
    replays: dict[str, Origins | None] = {}
    asked_seen: dict[str, set[str]] = {}
    for record in latest.values():
        for name in FLAGS:
            if name in record.output:
                true, total = ev.flags.get(name, (0, 0))
                ev.flags[name] = (true + bool(record.output[name]), total + 1)
        for call in record.calls:
            if "request" not in call:
                continue
            role, spec = str(call.get("role", "target")), str(call.get("model", ""))
            sent = ev.sent.setdefault(role, RoleEvidence(role))
            sent.specs[spec] += 1
            values = request_values(call["request"], _not_applied(call))
            _add(sent, values)
            _answers(sent, call)
            source = _replay_target(spec, manifest, run_dir)
            asked = ev.asked.setdefault(role, RoleEvidence(role))
            asked.specs[spec] += 1
            _answers(asked, call)
            if source is None:
                _add(asked, values)
                continue
            asked.replayed_from = str(source.parent)
            if spec not in replays:
                replays[spec] = _origins(source, 1)
                if replays[spec] is None:
                    ev.problems[role] = (f"its answers were replayed from {source.parent}, which "
                                         "is not there to read")
            _add_replayed(asked, call, replays[spec] or {}, asked_seen.setdefault(role, set()))
    return ev


def _add_replayed(asked: RoleEvidence, call: Mapping[str, Any], origins: Origins,
                  seen: set[str]) -> None:
    """Count each replayed answer's original request once (a request of n answers once)."""
    first = int(call.get("first_sample", 0))
    conversation = _conversation(call["request"].get("messages") or [])
    for i in range(len(call.get("completions") or [])):
        found = origins.get(f"{conversation}#{first + i}")
        if found is None:
            asked.unresolved += 1
        elif found[1] not in seen:
            seen.add(found[1])
            _add(asked, found[0])


__all__ = ["FIELDS", "NOT_SENT", "Evidence", "RoleEvidence", "read_evidence", "request_values"]
