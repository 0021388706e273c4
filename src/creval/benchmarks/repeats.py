"""Repeats: K independent samples per item, and the noise floor they give (issue 27).

``--repeats K`` asks every item (every trial, for DAT) K times. Repeat 0 is the run without
repeats: the same unit keys, samples and seeds, so a run with ``repeats=1`` is today's run and
raising K later resumes it, asking only the new units. Repeat ``r >= 1`` is a unit of its own
(key ``KEY~rR``) whose samples are sample indices ``r * REPEAT_STRIDE + i`` (so seeds
``seed + r * REPEAT_STRIDE + i``: distinct seeds, cache keys and replayed answers). A judged
benchmark asks the judge twice for each sample of a repeat ``r >= 1`` (judge sample indices
``2r`` and ``2r + 1``: distinct judge seeds, so the cache does not hand back a verdict given
before), at the judge's own temperature; the second verdict feeds only the variance split.

:func:`noise` splits each measure's variance into items, samples within items and judge
within samples (:func:`creval.metrics.variance.variance_components`) for ``scores.json``'s
``noise``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from creval.benchmarks.base import BenchmarkOptions, option
from creval.records import Record, Scores

#: Sample indices of repeat ``r`` start at ``r * REPEAT_STRIDE``.
REPEAT_STRIDE = 1_000_000
#: Judgements asked per sample in a repeat ``r >= 1`` (repeat 0 asks one, as without repeats).
JUDGEMENTS = 2

#: An observation of a measure: (item, sample label within the item, value); several values
#: of one sample are its judgements.
Observation = tuple[Hashable, Hashable, float]


class RepeatOptions(BenchmarkOptions):
    """The options of a benchmark that can repeat its items."""

    repeats: int = option(
        1, "Independent samples per item (per trial for DAT), each with seeds of its own; from 2 "
        "on, the report splits each measure's variance into items, samples and judge (the "
        "noise floor). Raising it later asks only the new samples.", kind="scale", ge=1,
    )


def repeat_key(key: str, repeat: int) -> str:
    """The unit key of ``repeat`` of the unit ``key``: the key itself for repeat 0.

    >>> repeat_key("trial-00003", 0), repeat_key("trial-00003", 2)
    ('trial-00003', 'trial-00003~r2')
    """
    return key if repeat == 0 else f"{key}~r{repeat}"


def repeat_meta(meta: dict[str, Any], repeat: int) -> dict[str, Any]:
    """A unit's meta with its repeat (none for repeat 0: today's records)."""
    return meta if repeat == 0 else {**meta, "repeat": repeat}


def first_sample(repeat: int, sample: int = 0) -> int:
    """The sample index of sample ``sample`` of ``repeat``."""
    return repeat * REPEAT_STRIDE + sample


def judge_samples(repeat: int) -> list[int]:
    """The judge's sample indices for each verdict on one sample of ``repeat``.

    >>> judge_samples(0), judge_samples(1), judge_samples(3)
    ([0], [2, 3], [6, 7])
    """
    return [0] if repeat == 0 else [JUDGEMENTS * repeat + j for j in range(JUDGEMENTS)]


def repeat_of(record: Record) -> int:
    """The repeat a record belongs to (0 for the records of a run without repeats)."""
    return int(record.unit.get("repeat", 0))


def noise(
    observations: Mapping[str, Sequence[Observation]], *, repeats: int
) -> dict[str, dict[str, Any]]:
    """Per measure: the shares of ``items``, ``samples`` and ``judge`` (None where that level
    was not repeated), the ``reliability`` (ICC(1), the test-retest correlation of one draw),
    no interval (``interval`` None, ``interval_note`` says why: the bootstrap over items covered
    26-93% in simulation, and the F interval of ICC(1) 82-93% on skewed data), the components
    themselves (``variance``), counts, and the noise ``floor``: the smallest
    difference between two one-draw runs over these items that sampling and judging alone
    would not reach 95% of the time. A measure that cannot be split says why (``error``)."""
    from creval.metrics.variance import noise_floor, variance_components

    out: dict[str, dict[str, Any]] = {}
    for measure, rows in observations.items():
        values, items = [v for _, _, v in rows], [i for i, _, _ in rows]
        samples = [s for _, s, _ in rows]
        try:
            split = variance_components(values, items=items, samples=samples)
        except ValueError as exc:
            out[measure] = {"error": str(exc), "n_values": len(rows), "repeats": repeats}
            continue
        shares = split.shares()
        out[measure] = {
            **{k: _round(v) for k, v in shares.items()},
            "reliability": _round(split.reliability),
            "variance": {"items": _round(split.items), "samples": _round(split.samples),
                         "judge": _round(split.judge)},
            "n_items": split.n_items, "n_samples": split.n_samples, "n_values": split.n_values,
            "repeats": repeats,
            "floor": _round(noise_floor(split, n_items=split.n_items)),
            "truncated": list(split.truncated),
            "interval": None,
            "interval_note": NO_SPLIT_INTERVAL,
        }
    return out


#: Why the shares and the reliability have no interval (bench/README.md, interval coverage).
NO_SPLIT_INTERVAL = ("no interval: no method creval tried covers at 95% on skewed data (the "
                     "bootstrap over items 26-93%, the F interval of ICC(1) 82-93% at 2-30 items)")


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def with_noise(
    scores: Scores, observations: Mapping[str, Sequence[Observation]], *, repeats: int,
    extra: Iterable[str] = (),
) -> Scores:
    """``scores`` with ``noise`` and a note, when the run has repeats (else unchanged)."""
    if repeats < 2:
        return scores
    split = noise(observations, repeats=repeats)
    note = (f"Repeats: {repeats} independent samples per item; 'noise' splits each measure's "
            "variance into items, samples and judge (ANOVA estimator of the nested "
            "random-effects model) and gives the noise floor. The headline averages every "
            "sample.")
    return scores.model_copy(update={"noise": split, "notes": [*scores.notes, note, *extra]})
