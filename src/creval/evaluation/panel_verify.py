"""A judge panel's run directory: its manifest (:func:`panel_manifest`), and ``creval verify``
of it (:func:`verify_panel`): every judge's run verified from its own records, the panel's
membership decided again from the snapshots those records hold, and the panel's scores
combined again from the judges' verified scores and held against its ``scores.json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.evaluation.panel_scores import AGGREGATES, Member, combine
from creval.records import Scores

if TYPE_CHECKING:
    from creval.evaluation.panel import PanelSpec
    from creval.evaluation.verify import Verification


def panel_manifest(out: Path, first: dict[str, Any], members: list[Member],
                   panel: PanelSpec) -> dict[str, Any]:
    """The panel's ``manifest.json``: the first judge's run's (benchmark, tested model,
    options, digests), its ``judge`` the panel's members, and ``panel`` every judge (those
    left out too, with why and when that was decided)."""
    from creval._util.redact import redact_argv

    kept = [m for m in members if m.included]
    identities = []
    for m in kept:
        try:
            judged = json.loads((out / str(m.dir) / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            judged = {}
        identities.append((judged.get("judge") or {}).get("identity") or {"spec": m.spec})
    manifest = {k: v for k, v in first.items() if k != "executor"}
    manifest["judge"] = {"spec": "panel:" + ",".join(m.spec for m in kept),
                         "identity": {"panel": identities}}
    manifest["panel"] = {
        "judges": list(panel.judges), "aggregate": panel.aggregate,
        "how": AGGREGATES[panel.aggregate], "allow_same_family": panel.allow_same_family,
        "family_rule": "creval.evaluation.families",
        "members": [m.as_dict() for m in members],
    }
    manifest["command"] = redact_argv(sys.argv)
    return manifest


def is_panel_dir(root: Path) -> dict[str, Any] | None:
    """The manifest of the panel run at ``root``, or None (not a panel's run directory)."""
    try:
        manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get("panel"), dict) else None


def verify_panel(root: Path, manifest: dict[str, Any], out: Verification) -> Verification:
    """``creval verify`` of a panel's run directory (see the module docstring)."""
    from creval.evaluation.panel import _decide_by_snapshots
    from creval.evaluation.verify import _same, verify_run

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
        _decide_by_snapshots(m, root / m.dir, str(manifest.get("model_spec")),
                             bool(panel.get("allow_same_family")))
        if m.included != bool(entry.get("included")):
            out.differences.append(
                f"{m.spec}: the manifest has it {'in' if entry.get('included') else 'out of'} the "
                f"panel, but the snapshots in {m.dir}/records.jsonl put it "
                f"{'in' if m.included else 'out'}{': ' + str(m.reason) if m.reason else ''}")
    try:
        written = Scores.model_validate_json((root / "scores.json").read_bytes())
    except (OSError, ValueError):
        out.differences.append("scores.json is missing or not a creval scores file")
        return out
    again = combine(members, str(panel.get("aggregate", "mean")))
    for name in dict.fromkeys([*written.per_item, *again.per_item]):
        if not _same(written.per_item.get(name), again.per_item.get(name)):
            out.differences.append(f"per-item {name}: scores.json and the panel combined again "
                                   "from the judges' runs differ")
    for name in dict.fromkeys([*written.headline, *again.headline]):
        if not _same(written.headline.get(name), again.headline.get(name)):
            out.differences.append(f"headline {name}: scores.json {written.headline.get(name)!r}, "
                                   f"combined again {again.headline.get(name)!r}")
    out.notes.append(f"a judge panel: {len(members)} judge(s); each judge's run verified from its "
                     "records, the panel combined again from their scores")
    return out
