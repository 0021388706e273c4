"""Published reference values of the five papers, and when a run may stand beside them.

The values live as data, one JSON file per paper in ``creval/data/references/`` (our own
transcription of the papers' tables; see the README there). Each value names the
**protocol** it was measured under: the benchmark, the data, how many items, the judge and
other evaluator models, and the benchmark options that change the number. Whether a
run's measurement may stand beside a published one is decided by
:mod:`creval.evaluation.compare.comparability`, the one set of rules; this module holds the data.

>>> refs = references_for("jcq", "mean")
>>> ref, protocol = next((r, p) for r, p in refs if r.subject == "GPT-4o")
>>> ref.value, ref.source, protocol.judge
(3.64, 'Table 3, section 4.2', ('gpt-4o',))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from creval.errors import CrevalError

Kind = Literal["model", "human"]
#: ``upstream``: the paper's own data (creval's ``upstream`` value or the paper's file);
#: ``unavailable``: the paper's data is not public, so no run is comparable;
#: ``none``: the task has no item set (DAT: one instruction), so the data is not compared.
DATA_IDENTITIES = ("upstream", "unavailable", "none")


@dataclass(frozen=True)
class Protocol:
    """How a paper measured: what a run must share to be compared with its values."""

    id: str
    benchmark: str
    data: str
    #: Items the paper measured, counted as creval's units of the benchmark (None: unknown).
    items: int | None
    #: Accepted judge models (None: no LLM judge is involved).
    judge: tuple[str, ...] | None
    description: str
    #: Other evaluator roles and their accepted models (``{"e1": ("gpt-4o-mini",)}``).
    roles: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Benchmark options that must be equal; a list (tuple here) accepts any of its values.
    #: Every option that changes what is measured is stated (see
    #: :mod:`creval.evaluation.compare.comparability`).
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Options whose value the paper does not print -> where the stated value comes from.
    inferred: Mapping[str, str] = field(default_factory=dict)
    #: A model alias the protocol names -> the snapshots it covers (an alias names no model
    #: by itself: ``{"gpt-4o": ("gpt-4o-2024-05-13", "gpt-4o-2024-08-06")}``).
    snapshots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Reference:
    """One published value: who (``subject``) scored what (``measure``) under which protocol."""

    paper: str
    seed: str
    subject: str
    kind: Kind
    benchmark: str
    measure: str
    value: float
    protocol: str
    source: str


@dataclass(frozen=True)
class PaperReferences:
    """One paper's file: its protocols and values."""

    file: str
    paper: str
    seed: str
    family: str
    transcription: str
    protocols: Mapping[str, Protocol]
    values: tuple[Reference, ...]


