"""How one run measured, as :mod:`creval.evaluation.compare.comparability` holds it against a
published protocol: read from the run's records (:mod:`creval.evaluation.compare.evidence`) first,
from its manifest only for what no request carries.

- **Options that reach a request** (:func:`request_options`, as the benchmark declares) are taken as the requests sent
  them; where the manifest says otherwise the run is not comparable (a *problem*, naming the
  field, both values and how many requests). A replayed role's options are those its
  replayed run asked with, never the replaying command's.
- **Options compared by effect** (:func:`effect_options`): asked for but recorded as not
  applied on any unit (structured judging on a backend that cannot constrain) is compared as
  off, with a note saying so.
- **Models by every answer**: each role's snapshot is the set of model ids its answers
  reported; answers without one make it *unverified*.
- **Self-judging** by the reported snapshot and the endpoint (``localhost``, ``127.0.0.1``,
  ``::1`` and ``0.0.0.0`` are one host).
- **Records are the evidence**: a run whose ``records.jsonl`` is missing, empty or holds
  fewer finished units than ``scores.json`` counts is not comparable.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from creval.evaluation.compare.evidence import NOT_SENT, Evidence, RoleEvidence, read_evidence
from creval.evaluation.compare.paper_data import (
    DataIdentity,
    data_identity,
    paper_data_of,
    run_items,
)
from creval.evaluation.panel.conditions import panel_of, panel_reason
from creval.reader import Run
from creval.records import Scores


def request_options(benchmark: str) -> dict[str, tuple[str, str]]:
    """Option -> (role, request field) ``benchmark`` declares it sends verbatim on every
    request of that role (``Benchmark.options_sent``); only options the run's manifest has are
    read. An unregistered benchmark declares none."""
    from creval.benchmarks import registry

    cls = registry().get(benchmark)
    return {} if cls is None else cls.options_sent()


def effect_options(benchmark: str) -> dict[str, str]:
    """Option -> the unit output recording whether it took effect on that unit, as
    ``benchmark`` declares (``Benchmark.option_effects``)."""
    from creval.benchmarks import registry

    cls = registry().get(benchmark)
    return {} if cls is None else dict(cls.option_effects)


LOOPBACK = {"localhost", "127.0.0.1", "::1", "0.0.0.0", "ip6-localhost"}


@dataclass(frozen=True)
class Applied:
    """One option as the requests applied it: each value with how many requests sent it."""

    role: str
    values: tuple[tuple[Any, int], ...]
    #: The run the answers were replayed from (None: this run asked them).
    replayed_from: str | None = None


@dataclass(frozen=True)
class RunConditions:
    """How one run measured, to hold against a :class:`~creval.report.references.Protocol`."""

    benchmark: str
    data: DataIdentity
    #: The judge role's spec (None: no judge) and the model ids its answers reported.
    judge: str | None = None
    judge_reported: tuple[str, ...] = ()
    self_judged: bool = False
    #: Other roles: role -> spec, and role -> reported model ids.
    roles: Mapping[str, str] = field(default_factory=dict)
    roles_reported: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Option -> the SHA-256 the run recorded of the file it named, when it ran.
    files: Mapping[str, str] = field(default_factory=dict)
    #: Answers per reported snapshot and answers without a model id, per role (``judge``
    #: included); a role absent here is judged by ``*_reported`` alone.
    answers: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    unreported: Mapping[str, int] = field(default_factory=dict)
    #: Options read from the requests (they replace the manifest's values).
    applied: Mapping[str, Applied] = field(default_factory=dict)
    #: Reasons that hold against every protocol (the manifest contradicts the records,
    #: records missing, a replayed run not there to read).
    problems: tuple[str, ...] = ()
    #: What was compared by effect rather than as asked, each a sentence.
    notes: tuple[str, ...] = ()
    #: How the self-judging was found (snapshot and endpoint), for the reason.
    self_judged_how: str = ""


def effective_options(cond: RunConditions) -> dict[str, Any]:
    """The run's options as its requests applied them (several values: any of them), the
    manifest's where no request carries the option: to hold another run against.

    >>> from creval.evaluation.compare.paper_data import DataIdentity
    >>> c = RunConditions("jcq", DataIdentity("none", ""), options={"structured_judge": True},
    ...                   applied={"structured_judge": Applied("judge", ((False, 7),))})
    >>> effective_options(c)
    {'structured_judge': False}
    """
    out = dict(cond.options)
    for name, applied in cond.applied.items():
        values = tuple(v for v, _ in applied.values)
        out[name] = values[0] if len(values) == 1 else values
    return out


def bare(spec: str) -> str:
    """A model spec or reported id as compared with a paper's model: lower case, without the
    provider (``openai:``) or a router's prefix (``openai/``). The snapshot date stays:
    ``gpt-4o`` and ``gpt-4o-2024-08-06`` are different models.

    >>> bare("openai:gpt-4o-2024-08-06"), bare("GPT-4o"), bare("openai/gpt-4o-2024-08-06")
    ('gpt-4o-2024-08-06', 'gpt-4o', 'gpt-4o-2024-08-06')
    """
    name = spec.strip().lower()
    if re.match(r"^[a-z][a-z0-9_-]*:(?!/)", name):
        name = name.split(":", 1)[1]
    return name.rstrip("/").rsplit("/", 1)[-1]


def endpoint(identity: Mapping[str, Any] | None) -> str:
    """Where a model answered, comparable across spellings of the same host.

    >>> endpoint({"base_url": "http://localhost:8080/v1/"}) == endpoint({"base_url": "http://127.0.0.1:8080/v1"})
    True
    >>> endpoint({"base_url": "https://api.openai.com/v1"})
    'https://api.openai.com:443/v1'
    """
    identity = identity or {}
    url = identity.get("base_url")
    if not isinstance(url, str) or not url:
        return json.dumps(dict(identity), sort_keys=True, default=str)
    parts = urlsplit(url if "//" in url else f"http://{url}")
    host = (parts.hostname or "").lower()
    host = "loopback" if host in LOOPBACK or host.startswith("127.") else host
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


def shown(values: Any) -> str:
    if isinstance(values, tuple):
        return " or ".join(shown(v) for v in values)
    return json.dumps(values) if isinstance(values, bool) or values is None else str(values)


def same(a: Any, b: Any) -> bool:
    """Equal as option values (1 and 1.0 are; True and 1 are not; a list is its tuple)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b))
    return (tuple(a) if isinstance(a, list) else a) == (tuple(b) if isinstance(b, list) else b)


