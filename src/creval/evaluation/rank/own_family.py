"""Judges of a rated model's own family in ``creval rank``: their verdicts on that model's
pairs are left out, as a judge panel leaves out a judge of the tested model's family
(:mod:`creval.evaluation.run.families`, ``docs/judges.md``).

A judge that favours its own family's answers would lift that model's rating, so by default
a judge does not decide a pair in which one of the two answers comes from a model of its
family; the other judges (and the other pairs) still rate that model. Decided twice, as for
panels:

- **before any call**, by the judge's spec and each run's model, read from the snapshots its
  answers reported (its spec when none reported one), where both are a known maker's model
  line (:func:`by_spec`): those judgements are never asked;
- **after the judgements**, by the model ids the judge's own answers reported
  (:func:`by_answers`): a judge whose answers say it is of a rated model's family keeps its
  records (cached and shown), but its verdicts on that model's pairs are not in the fit.

``--allow-same-family-judge`` keeps every verdict. A model left with no judged pair is
refused before any call, with the judges and the fix named.

>>> from types import SimpleNamespace as NS
>>> runs = {"gpt-4o-mini": {"openai"}, "claude-3-haiku": {"anthropic"}}
>>> by_spec(runs, ["openai:gpt-4o", "openai:my-judge"])
{('openai:gpt-4o', 'gpt-4o-mini'): 'gpt-4o is of the openai family, as the rated model gpt-4o-mini (by their specs, before any call)'}
>>> judged(("gpt-4o-mini", "claude-3-haiku"), "openai:gpt-4o", by_spec(runs, ["openai:gpt-4o"]))
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.errors import CrevalError
from creval.evaluation.compare.conditions import bare
from creval.evaluation.rank.items import judged
from creval.evaluation.run.families import family, known_family

if TYPE_CHECKING:
    from creval.evaluation.rank.items import RankedRun
    from creval.records import Record

#: (judge spec, model label) -> why the judge does not decide that model's pairs.
Excluded = dict[tuple[str, str], str]


def run_families(runs: Sequence[RankedRun]) -> dict[str, set[str]]:
    """Each rated run's label -> the families of the snapshots its answers reported (its
    spec's family when none did), read from the run's records."""
    from creval.evaluation.compare.evidence import read_evidence

    out = {}
    for r in runs:
        target = read_evidence(r.run.path, r.run.records).asked.get("target")
        reported = sorted(target.reported) if target is not None else []
        out[r.label] = {family(n) for n in reported} or {family(r.run.model)}
    return out


def by_spec(families: Mapping[str, set[str]], judges: Sequence[str]) -> Excluded:
    """The judges whose spec names a known maker's model line of a rated model's family."""
    out: Excluded = {}
    for judge in judges:
        maker = known_family(judge)
        for label, fams in families.items():
            if maker is not None and maker in fams:
                out[(judge, label)] = (f"{bare(judge)} is of the {maker} family, as the rated model "
                                       f"{label} (by their specs, before any call)")
    return out


def by_answers(families: Mapping[str, set[str]], judges: Sequence[str], out: Path,
               records: list[Record]) -> Excluded:
    """The judges whose answers reported a model id of a rated model's family, read from the
    judgements in ``out`` as comparability reads a run's (:mod:`creval.evaluation.compare.evidence`;
    judge ``j`` asks as role ``judge{j}``)."""
    from creval.evaluation.compare.evidence import read_evidence

    sent = read_evidence(out, records).sent
    out_: Excluded = {}
    for j, judge in enumerate(judges):
        ids = set(sent[f"judge{j}"].reported) if f"judge{j}" in sent else set()
        for label, fams in families.items():
            shared = sorted(n for n in ids if family(n) in fams)
            if shared:
                out_[(judge, label)] = (f"{bare(judge)}'s answers reported {', '.join(shared)} "
                                        f"({family(shared[0])} family), as the rated model {label}")
    return out_


def check_left(pairs: Sequence[tuple[str, str]], judges: Sequence[str], excluded: Excluded) -> None:
    """Refuse a plan in which some model has no pair any judge may decide."""
    models = sorted({m for p in pairs for m in p})
    alone = [m for m in models if not any(judged(p, j, excluded) for p in pairs if m in p for j in judges)]
    if alone:
        why = "; ".join(sorted({excluded[k] for k in excluded if k[1] in alone}))
        raise CrevalError(f"No judge may decide the pairs of {', '.join(alone)}: {why}. Add a judge of "
                          "another family (--judge a,b), or pass --allow-same-family-judge to keep them.")


def listed(excluded: Excluded, when: str) -> list[dict[str, Any]]:
    """The exclusions as the ratings document lists them."""
    return [{"judge": j, "model": m, "reason": why, "decided": when} for (j, m), why in sorted(excluded.items())]


__all__ = ["Excluded", "by_answers", "by_spec", "check_left", "listed", "run_families"]
