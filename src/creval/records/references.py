"""What a benchmark declares about the published numbers it is compared with, and about the
upstream data ``creval data fetch`` writes, as typed data.

A benchmark fills these values in its own package and gives them through its hooks
(:meth:`creval.benchmarks.base.Benchmark.published_references` and the methods beside it);
``evaluation/``, ``report/`` and ``cli/`` read them and never name a benchmark. Like the run
contract beside it, this module imports nothing of creval but ``errors`` (a bottom layer), so
a benchmark declares without importing the layers that read the declarations.

- :class:`Protocol`: how a paper measured (benchmark, data, items, judge and other
  evaluators, options): what a run must share to stand beside its values.
- :class:`Reference`: one published value (who scored what under which protocol, where it
  was read); :class:`PaperReferences`: one paper's protocols and values, with its licence.
- :class:`PaperData`: how the paper's data is known by the digests a run records.
- :class:`PublishedItems`: per-item results a paper released (to pair a run with, item by
  item): their protocol, measures, item identity, licence and where they are read from at
  run time; :class:`Published`: one model's per-item values, as read.
- :class:`DataSource`: an upstream data set ``creval data fetch`` writes.

>>> paper = parse_references("mine.json", '{"paper": "P", "seed": "-", "family": "f", '
...     '"transcription": "t", "protocols": {"p": {"benchmark": "b", "data": "none", '
...     '"items": null, "judge": null, "description": "d"}}, "values": [{"subject": "m", '
...     '"kind": "model", "benchmark": "b", "measure": "x", "value": 1, "protocol": "p", '
...     '"source": "Table 1"}]}')
>>> paper.values[0].value, paper.protocols["p"].benchmark, paper.licence
(1.0, 'b', '')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Literal

from creval.errors import CrevalError

Kind = Literal["model", "human"]
#: ``upstream``: the paper's own data (creval's ``upstream`` value or the paper's file);
#: ``unavailable``: the paper's data is not public, so no run is comparable;
#: ``none``: the task has no item set (DAT: one instruction), so the data is not compared.
DATA_IDENTITIES = ("upstream", "unavailable", "none")
#: measure -> item id -> value
ItemValues = dict[str, dict[str, float]]


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
    """One paper's published values: its protocols and values, and the licence under which
    they are here (a paper's printed numbers are transcribed facts; values computed from
    released files say the files' licence)."""

    file: str
    paper: str
    seed: str
    family: str
    transcription: str
    protocols: Mapping[str, Protocol]
    values: tuple[Reference, ...]
    licence: str = ""


@dataclass(frozen=True)
class PaperData:
    """A paper's data set, as the option of its benchmark loads it."""

    #: The benchmark option naming the data.
    option: str
    #: Digests of a file that is the paper's data (any of them).
    files: frozenset[str] = frozenset()
    #: The shipped file (``creval/data/paper_items/NAME``) of the paper's items' digests by
    #: unit key, written from the paper's file by the evaluation layer's ``paper_items_from``.
    items: str | None = None


@dataclass(frozen=True)
class PublishedItems:
    """Per-item results a paper released, to pair a run with on the items both measured."""

    #: The protocol the released values were measured under.
    protocol: Protocol
    #: The per-item measures (keys of :data:`ItemValues`).
    measures: tuple[str, ...]
    #: What an item id is (``question_id``, the prompt's id, ``(problem, state)``...).
    item_identity: str
    #: The licence of the released files ("none stated" when there is none).
    licence: str
    #: Where the values are read from at run time (they are never copied into creval when
    #: the licence is unclear or copyleft): the fetch source, or what to pass.
    fetched_from: str


@dataclass(frozen=True)
class Published:
    """One published model's per-item values under one protocol, as read at run time."""

    subject: str
    benchmark: str
    protocol: Protocol
    #: Where the values came from (a file).
    source: str
    values: ItemValues


@dataclass(frozen=True)
class DataSource:
    """An upstream data set ``creval data fetch NAME`` writes, pinned."""

    name: str
    #: What it fetches, in one line (shown by ``creval data list``).
    what: str
    #: The function writing it, ``"module:attr"`` taking the destination folder.
    fetcher: str
    #: Where it is fetched from (a repository or hub page).
    url: str = ""
    #: The pinned commit or revision ("" when the source has none).
    commit: str = ""
    #: Local path -> digest (or its first hex digits) of each file, when pinned file by file.
    digests: Mapping[str, str] = field(default_factory=dict)
    licence: str = ""


@dataclass(frozen=True)
class LocatedInputs:
    """Where the files a run recorded are now, found by their digests (the recorded path, else
    the benchmark's default places), for a declaration that reads them again at check time."""

    #: option -> the place holding what the run read.
    found: Mapping[str, str] = field(default_factory=dict)
    #: Why a recorded file is found nowhere, each a sentence.
    problems: tuple[str, ...] = ()
    #: The options whose files the run recorded.
    recorded: frozenset[str] = frozenset()


# --- reading a paper's file -------------------------------------------------------------------

@lru_cache(maxsize=32)
def packaged_references(name: str) -> PaperReferences:
    """The packaged paper file ``creval/data/references/NAME``, read once per process."""
    path = resources.files("creval") / "data" / "references" / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CrevalError(f"The packaged references file {name} is missing ({exc}).") from None
    return parse_references(name, text)


def parse_references(name: str, text: str) -> PaperReferences:
    """One paper's file (JSON); a malformed file raises :class:`CrevalError` naming the file
    and the field."""
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
    licence = top.get("licence", "")
    return PaperReferences(name, paper, seed, where.text(top, "family", ""),
                           where.text(top, "transcription", ""), protocols, values,
                           licence if isinstance(licence, str) else "")


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


__all__ = ["DATA_IDENTITIES", "DataSource", "ItemValues", "Kind", "LocatedInputs", "PaperData", "PaperReferences",
           "Protocol", "Published", "PublishedItems", "Reference", "packaged_references",
           "parse_references"]