# --- a run directory ---------------------------------------------------------------------

def conditions_of(run: Run, scores: Scores | None = None) -> RunConditions:
    """How the run in ``run`` measured, from its records, manifest and scores."""
    manifest = run.manifest
    scores = scores or run.scores or Scores()
    options = dict(manifest.options)
    paper = paper_data_of(manifest.benchmark)
    files = dict((getattr(manifest, "inputs", None) or {}).get("files") or {})
    data = data_identity(manifest.benchmark, options.get(paper.option) if paper else None,
                         files.get(paper.option) if paper else None, run_items(run.records))
    ev = read_evidence(run.path, run.records)
    judge = (manifest.judge or {}).get("spec") if manifest.judge else None
    roles = {r: str(d.get("spec")) for r, d in manifest.roles.items()}
    asked = ev.asked
    applied, problems, notes = _applied(manifest.benchmark, options, ev)
    panel = panel_of(manifest)  # --judge a,b,c: its records are its judges' runs'
    problems = ([panel_reason(panel)] if panel is not None else _records_problems(ev, scores)) + problems
    problems += [f"the {role}: {why}" for role, why in ev.problems.items()]
    judged_itself, how = self_judged(run, ev)
    return RunConditions(
        benchmark=manifest.benchmark, data=data,
        judge=None if judge is None else str(judge),
        judge_reported=tuple(sorted(asked["judge"].reported)) if "judge" in asked else (),
        self_judged=judged_itself, self_judged_how=how, roles=roles,
        roles_reported={r: tuple(sorted(asked[r].reported)) if r in asked else () for r in roles},
        options=options,
        files={k: str(v["sha256"]) for k, v in files.items() if isinstance(v, dict) and "sha256" in v},
        answers={r: dict(e.reported) for r, e in asked.items()},
        unreported={r: e.unreported for r, e in asked.items()},
        applied=applied, problems=tuple(problems), notes=tuple(notes),
    )


def _records_problems(ev: Evidence, scores: Scores) -> list[str]:
    finished = scores.units.finished
    if not ev.exists:
        return [f"records.jsonl is missing: scores.json counts {finished} finished unit(s) "
                "but what they sent and received cannot be read"]
    if ev.ok < finished:
        return [f"records.jsonl holds {ev.ok} of the {finished} finished unit(s) scores.json "
                "counts (emptied or truncated): the rest cannot be read"]
    return []


