"""DAT with repeats: the variance split of the trial scores, and people tested twice beside it.

A DAT trial is one draw of the same prompt, so its "item" is only its index: with repeats,
the items' share is expected to be about 0 (a trial that scored high once is not more likely
to score high again), and the variance is the model's sampling. People are different: Olson
et al.'s study 1C tested 50 people twice, two weeks apart, and a person's level carries over.
The report shows both with the same statistics (:func:`creval.metrics.variance.retest_reliability`):
the correlation of two draws, and the spread of one draw around its own level.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from creval.benchmarks.repeats import Observation, repeat_of, with_noise
from creval.records import Record, Scores

if TYPE_CHECKING:
    from creval.benchmarks.dat import DATOptions

MEASURE = "dat_mean"


def dat_noise(scores: Scores, records: list[Record], options: DATOptions) -> Scores:
    """``scores`` with the split of ``dat_mean`` over trials and repeats, the model's
    test-retest (repeat 0 against repeat 1) and, when the dat-humans folder is found, the
    people's (study 1C)."""
    if options.repeats < 2:
        return scores
    by_key = {r.key: r for r in records if r.status == "ok"}
    observations: list[Observation] = []
    for trial in scores.extra("trials", []):
        record = by_key.get(trial.get("key", ""))
        if record is None or trial.get("score") is None:
            continue
        observations.append((int(record.unit.get("trial", 0)), repeat_of(record),
                             float(trial["score"])))
    notes = ["DAT trials are draws of one prompt: their items' share is expected to be about 0, "
             "and the samples' share is the model's sampling noise."]
    scores = with_noise(scores, {MEASURE: observations}, repeats=options.repeats, extra=notes)
    entry: dict[str, Any] = dict(scores.noise.get(MEASURE, {}))
    model = _model_retest(observations)
    if model is not None:
        entry["retest"] = model
    # Olson's people answered in English
    people, note = people_retest(getattr(options, "people", None)) if options.lang == "en" else (None, None)
    if people is not None:
        entry["people_retest"] = people
    notes = [note] if note else []
    return scores.model_copy(update={"noise": {**scores.noise, MEASURE: entry},
                                     "notes": [*scores.notes, *notes]})


def _model_retest(observations: list[Observation]) -> dict[str, Any] | None:
    """Repeat 0 against repeat 1 of the trials valid in both, as people's test and retest."""
    from creval.metrics.variance import retest_reliability

    first = {item: v for item, sample, v in observations if sample == 0}
    second = {item: v for item, sample, v in observations if sample == 1}
    both = sorted(set(first) & set(second), key=str)
    try:
        result = retest_reliability([first[i] for i in both], [second[i] for i in both])
    except ValueError:
        return None
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in asdict(result).items()}


def people_retest(folder: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Study 1C's test-retest (50 people, two weeks apart; the official scorer's scores), or
    None and a note saying how to get it."""
    from creval.benchmarks.dat.humans import read_retest, resolve_people_root
    from creval.metrics.variance import retest_reliability

    root = resolve_people_root(folder)
    if root is None:
        return None, ("People's test-retest (Olson et al. study 1C) not shown: fetch the data "
                      "with `creval data fetch dat-humans` or set $CREVAL_DAT_HUMANS.")
    pairs = read_retest(root)
    result = retest_reliability([a for a, _ in pairs], [b for _, b in pairs])
    out: dict[str, Any] = {k: round(v, 6) if isinstance(v, float) else v
                           for k, v in asdict(result).items()}
    out["source"] = "Olson et al. 2021, study 1C: tested twice, about two weeks apart (GloVe 840B scores)"
    return out, None
