"""A run that produced nothing says so: which measure has no valid item, why (counts per
reason) and the likely fix, and the exit status :data:`EXIT_NO_SCORE`.

A run *finished without a score* when its units finished but no headline measure has a
value because its items were invalid or did not parse (the judge never parsed, no answer
was a valid list: the scorer counted them). A single measure with no valid item (its
per-item values all missing) is named the same way in a run that scored others. Failed
units are not this (they exit 1 and are retried), nor units a benchmark skipped.

Exit codes of ``creval run``, ``creval sweep`` and ``creval profile`` (docs/usage.md): 0
done, 1 units failed (run the same command again to retry them), 2 bad input (nothing run),
3 finished without a score: no run of ``run`` or ``sweep`` has one, no measure of the
profile has a value (``--allow-no-score`` makes that 0; a profile with some unscored
measures exits 0 with their warnings).

>>> from creval.records import Scores, UnitCounts
>>> s = Scores(headline={"dat_mean": None, "dat_std": None, "valid_trials": 0,
...                      "invalid_trials": 2}, per_item={"dat_mean": []},
...            units=UnitCounts(total=2, finished=2)).with_extra(
...            summary={"invalid_reasons": {"fewer than 7 valid words": 2}})
>>> u = unscored(s, fixes_for={"constrain_answers": False})
>>> u.measures, u.reasons, u.no_score
(['dat_mean'], [('fewer than 7 valid words', 2)], True)
>>> print(u.message("dat"))
dat produced no score: dat_mean has no valid item (2 of 2 trials invalid: fewer than 7 valid words 2). Likely fix: --constrain-answers (the model is asked for a JSON list of words); or a --model that follows the answer format.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from creval.records import Scores

__all__ = ["EXIT_NO_SCORE", "Unscored", "profile_scored", "unscored", "with_unscored"]

#: Exit status of a run that finished without a score.
EXIT_NO_SCORE = 3
#: Headline keys that describe a measure (its spread, interval or size), not a measure.
_NOT_MEASURES = ("_std", "_low", "_high", "_n", "_sd")
#: Headline counts of items that did not parse or were invalid, as a reason each.
_COUNTS = {"parse_failures": "judgements did not parse", "unparsed": "answers did not parse",
           "invalid_trials": "trials invalid", "invalid": "answers invalid"}


@dataclass(frozen=True)
class Unscored:
    """Measures without a value, the reasons with their counts, and what to try."""

    measures: list[str]
    reasons: list[tuple[str, int]]
    fixes: list[str]
    #: True when no measure of the run has a value at all.
    no_score: bool
    detail: str = ""

    def message(self, benchmark: str) -> str:
        """One paragraph for the console and the report."""
        head = (f"{benchmark} produced no score" if self.no_score
                else f"{benchmark}: some measures have no value")
        why = "; ".join(f"{reason} {count}" for reason, count in self.reasons)
        detail = f"{self.detail}: {why}" if self.detail and why else self.detail or why
        what = f" ({detail})" if detail else ""
        fix = f" Likely fix: {'; or '.join(self.fixes)}." if self.fixes else ""
        names = ", ".join(self.measures)
        verb = "has" if len(self.measures) == 1 else "have"
        return f"{head}: {names} {verb} no valid item{what}.{fix}"


def _is_value(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


def _reasons(scores: Scores) -> tuple[list[tuple[str, int]], str]:
    """Counts per reason, most common first, and a short "n of m" detail."""
    head = scores.headline
    invalid = (scores.extra("summary", {}) or {}).get("invalid_reasons") or {}
    counts: Counter[str] = Counter({str(k): int(v) for k, v in invalid.items()})
    failures = scores.extra("parse_failures", []) or []
    if isinstance(failures, list):
        counts.update(str(f.get("error") or "did not parse").splitlines()[0][:120]
                      for f in failures if isinstance(f, dict))
    if not counts:
        counts.update({label: int(head[key]) for key, label in _COUNTS.items()
                       if _is_value(head.get(key)) and head[key]})
    detail = ""
    if _is_value(head.get("invalid_trials")) and head["invalid_trials"]:
        total = int(head["invalid_trials"]) + int(head.get("valid_trials") or 0)
        detail = f"{int(head['invalid_trials'])} of {total} trials invalid"
    elif _is_value(head.get("parse_failures")) and head["parse_failures"]:
        total = int(head["parse_failures"]) + int(head.get("parsed") or 0)
        detail = f"{int(head['parse_failures'])} of {total} judgements did not parse"
    return counts.most_common(5), detail


def _fixes(scores: Scores, fixes_for: dict[str, Any]) -> list[str]:
    head = scores.headline
    fixes = []
    if head.get("parse_failures") or scores.extra("parse_failures"):
        if fixes_for.get("structured_judge") is False:
            fixes.append("--structured-judge true (the judge's answers are held to the rubric's "
                         "JSON shape)")
        fixes += ["--structured-output auto (the judge is held to the JSON shape where the "
                  "server supports it)", "a stronger --judge"]
    if "constrain_answers" in fixes_for and not fixes_for["constrain_answers"]:
        fixes.append("--constrain-answers (the model is asked for a JSON list of words)")
    if not fixes:
        fixes.append("read the answers in report.md (Items) and check the model follows the "
                     "prompt's format")
    if head.get("invalid_trials") or head.get("unparsed") or head.get("invalid"):
        fixes.append("a --model that follows the answer format")
    return fixes


def unscored(scores: Scores, *, fixes_for: dict[str, Any] | None = None) -> Unscored | None:
    """The measures of ``scores`` with no valid item, or None when every measure has a value
    (or no unit finished: failed units are reported as such; or the scorer counted no
    invalid or unparsed item, so there is no reason to give). ``fixes_for``: the run's
    options that a fix may name (``{"constrain_answers": False}`` when the benchmark has it).

    >>> from creval.records import Scores, UnitCounts
    >>> unscored(Scores(headline={"mean": 3.5}, units=UnitCounts(total=1, finished=1))) is None
    True
    """
    if scores.units.finished == 0:
        return None
    head = scores.headline
    measures = [k for k, v in head.items() if v is None and not k.endswith(_NOT_MEASURES)]
    no_score = bool(measures) and not any(
        isinstance(v, float) and math.isfinite(v) for k, v in head.items()
        if not k.endswith(_NOT_MEASURES))
    empty = [k for k, values in scores.per_item.items()
             if k in head and head[k] is None and not any(v is not None for v in values)]
    if not no_score and not empty:
        return None
    reasons, detail = _reasons(scores)
    if not reasons:  # no item was invalid or unparsed (skipped ones, say): nothing to fix
        return None
    return Unscored(measures if no_score else empty, reasons, _fixes(scores, fixes_for or {}),
                    no_score, detail)


def with_unscored(scores: Scores, benchmark: str, options: dict[str, Any]) -> Scores:
    """``scores`` with the "produced no score" warning (once) when :func:`unscored` finds
    a measure without a valid item."""
    u = unscored(scores, fixes_for={k: v for k, v in options.items()
                                    if k in ("constrain_answers", "structured_judge")})
    if u is None:
        return scores
    warning = u.message(benchmark)
    if warning in scores.warnings:
        return scores
    return scores.model_copy(update={"warnings": [*scores.warnings, warning]})


def profile_scored(document: dict[str, Any]) -> bool:
    """Whether any measure of a profile document (``profile.json``) has a value.

    >>> doc = {"families": [{"measurements": [{"value": None}, {"value": 0.5}]}]}
    >>> profile_scored(doc), profile_scored({"families": [{"measurements": [{"value": None}]}]})
    (True, False)
    """
    return any(m.get("value") is not None for family in document.get("families", [])
               for m in family.get("measurements", []))
