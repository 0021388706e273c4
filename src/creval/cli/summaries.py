"""The summaries that open ``creval references check`` and ``creval compare --published``:
how many published values a run may stand beside, the commonest reasons it may not, and the
command to run next, before the detail.

Reasons are grouped by kind (``temperature=1.0, the paper used 0.7`` and ``temperature=0.2,
the paper used 0.7`` are both "temperature differs from the paper's") so that the commonest
ones say what to change.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

#: Reasons shown in a summary, at most.
TOP_REASONS = 3

_KINDS: tuple[tuple[str, str], ...] = (
    (r"^(?P<x>[\w.-]+)=.*, the paper used ", "{x} differs from the paper's"),
    (r"^(?P<x>[\w.-]+) not recorded", "{x} not recorded"),
    (r"^(?P<x>[\w.-]+): the protocol states no value", "the protocol states no value of {x}"),
    (r"^\d+ items? behind the value", "fewer items than the paper measured"),
    (r"^self-judged", "self-judged (the paper had another judge)"),
    (r"^no judge", "no judge"),
    (r"^no (?P<x>\S+) model", "no {x} model"),
    (r"^(?P<x>\S+) answered as ", "another {x} model than the paper's"),
    (r"^(?P<x>\S+) \S+ \(its endpoint reported no model id\)", "another {x} model than the paper's"),
    (r"^the starter set", "the starter set, not the paper's data"),
    (r"^the data ", "other data than the paper's"),
    (r"^a \S+ run, the paper measured", "another benchmark"),
)


def reason_kind(reason: str) -> str:
    """The kind of a reason why a run is not comparable, as a summary counts it.

    >>> reason_kind("temperature=1.0, the paper used 0.7")
    "temperature differs from the paper's"
    >>> reason_kind("12 items behind the value, the paper measured 100")
    'fewer items than the paper measured'
    >>> reason_kind("something new")
    'something new'
    """
    for pattern, kind in _KINDS:
        if m := re.match(pattern, reason):
            return kind.format(**m.groupdict())
    return reason.split(" (")[0]


def common_reasons(reasons: Iterable[Iterable[str]]) -> list[tuple[str, int]]:
    """The commonest reason kinds over checks (each check counts a kind once), most first.

    >>> common_reasons([["lang=en, the paper used ja", "the starter set, not the paper's data"],
    ...                 ["lang=en, the paper used ja"]])
    [("lang differs from the paper's", 2), ("the starter set, not the paper's data", 1)]
    """
    counts = Counter(kind for why in reasons for kind in dict.fromkeys(map(reason_kind, why)))
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_REASONS]


def _reason_lines(counts: list[tuple[str, int]], of: str) -> list[str]:
    if not counts:
        return []
    return [f"Most common reasons {of}:"] + [f"  - {kind} ({n})" for kind, n in counts]


def check_summary(checks: Sequence[Any], path: Any) -> list[str]:
    """The opening lines of ``creval references check PATH``."""
    runs = len({c.run for c in checks})
    placed = sum(c.comparable for c in checks)
    lines = [f"{placed} of {len(checks)} published value(s) comparable with {path} "
             f"({runs} run(s), {len({(c.run, c.measure) for c in checks})} measure(s))."]
    lines += _reason_lines(common_reasons(c.reasons for c in checks if not c.comparable),
                           "not comparable")
    if placed < len(checks):
        lines.append("Next: run with --preset paper (each paper's judge, data and options) to "
                     f"measure as the papers did; `creval references check {path} --json` "
                     "gives every check as JSON.")
    else:
        lines.append(f"Next: `creval compare {path} --published` compares item by item where a "
                     "paper released its per-item results.")
    return [*lines, "", "Detail:"]


def published_summary(doc: dict[str, Any], path: Any) -> list[str]:
    """The opening lines of ``creval compare PATH --published``: compared runs and verdicts."""
    rows, skipped = doc["rows"], doc["skipped"]
    compared = len({(r["benchmark"]) for r in rows})
    verdicts = Counter(r["verdict"] for r in rows)
    lines = [f"{compared} of {compared + len({s['run'] for s in skipped})} run(s) of {path} "
             f"compared item by item with published models: {len(rows)} comparison(s)"
             + (" (" + ", ".join(f"{n} {v}" for v, n in verdicts.most_common()) + ")."
                if rows else ".")]
    lines += _reason_lines(common_reasons(s["reason"].removeprefix("not comparable: ").split("; ")
                                          for s in skipped), "not compared")
    if skipped:
        lines.append(f"Next: `creval references check {path}` says per published value what "
                     "differs; run with --preset paper to measure as the papers did.")
    return lines
