"""``creval verify`` of a judge panel's run directory (:func:`verify_panel`): every judge's run verified from its own records, the panel's
membership decided again from the snapshots those records hold, and the panel's scores
combined again from the judges' verified scores and held against its ``scores.json``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from creval.evaluation.panel.scores import Member, combine
from creval.evaluation.run.families import judged_family
from creval.records import Scores

#: A :class:`creval.evaluation.verify.verifying.Verification` (not imported: verify imports this module).
Verification = Any


def is_panel_dir(root: Path) -> dict[str, Any] | None:
    """The manifest of the panel run at ``root``, or None (not a panel's run directory)."""
    try:
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get("panel"), dict) else None


def verify_panel(root: Path, manifest: dict[str, Any], out: Verification, *,
                 verify_run: Callable[[Path], Verification],
                 same: Callable[[Any, Any], bool]) -> None:
    """``creval verify`` of a panel's run directory into ``out`` (see the module docstring):
    each judge's run by ``verify_run``, values compared by ``same`` (those of
    :mod:`creval.evaluation.verify.verifying`)."""

    panel = manifest["panel"]
    out.benchmark = str(manifest.get("benchmark", ""))
    members: list[Member] = []
    for entry in panel.get("members", []):
        m = Member(entry["spec"], dir=entry.get("dir"), base_url=entry.get("base_url"))
        members.append(m)
        if m.dir is None:  # left out before any call
            m.included, m.reason, m.decided = False, entry.get("excluded_because"), entry.get("decided")
            continue
        judged = verify_run(root / m.dir)
        out.differences += [f"{m.dir}: {d}" for d in judged.differences]
        out.changed_since += [f"{m.dir}: {d}" for d in judged.changed_since]
        out.notes += [f"{m.dir}: {n}" for n in judged.notes]
        try:
            m.scores = Scores.model_validate_json((root / m.dir / "scores.json").read_bytes())
        except (OSError, ValueError):
            continue  # verify_run said so
        m.reported, why = judged_family(root / m.dir, str(manifest.get("model_spec")), m.spec)
        if why is not None and not panel.get("allow_same_family"):
            m.included, m.reason = False, why
        if m.included != bool(entry.get("included")):
            out.differences.append(
                f"{m.spec}: the manifest has it {'in' if entry.get('included') else 'out of'} the "
                f"panel, but the snapshots in {m.dir}/records.jsonl put it "
                f"{'in' if m.included else 'out'}{': ' + str(m.reason) if m.reason else ''}")
    try:
        written = Scores.model_validate_json((root / "scores.json").read_bytes())
    except (OSError, ValueError):
        out.differences.append("scores.json is missing or not a creval scores file")
        return
    again = combine(members, str(panel.get("aggregate", "mean")))
    for name in dict.fromkeys([*written.per_item, *again.per_item]):
        if not same(written.per_item.get(name), again.per_item.get(name)):
            out.differences.append(f"per-item {name}: scores.json and the panel combined again "
                                   "from the judges' runs differ")
    for name in dict.fromkeys([*written.headline, *again.headline]):
        if not same(written.headline.get(name), again.headline.get(name)):
            out.differences.append(f"headline {name}: scores.json {written.headline.get(name)!r}, "
                                   f"combined again {again.headline.get(name)!r}")
    out.notes.append(f"a judge panel: {len(members)} judge(s); each judge's run verified from its "
                     "records, the panel combined again from their scores")