def _applied(benchmark: str, options: Mapping[str, Any], ev: Evidence
             ) -> tuple[dict[str, Applied], list[str], list[str]]:
    applied: dict[str, Applied] = {}
    problems: list[str] = []
    for name, (role, name_in_request) in request_options(benchmark).items():
        if options.get(name) is None or role not in ev.sent:  # unset: the backend's default
            continue
        problems += disagreements(name, options[name], ev.sent[role], name_in_request)
        asked = ev.asked[role]
        seen = asked.values.get(name_in_request)
        if seen:
            applied[name] = Applied(role, tuple(seen.most_common()), asked.replayed_from)
        if asked.unresolved:
            problems.append(f"{asked.unresolved} answer(s) of the {role} replayed from "
                            f"{asked.replayed_from} have no request there: how they were asked "
                            "cannot be checked")
    notes: list[str] = []
    for name, flag in effect_options(benchmark).items():
        true, total = ev.flags.get(flag, (0, 0))
        if name not in options or not total:
            continue
        if options[name] is True and true == 0:
            applied[name] = Applied("judge", ((False, total),))
            notes.append(f"{name}=true was asked but not applied: the backend could not "
                         f"constrain ({flag} false on all {total} units), so it is compared "
                         "as false")
        elif options[name] is False and true:
            problems.append(f"{name}: manifest.json says false, but {true} of {total} units "
                            f"record {flag} true")
    return applied, problems, notes


def disagreements(name: str, said: Any, sent: RoleEvidence, name_in_request: str) -> list[str]:
    """Where the manifest's value of ``name`` is not what the role's requests sent."""
    values: Mapping[Any, int] = sent.values.get(name_in_request) or {}
    other = [(v, n) for v, n in values.items() if v != NOT_SENT and not same(v, said)]
    return [f"{name}: manifest.json says {shown(said)}, but {n} request(s) of the {sent.role} "
            f"in records.jsonl sent {shown(v)}" for v, n in other]


def _snapshot(role: RoleEvidence | None, spec: str | None) -> frozenset[str]:
    if role is not None and role.reported and not role.unreported:
        return frozenset(bare(m) for m in role.reported)
    return frozenset({bare(spec)}) if spec else frozenset()


def self_judged(run: Run, ev: Evidence | None = None) -> tuple[bool, str]:
    """Whether the tested model judged its own answers, and how that was found: its answers
    and the judge's report the same snapshot (the spec's model where answers report none)
    and came from the same endpoint. A run replaying one recorded run as both model and judge
    is not self-judged: the replayed judgements report the judge that wrote them."""
    manifest = run.manifest
    if manifest.judge is None:
        return False, ""
    ev = ev or read_evidence(run.path, run.records)
    if "judge" not in ev.asked or not ev.asked["judge"].answers:
        return False, ""  # the judge was never asked: it judged nothing
    target = _snapshot(ev.asked.get("target"), manifest.model_spec)
    judge = _snapshot(ev.asked.get("judge"), str(manifest.judge.get("spec") or ""))
    shared = sorted(target & judge)
    if shared and _where(manifest.model, "target") == _where(manifest.judge, "judge"):
        return True, f"{', '.join(shared)} at the same endpoint"
    return False, ""


def _where(described: Mapping[str, Any] | None, role: str, depth: int = 0) -> str:
    """The endpoint of a role; for a replay, that of the same role in the replayed run."""
    identity = (described or {}).get("identity") or {}
    if identity.get("provider") != "replay":
        return endpoint(identity)
    recorded = Path(str(identity.get("records", "")))
    try:
        replayed = json.loads((recorded.parent / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return f"replay:{recorded}"
    if depth >= 5 or not isinstance(replayed, dict):
        return f"replay:{recorded}"
    return _where(replayed.get("model" if role == "target" else role), role, depth + 1)


def is_self_judged(scores: Scores) -> bool:
    """The run's own label: the tested model played its judge (no other judge was given)."""
    return str(scores.headline.get("judged_by", "")).startswith("self-judged")


__all__ = ["Applied", "RunConditions", "bare", "disagreements",
           "conditions_of", "effective_options", "endpoint", "is_self_judged", "same", "self_judged", "shown"]
