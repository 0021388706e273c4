"""Published reference values of the five papers, and when a run may stand beside them.

The values live as data, one JSON file per paper in ``creval/data/references/`` (our own
transcription of the papers' tables; see the README there). Each value names the
**protocol** it was measured under: the benchmark, the data, how many items, the judge and
other evaluator models, and the benchmark options that change the number. A run's
measurement is placed beside a published one only when its :class:`RunConditions` meet
that protocol (:func:`comparability`); otherwise the reason is said in one line.

>>> refs = references_for("jcq", "mean")
>>> ref, protocol = next((r, p) for r, p in refs if r.subject == "GPT-4o")
>>> ref.value, ref.source, protocol.judge
(3.64, 'Table 3, section 4.2', ('gpt-4o',))
"""

from __future__ import annotations

import json
import re
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
    options: Mapping[str, Any] = field(default_factory=dict)


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


@dataclass(frozen=True)
class RunConditions:
    """How one run measured, to hold against a :class:`Protocol`."""

    benchmark: str
    #: ``starter``, ``upstream`` or the data file's name.
    data: str
    items: int
    #: The judge role's model spec (None when the benchmark has no judge).
    judge: str | None
    self_judged: bool
    roles: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


def model_name(spec: str) -> str:
    """A model spec as compared with a paper's model: lower case, without a provider prefix
    and a trailing snapshot date.

    >>> model_name("openai:gpt-4o-2024-08-06"), model_name("claude-3-5-sonnet-20241022")
    ('gpt-4o', 'claude-3-5-sonnet')
    """
    name = spec.strip().lower()
    if re.match(r"^[a-z][a-z0-9_-]*:(?!/)", name):
        name = name.split(":", 1)[1]
    return re.sub(r"-(\d{4}-\d{2}-\d{2}|\d{8})$", "", name)


def _accepts(accepted: Sequence[str], spec: str) -> bool:
    return model_name(spec) in {model_name(a) for a in accepted}


def _shown(values: Any) -> str:
    if isinstance(values, tuple):
        return " or ".join(_shown(v) for v in values)
    return json.dumps(values) if isinstance(values, bool) or values is None else str(values)


def comparability(protocol: Protocol, run: RunConditions) -> str | None:
    """None when ``run`` measured under ``protocol``, else why not, in one line.

    Checked in this order: benchmark, data, judge, other roles, options, items (a run may
    have more items than the paper, not fewer).

    >>> p = Protocol("jcq-paper", "jcq", "upstream", 700, ("gpt-4o",), "JCQ judged by GPT-4o",
    ...              options={"answers": 5})
    >>> run = RunConditions("jcq", "upstream", 700, "openai:gpt-4o-2024-08-06", False,
    ...                     options={"answers": 5})
    >>> comparability(p, run) is None
    True
    >>> from dataclasses import replace
    >>> comparability(p, replace(run, data="starter"))
    "not comparable: the starter set, not the paper's data"
    >>> comparability(p, replace(run, judge="openai:gpt-4o-mini"))
    "not comparable: judge openai:gpt-4o-mini, the paper's was gpt-4o"
    >>> comparability(p, replace(run, judge=None, self_judged=True))
    "not comparable: self-judged (the paper's judge was gpt-4o)"
    >>> comparability(p, replace(run, options={"answers": 1}))
    'not comparable: answers=1, the paper used 5'
    >>> comparability(p, replace(run, items=20))
    'not comparable: 20 items, the paper measured 700'
    """
    if run.benchmark != protocol.benchmark:
        return f"not comparable: a {run.benchmark} run, the paper measured {protocol.benchmark}"
    reason = (_data_reason(protocol, run) or _judge_reason(protocol, run)
              or _roles_reason(protocol, run) or _options_reason(protocol, run))
    if reason:
        return reason
    if protocol.items is not None and run.items < protocol.items:
        return f"not comparable: {run.items} items, the paper measured {protocol.items}"
    return None


def _data_reason(protocol: Protocol, run: RunConditions) -> str | None:
    if protocol.data == "unavailable":
        return "not comparable: the paper's data is not public"
    if protocol.data == "none" or run.data == protocol.data:
        return None
    if run.data == "starter":
        return "not comparable: the starter set, not the paper's data"
    return f"not comparable: the data {run.data}, not the paper's"


def _judge_reason(protocol: Protocol, run: RunConditions) -> str | None:
    if protocol.judge is None:
        return None
    papers = _shown(protocol.judge)
    if run.self_judged:
        return f"not comparable: self-judged (the paper's judge was {papers})"
    if run.judge is None:
        return f"not comparable: no judge, the paper's was {papers}"
    if not _accepts(protocol.judge, run.judge):
        return f"not comparable: judge {run.judge}, the paper's was {papers}"
    return None


def _roles_reason(protocol: Protocol, run: RunConditions) -> str | None:
    for role, accepted in protocol.roles.items():
        spec = run.roles.get(role)
        if spec is None:
            return f"not comparable: no {role} model, the paper's was {_shown(accepted)}"
        if not _accepts(accepted, spec):
            return f"not comparable: {role} was {spec}, the paper's was {_shown(accepted)}"
    return None


def _options_reason(protocol: Protocol, run: RunConditions) -> str | None:
    for name, wanted in protocol.options.items():
        accepted = wanted if isinstance(wanted, tuple) else (wanted,)
        if name not in run.options:
            return f"not comparable: {name} not recorded, the paper used {_shown(wanted)}"
        if run.options[name] not in accepted:
            return f"not comparable: {name}={_shown(run.options[name])}, the paper used {_shown(wanted)}"
    return None


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
    return Protocol(
        id=pid, benchmark=where.text(obj, "benchmark", path), data=data, items=items,
        judge=None if judge is None else where.models(judge, f"{path}.judge"),
        description=where.text(obj, "description", path),
        roles={r: where.models(m, f"{path}.roles.{r}") for r, m in roles.items()},
        options={k: tuple(v) if isinstance(v, list) else v for k, v in options.items()},
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
