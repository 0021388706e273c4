"""How a judge panel's run stands against other runs and published values: a panel and a
single judge are different conditions, and two panels differ when their members do (by the
snapshots each member's answers reported, else its spec) or when they combine their values
differently (``--panel-aggregate``). Used by :mod:`creval.evaluation.compare.conditions` (a panel's
run against a paper's protocol) and :mod:`creval.evaluation.compare.run_groups` (``creval compare``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def is_panel(judge: str | None) -> bool:
    """Whether ``--judge`` names several judges (a comma-separated list).

    >>> is_panel("openai:gpt-4o,openai:claude-3-5-sonnet"), is_panel("openai:gpt-4o"), is_panel(None)
    (True, False, False)
    """
    return judge is not None and "," in judge


def first_judge(judge: str | None) -> str | None:
    """The first judge of a panel (each benchmark's plan is checked with it), else ``judge``.

    >>> first_judge("openai:a, openai:b"), first_judge("local")
    ('openai:a', 'local')
    """
    return judge.split(",", 1)[0].strip() if is_panel(judge) else judge  # type: ignore[union-attr]


def panel_of(manifest: Any) -> dict[str, Any] | None:
    """The ``panel`` entry of a run's manifest (a dict or a :class:`creval.records.Manifest`),
    or None for a run with one judge (or none)."""
    if isinstance(manifest, Mapping):
        panel = manifest.get("panel")
    else:
        panel = (getattr(manifest, "model_extra", None) or {}).get("panel")
    return panel if isinstance(panel, dict) else None


def members(panel: Mapping[str, Any]) -> list[str]:
    """The judges in the panel, each by the snapshots its answers reported (else its spec).

    >>> members({"members": [{"spec": "openai:j", "reported": ["gpt-4o-2024-08-06"], "included": True},
    ...                      {"spec": "openai:k", "reported": [], "included": False}]})
    ['gpt-4o-2024-08-06']
    """
    return [", ".join(m.get("reported") or []) or str(m.get("spec"))
            for m in panel.get("members", []) if m.get("included")]


def panel_reason(panel: Mapping[str, Any]) -> str:
    """Why a panel's value is not a single judge's (said against a published protocol)."""
    return (f"judged by a panel of {len(members(panel))} judges ({'; '.join(members(panel))}; "
            f"{panel.get('aggregate')} per item), not by one judge: a panel and a single judge "
            "are different conditions")


def panel_differences(first: Any, other: Any) -> list[str] | None:
    """How ``other``'s judging differs from ``first``'s (manifests) when either is a panel;
    None when neither is (the single-judge rules apply).

    >>> a = {"panel": {"aggregate": "mean", "members": [{"spec": "x", "included": True}]}}
    >>> panel_differences(a, {}), panel_differences({}, {}) is None
    (['judged by one judge, the first run by a panel of 1 judges (x)'], True)
    """
    pa, pb = panel_of(first), panel_of(other)
    if pa is None and pb is None:
        return None
    if pa is None or pb is None:
        what = "a panel of" if pb is not None else "one judge"
        panel = pa if pb is None else pb
        assert panel is not None
        said = f"{len(members(panel))} judges ({'; '.join(members(panel))})"
        if pb is None:
            return [f"judged by one judge, the first run by a panel of {said}"]
        return [f"judged by {what} {said}, the first run by one judge"]
    out = []
    if sorted(members(pa)) != sorted(members(pb)):
        out.append(f"a judge panel of {'; '.join(members(pb))}, the first run's was "
                   f"{'; '.join(members(pa))}")
    if pa.get("aggregate") != pb.get("aggregate"):
        out.append(f"panel aggregate {pb.get('aggregate')}, the first run's was {pa.get('aggregate')}")
    return out