def load_references(directory: Path | None = None) -> list[PaperReferences]:
    """Every paper's references, from ``directory`` (default: the packaged folder), sorted by
    file name; a malformed file raises :class:`CrevalError` naming the file and the field."""
    if directory is not None:
        if not directory.is_dir():
            raise CrevalError(f"References folder {directory} does not exist.")
        files = [(p.name, p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]
    else:
        folder = resources.files("creval") / "data" / "references"
        files = sorted((p.name, p.read_text(encoding="utf-8"))
                       for p in folder.iterdir() if p.name.endswith(".json"))
    return [_parse_file(name, text) for name, text in files]


def references_for(benchmark: str, measure: str,
                   refs: Sequence[PaperReferences] | None = None) -> list[tuple[Reference, Protocol]]:
    """The published values of ``measure`` of ``benchmark``, each with its protocol."""
    papers = load_references() if refs is None else refs
    return [(v, p.protocols[v.protocol]) for p in papers for v in p.values
            if v.benchmark == benchmark and v.measure == measure]


# --- reading one file -------------------------------------------------------------------

def _parse_file(name: str, text: str) -> PaperReferences:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CrevalError(f"References file {name} is not valid JSON: {exc}.") from None
    where = _Where(name)
    top = where.mapping(raw, "")
    protocols_raw = where.mapping(where.field(top, "protocols", ""), "protocols")
    protocols = {pid: _protocol(where, pid, p) for pid, p in protocols_raw.items()}
    values_raw = where.field(top, "values", "")
    if not isinstance(values_raw, list):
        raise where.error("values", "must be a list")
    paper, seed = where.text(top, "paper", ""), where.text(top, "seed", "")
    values = tuple(_reference(where, f"values[{i}]", v, paper, seed, protocols)
                   for i, v in enumerate(values_raw))
    return PaperReferences(name, paper, seed, where.text(top, "family", ""),
                           where.text(top, "transcription", ""), protocols, values)


@dataclass(frozen=True)
class _Where:
    file: str

    def error(self, path: str, problem: str) -> CrevalError:
        return CrevalError(f"References file {self.file}: {path or 'the file'} {problem}.")

    def mapping(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(path, "must be a JSON object")
        return value

    def field(self, obj: dict[str, Any], key: str, path: str) -> Any:
        if key not in obj:
            raise self.error(f"{path}.{key}" if path else key, "is missing")
        return obj[key]

    def text(self, obj: dict[str, Any], key: str, path: str) -> str:
        value = self.field(obj, key, path)
        if not isinstance(value, str) or not value:
            raise self.error(f"{path}.{key}" if path else key, "must be a non-empty string")
        return value

    def models(self, value: Any, path: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(m, str) for m in value):
            raise self.error(path, "must be a non-empty list of model names")
        return tuple(value)


def _protocol(where: _Where, pid: str, raw: Any) -> Protocol:
    path = f"protocols.{pid}"
    obj = where.mapping(raw, path)
    data = where.text(obj, "data", path)
    if data not in DATA_IDENTITIES:
        raise where.error(f"{path}.data", f"must be one of {', '.join(DATA_IDENTITIES)}, got {data!r}")
    items = where.field(obj, "items", path)
    if items is not None and (isinstance(items, bool) or not isinstance(items, int) or items < 1):
        raise where.error(f"{path}.items", "must be a positive integer or null")
    judge = where.field(obj, "judge", path)
    roles = where.mapping(obj.get("roles", {}), f"{path}.roles")
    options = where.mapping(obj.get("options", {}), f"{path}.options")
    inferred = where.mapping(obj.get("inferred", {}), f"{path}.inferred")
    for name, why in inferred.items():
        if name not in (*options, "judge", *roles) or not isinstance(why, str) or not why:
            raise where.error(f"{path}.inferred.{name}", "must be a non-empty string saying where "
                              "the value comes from, for an option (or the judge, or a role) "
                              "the protocol states")
    snapshots = where.mapping(obj.get("snapshots", {}), f"{path}.snapshots")
    return Protocol(
        id=pid, benchmark=where.text(obj, "benchmark", path), data=data, items=items,
        judge=None if judge is None else where.models(judge, f"{path}.judge"),
        description=where.text(obj, "description", path),
        roles={r: where.models(m, f"{path}.roles.{r}") for r, m in roles.items()},
        options={k: tuple(v) if isinstance(v, list) else v for k, v in options.items()},
        inferred=dict(inferred),
        snapshots={a: where.models(m, f"{path}.snapshots.{a}") for a, m in snapshots.items()},
    )


def _reference(where: _Where, path: str, raw: Any, paper: str, seed: str,
               protocols: Mapping[str, Protocol]) -> Reference:
    obj = where.mapping(raw, path)
    kind = where.text(obj, "kind", path)
    if kind not in ("model", "human"):
        raise where.error(f"{path}.kind", f"must be 'model' or 'human', got {kind!r}")
    value = where.field(obj, "value", path)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise where.error(f"{path}.value", f"must be a number, got {value!r}")
    protocol = where.text(obj, "protocol", path)
    if protocol not in protocols:
        raise where.error(f"{path}.protocol", f"names an unknown protocol {protocol!r} "
                          f"(known: {', '.join(protocols) or 'none'})")
    benchmark = where.text(obj, "benchmark", path)
    if benchmark != protocols[protocol].benchmark:
        raise where.error(f"{path}.benchmark", f"is {benchmark!r} but protocol {protocol!r} "
                          f"measures {protocols[protocol].benchmark!r}")
    return Reference(paper=paper, seed=seed, subject=where.text(obj, "subject", path),
                     kind=kind,  # type: ignore[arg-type]
                     benchmark=benchmark, measure=where.text(obj, "measure", path),
                     value=float(value), protocol=protocol, source=where.text(obj, "source", path))
