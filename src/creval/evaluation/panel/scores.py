"""A judge panel's scores from its judges' runs: each judge's per-item values (``per_item`` of
its run's ``scores.json``) combined into the panel's per-item values and headline
(:func:`creval.metrics.panel.panel_values`), the judges' agreement matrix
(:func:`creval.metrics.panel.agreement_matrix`) and the judge share of each measure's
variance (the noise split's judge level, :func:`creval.benchmarks.repeats.noise`, with the
panel's judges as the repeated level). No I/O: :mod:`creval.evaluation.panel.panels` reads and
writes the runs; ``creval verify`` re-derives these from the judges' records.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from creval.records import Scores

#: How each ``--panel-aggregate`` combines an item's values, as the notes and the docs say it.
AGGREGATES = {
    "mean": "the mean of the judges' values of each item",
    "majority": "the value most judges gave each item (none where the top count is tied)",
    "trimmed": "the trimmed mean of each item: the single lowest and the single highest "
               "judge's value dropped (a cut of 1/k of k values; it needs 3 values, and with 3 "
               "it is the median)",
}


@dataclass
class Member:
    """One judge of the panel: its spec, run directory (None: never run), the model ids its
    answers reported, whether it is in the panel and, if not, why and when that was decided."""

    spec: str
    dir: str | None = None
    reported: tuple[str, ...] = ()
    included: bool = True
    reason: str | None = None
    decided: str | None = None
    base_url: str | None = None
    scores: Scores | None = None

    @property
    def name(self) -> str:
        return self.spec.split(":", 1)[-1] if ":" in self.spec else self.spec

    def as_dict(self) -> dict[str, Any]:
        return {"spec": self.spec, "dir": self.dir, "base_url": self.base_url,
                "reported": list(self.reported), "included": self.included,
                "excluded_because": self.reason, "decided": self.decided}


def _mean(values: Sequence[float | None]) -> float | None:
    got = [float(v) for v in values if v is not None]
    return statistics.fmean(got) if got else None


def measures(members: Sequence[Member]) -> list[str]:
    """The per-item measures every included judge's run has, with as many values each."""
    runs = [m.scores for m in members if m.included and m.scores is not None]
    if not runs:
        return []
    first = runs[0].per_item
    return [k for k, v in first.items()
            if all(k in s.per_item and len(s.per_item[k]) == len(v) for s in runs)]


def combine(members: Sequence[Member], aggregate: str) -> Scores:
    """The panel's :class:`Scores` from its members' runs (see the module docstring)."""
    from creval.benchmarks.repeats import noise
    from creval.metrics.panel import agreement_matrix, panel_values

    inc = [m for m in members if m.included and m.scores is not None]
    names = measures(members)
    per_item: dict[str, list[float | None]] = {}
    agreement: dict[str, list[dict[str, Any]]] = {}
    observations: dict[str, list[tuple[int, int, float]]] = {}
    for measure in names:
        table = [list(m.scores.per_item[measure]) for m in inc]  # type: ignore[union-attr]
        per_item[measure] = [None if v is None else float(v)
                             for v in panel_values(table, aggregate=aggregate)]  # type: ignore[arg-type]
        if len(inc) >= 2:
            agreement[measure] = [
                {"a": inc[p.a].name, "b": inc[p.b].name, "statistic": p.statistic,
                 "value": p.value, "n": p.n, "exact": p.exact, "note": p.note}
                for p in agreement_matrix(table)]
        observations[measure] = [(i, 0, float(v)) for row in table for i, v in enumerate(row)
                                 if v is not None]
    headline: dict[str, Any] = {m: _mean(per_item[m]) for m in names}
    headline |= {"judges": len(inc), "judged_by": f"panel of {len(inc)} judges ({aggregate})"}
    split = noise(observations, repeats=len(inc)) if len(inc) >= 2 else {}
    per_judge = {m.name: {k: _mean(m.scores.per_item.get(k, [])) for k in names}
                 for m in members if m.scores is not None}
    panel = {"aggregate": aggregate, "how": AGGREGATES[aggregate],
             "members": [m.as_dict() for m in members], "agreement": agreement,
             "per_judge": per_judge}
    return Scores(
        headline=headline, per_item=per_item, noise=split,
        sections=_sections(members, names, agreement, per_judge),
        notes=_notes(aggregate, inc),
        warnings=[f"judge {m.spec} left out of the panel: {m.reason}" for m in members
                  if not m.included],
    ).with_extra(panel=panel)


