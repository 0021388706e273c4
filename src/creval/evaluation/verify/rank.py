"""``creval verify`` of a ``creval rank`` output directory (:func:`verify_rank`): the pairs
planned again from ``rank.json`` and the ranked runs, every judgement replayed against the
verdict its judge returned (:mod:`creval.evaluation.verify.replay`), and the ratings
computed again from the replayed verdicts and held against ``ratings.json``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from creval.models.base import Capabilities
from creval.records import RECORDS, changed_outside, latest_records, read_records

#: A :class:`creval.evaluation.verify.verifying.Verification` (not imported: verify imports this module).
Verification = Any
#: The fields of ``ratings.json`` held against the ratings computed again.
COMPARED = ("models", "ratings", "win_matrix", "ties", "judgements", "failed_parses",
            "failed_requests", "position_bias")


def is_rank_dir(root: Path) -> dict[str, Any] | None:
    """``rank.json`` of the rank output directory ``root``, or None."""
    from creval.evaluation.rank.ranking import RANK_FILE

    try:
        doc = json.loads((root / RANK_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("creval_rank") else None


def verify_rank(root: Path, doc: dict[str, Any], out: Verification) -> None:
    """See the module; every difference into ``out``."""
    from creval.errors import CrevalError
    from creval.evaluation.rank.fit import ratings_document
    from creval.evaluation.rank.items import RankSettings
    from creval.evaluation.rank.ranking import RATINGS, _units, plan_rank
    from creval.evaluation.verify.replay import first_difference, replay_units, short

    out.benchmark = f"rank of {doc.get('benchmark')} runs"
    if (changed := changed_outside(root)) is not None:
        out.differences.append(changed)
    try:
        records = read_records(root / RECORDS)
    except CrevalError as exc:
        out.differences.append(str(exc))
        return
    latest = latest_records(records)
    try:
        ratings = json.loads((root / RATINGS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        ratings = None
        out.differences.append(f"{RATINGS} is missing or not JSON")
    interval = (ratings or {}).get("interval") or {}
    prior = re.match(r"[0-9.eE+-]+", str((ratings or {}).get("prior", "1")))
    settings = RankSettings(
        judges=list(doc.get("judges") or []), out=root, design=str(doc.get("design", "auto")),
        opponents=doc.get("opponents"), anchors=list(doc.get("anchors") or []),
        criterion=str(doc.get("criterion")), prompt_file=doc.get("prompt_file"),
        max_tokens=int(doc.get("max_tokens", 256)), prior=float(prior.group()) if prior else 1.0,
        confidence=float(interval.get("confidence", 0.95)),
        resamples=int(interval.get("resamples", 1000)),
        allow_same_family_judge=False,
    )
    try:
        plan = plan_rank(list((doc.get("runs") or {}).values()), settings)
    except CrevalError:
        try:  # the judges of a rated model's family may have been allowed
            settings.allow_same_family_judge = True
            plan = plan_rank(list((doc.get("runs") or {}).values()), settings)
        except CrevalError as exc:
            out.unverified.append(f"the pairs cannot be planned again from rank.json and the ranked "
                                  f"runs, so no verdict was replayed ({exc})")
            return
    # what each judge was told it could do: whether its recorded requests were constrained
    structured = [any(c.get("request", {}).get("response_schema") is not None
                      for r in latest.values() for c in r.calls if c.get("role") == f"judge{j}")
                  for j in range(len(plan.judges))]
    units = _units(plan, settings, structured)
    caps = {f"judge{j}": Capabilities(structured_output=s) for j, s in enumerate(structured)}
    found = replay_units(units, latest, {"roles": {r: {"capabilities": c.model_dump()}
                                                   for r, c in caps.items()}})
    out.replayed = found.replayed
    out.differences += found.differences
    planned = {u.key for u in units}
    if outside := [k for k in latest if k not in planned]:
        out.unverified.append(f"{len(outside)} recorded judgement(s) are not among the pairs planned "
                              f"again: {', '.join(outside[:5])}")
    if ratings is None:
        return
    try:
        again = ratings_document(plan, settings, [found.records[u.key] for u in units
                                                  if u.key in found.records], {})
    except CrevalError as exc:
        out.differences.append(f"the ratings cannot be computed again from the replayed verdicts: {exc}")
        return
    again = json.loads(json.dumps(again, default=str))
    for name in COMPARED:
        diff = first_difference(again.get(name), ratings.get(name))
        if diff is not None:
            path, mine, theirs = diff
            out.differences.append(f"{RATINGS} {name}{path}: computed again {short(mine)}, the "
                                   f"file says {short(theirs)}")
    out.notes.append(f"a rank: {len(units)} judgement(s) planned again from rank.json and the "
                     "ranked runs, each replayed; the ratings computed again from the verdicts")