def _notes(aggregate: str, inc: Sequence[Member]) -> list[str]:
    return [
        f"Judge panel of {len(inc)} ({', '.join(m.spec for m in inc)}): each measure's value of "
        f"an item is {AGGREGATES[aggregate]}; the headline is the mean over items of the "
        "panel's values. Each judge's run, with its records, is in judges/ below this folder.",
        "Agreement between judges: Cohen's kappa for verdicts with two values, Spearman's rho "
        "for scores, each over the items both judges valued, with the share of items given "
        "exactly the same value.",
        "Noise: the panel's judges are the repeated level, so 'judge' is the share of each "
        "measure's variance that is which judge gave the value (items: which item it is).",
        "Family rule: a judge whose answers reported a model of the tested model's family is "
        "left out unless --allow-same-family-judge (creval.evaluation.run.families; decided by "
        "the specs before any call, and by the reported snapshots after each judge's answers).",
    ]


def _fmt(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


def _sections(members: Sequence[Member], names: list[str], agreement: dict[str, list[dict[str, Any]]],
              per_judge: dict[str, dict[str, float | None]]) -> list[dict[str, Any]]:
    judges = [{"judge": m.spec, "reported": ", ".join(m.reported) or "-",
               "in panel": "yes" if m.included else "no",
               **{k: _fmt(per_judge.get(m.name, {}).get(k)) for k in names}} for m in members]
    out = [{"title": "Judge panel: each judge's score", "rows": judges,
            "columns": ["judge", "reported", "in panel", *names],
            "text": "Each judge's mean over the items of its per-item values (the panel's "
                    "headline is of the same values, combined per item)."}]
    if names and agreement.get(names[0]):
        out.append(matrix_section(names[0], agreement[names[0]]))
        rows = [{"measure": k, **{f: _fmt(p[f]) for f in ("a", "b", "statistic", "value", "n", "exact")}}
                for k, pairs in agreement.items() for p in pairs]
        out.append({"title": "Judge panel: agreement per measure", "rows": rows,
                    "columns": ["measure", "a", "b", "statistic", "value", "n", "exact"]})
    excluded = [{"judge": m.spec, "why": m.reason, "decided": m.decided}
                for m in members if not m.included]
    if excluded:
        out.append({"title": "Judge panel: judges left out", "rows": excluded,
                    "columns": ["judge", "why", "decided"]})
    return out


def matrix_section(measure: str, pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """The judge-by-judge matrix of one measure's agreement (1 on the diagonal)."""
    judges = list(dict.fromkeys([*(p["a"] for p in pairs), *(p["b"] for p in pairs)]))
    value = {(p["a"], p["b"]): p["value"] for p in pairs} | {(p["b"], p["a"]): p["value"] for p in pairs}
    rows = [{"judge": a, **{b: 1.0 if a == b else _fmt(value.get((a, b))) for b in judges}}
            for a in judges]
    stat = pairs[0]["statistic"]
    return {"title": f"Judge panel: agreement matrix ({measure}, {stat})", "rows": rows,
            "columns": ["judge", *judges],
            "text": f"{'Cohen' + chr(39) + 's kappa' if stat == 'kappa' else 'Spearman' + chr(39) + 's rho'} "
                    f"between each pair of judges over the items both valued ({pairs[0]['n']} "
                    "for the first pair); '-' where undefined (a judge gave one value throughout)."}


def console_lines(scores: Scores) -> list[str]:
    """What the console says of a panel beyond the headline: each judge's score, the
    agreement matrix of the first measure, and the judges left out with why."""
    panel = scores.extra("panel") or {}
    lines = [f"Judge panel ({panel.get('aggregate')}: {panel.get('how')}):"]
    for member in panel.get("members", []):
        name = member["spec"].split(":", 1)[-1]
        got = panel.get("per_judge", {}).get(name, {})
        shown = ", ".join(f"{k} {v:.4f}" for k, v in got.items() if v is not None) or "no score"
        state = "in panel" if member["included"] else "LEFT OUT"
        lines.append(f"  {member['spec']} [{', '.join(member['reported']) or 'no model id'}] "
                     f"{state}: {shown}")
    for section in scores.sections:
        if section["title"].startswith("Judge panel: agreement matrix"):
            lines.append(f"  {section['title'].removeprefix('Judge panel: ')}:")
            cols = section["columns"][1:]
            for row in section["rows"]:
                cells = " ".join(f"{'-' if row[c] is None else format(row[c], '.3f'):>8}" for c in cols)
                lines.append(f"    {row['judge']:>20} {cells}")
    for member in panel.get("members", []):
        if not member["included"]:
            lines.append(f"  left out: {member['spec']}: {member['excluded_because']} "
                         f"({member['decided']})")
    return lines
