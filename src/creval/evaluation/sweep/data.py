"""What a sweep says, read from its run directories: per option value, each divergent measure
beside a quality measure of the same run, with bootstrap intervals; and two sweeps compared at
matched quality and at each shared value.

The pairs, per benchmark (:func:`measure_pairs`, as each declares them in its
``sweep_pairing``), each item carrying both values:

- ``dat``: the DAT score (mean over valid trials) against the valid-answer rate (trials whose
  answer gave a score, over the trials answered);
- ``sat``: the distance of the rewrite from the original against the complete-rewrite rate
  (rewrites that are not empty and ended on their own, not cut at ``--max-tokens``); creval's
  SAT has no judge, so this is a validity measure, not a rubric;
- ``ttct``, ``jcq``: the judge's originality against its rubric mean, per judged answer;
- ``macgyver``, ``hypogen``, ``bookmia``: semantic entropy against each judge's overall
  verdict, per solution;
- ``neocoder``: divergent against convergent creativity at each state ``t``, per problem.
- ``noveltybench``: the number of distinct answers among k against the judge's mean rating
  of the k answers, per prompt.
- ``aut``: the originality of the uses (the run's ``--scorer``: semdis, regressor or judge)
  against the valid-use rate (valid distinct uses listed over the uses asked, at most 1),
  per object; AUT has no quality rating of a use, so, as DAT's, its quality side is validity.

Other benchmarks have no such pair and cannot be swept.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from creval.errors import CrevalError
from creval.reader import Run, read_run
from creval.records.declarations import SweepPair, SweepPairing

SWEEP_FORMAT = 1
Pair = SweepPair


def _declared(benchmark: str) -> SweepPairing | None:
    from creval.benchmarks import registry

    cls = registry().get(benchmark)
    return None if cls is None else cls.sweep_pairing


def sweepable() -> tuple[str, ...]:
    """The benchmarks with a divergent measure and a quality measure of the same run, as each
    declares (``Benchmark.sweep_pairing``)."""
    from creval.benchmarks import registry

    return tuple(name for name, cls in registry().items() if cls.sweep_pairing is not None)


def measure_pairs(run: Run) -> list[Pair]:
    """The divergent and quality measures of a scored run, item by item, as its benchmark
    declares them (see the module docstring); empty for a benchmark without such a pair or a
    run not scored yet."""
    pairing = _declared(run.benchmark)
    if pairing is None or run.scores is None:
        return []
    return pairing.pairs(run.records, run.scores)


def check_sweepable(names: Sequence[str]) -> None:
    """Stop when a name is no benchmark (with the closest one) or a benchmark has no
    divergent/quality pair to draw."""
    from creval.benchmarks.base import get_benchmark

    for name in names:
        get_benchmark(name)  # "Unknown benchmark 'datt'. Did you mean 'dat'?"
    known = sweepable()
    wrong = [n for n in names if n not in known]
    if wrong:
        raise CrevalError(
            f"{', '.join(wrong)} cannot be swept: a sweep draws a divergent measure against a "
            f"quality measure of the same run, which only {', '.join(known)} have.")


def point_dir(root: Path, option: str, value: float) -> Path:
    """The folder of one option value: ``ROOT/temperature-0.7``."""
    return root / f"{option}-{value!r}"


def _ci(values: Sequence[float | None], confidence: float) -> dict[str, Any]:
    """The mean of a point's items with its interval (none, and the reason, when too few)."""
    from creval.metrics.intervals import mean_interval

    kept = [float(v) for v in values if v is not None]
    if not kept:
        return {"estimate": None, "low": None, "high": None, "n": 0,
                "interval": "no valid item: nothing to average"}
    ci = mean_interval(kept, confidence=confidence)
    return {"estimate": ci.mean, "low": ci.low, "high": ci.high, "n": len(kept),
            "interval": ci.reason}


def _point(value: float, run: Run, pair: Pair, root: Path, confidence: float) -> dict[str, Any]:
    d, q = _ci(pair.divergent, confidence), _ci(pair.quality, confidence)
    return {"value": value, "benchmark": run.benchmark, "measure": pair.measure,
            "label": pair.label, **d, "quality_measure": pair.quality_measure,
            "quality_label": pair.quality_label, "quality": q["estimate"],
            "quality_low": q["low"], "quality_high": q["high"], "quality_n": q["n"],
            "quality_interval": q["interval"],
            "run": str(run.path.relative_to(root))}


def sweep_runs(root: Path, option: str, values: Sequence[float],
               benchmarks: Sequence[str]) -> list[tuple[float, Run]]:
    """The scored runs of a sweep directory, value by value (missing ones left out)."""
    out = []
    for value in values:
        for name in benchmarks:
            path = point_dir(root, option, value) / name
            if (path / "scores.json").is_file():
                out.append((value, read_run(path)))
    return out


def assemble_sweep(root: Path, header: dict[str, Any], *, confidence: float = 0.95,
                   resamples: int = 2000) -> dict[str, Any]:
    """The ``sweep.json`` document of a sweep directory (``header``: option, values,
    benchmarks, model, ...): one point per value and measure pair, and per curve the trend of
    each side against the option value."""
    runs = sweep_runs(root, header["option"], header["values"], header["benchmarks"])
    points = [_point(value, run, pair, root, confidence)
              for value, run in runs for pair in measure_pairs(run)]
    curves = []
    for key in dict.fromkeys((p["benchmark"], p["measure"], p["quality_measure"]) for p in points):
        items = [(v, pair) for v, run in runs for pair in measure_pairs(run)
                 if (run.benchmark, pair.measure, pair.quality_measure) == key]
        curves.append({"benchmark": key[0], "measure": key[1], "quality_measure": key[2],
                       "trend": _trend(items, "divergent", resamples),
                       "quality_trend": _trend(items, "quality", resamples)})
    missing = [f"{name} at {header['option']}={v!r}" for v in header["values"]
               for name in header["benchmarks"] if not any(
                   val == v and r.benchmark == name for val, r in runs)]
    return {"creval_sweep": SWEEP_FORMAT, **header, "confidence": confidence,
            "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "points": points,
            "curves": curves, "missing": missing}


def _trend(items: list[tuple[float, Pair]], side: str, resamples: int) -> dict[str, Any] | None:
    """Spearman's rho of the per-item values against the option value, with its interval
    and test from the same resamples (none, and the reason, when too few values were swept
    or too few items measured); None with fewer than 3 items."""
    from creval.metrics.curves import spearman_trend

    pairs = [(v, x) for v, pair in items for x in getattr(pair, side) if x is not None]
    if len(pairs) < 3:
        return None
    t = spearman_trend([v for v, _ in pairs], [x for _, x in pairs], resamples=resamples)
    return {"rho": t.rho, "low": t.low, "high": t.high, "p": t.p, "n": t.n,
            "values": t.values, "resamples": t.resamples, "note": t.reason}


def curve_items(root: Path, doc: dict[str, Any], benchmark: str, measure: str,
                quality_measure: str) -> tuple[list[float], list[list[float | None]],
                                               list[list[float | None]]]:
    """One curve of a sweep as ``(values, divergent items, quality items)``, for
    :mod:`creval.metrics.curves`: values whose run has the pair, in increasing order."""
    values, divergent, quality = [], [], []
    for value, run in sweep_runs(root, doc["option"], doc["values"], [benchmark]):
        for pair in measure_pairs(run):
            if (pair.measure, pair.quality_measure) == (measure, quality_measure):
                values.append(value)
                divergent.append(pair.divergent)
                quality.append(pair.quality)
    return values, divergent, quality


def compare_documents(a: tuple[Path, dict[str, Any]], b: tuple[Path, dict[str, Any]], *,
                      target: float | None = None, confidence: float = 0.95,
                      resamples: int = 2000) -> dict[str, Any]:
    """Two sweeps ``(directory, sweep.json)`` of the same option compared on every curve they
    share: the divergent measure at matched quality (``target``, default the middle of the
    quality range both curves span) and, at each value both ran, A minus B."""
    from creval.metrics.curves import default_target, matched_difference

    (root_a, doc_a), (root_b, doc_b) = a, b
    if doc_a["option"] != doc_b["option"]:
        raise CrevalError(f"{root_a} sweeps {doc_a['option']} and {root_b} sweeps "
                          f"{doc_b['option']}: compare sweeps of the same option.")
    keys_a = [(c["benchmark"], c["measure"], c["quality_measure"]) for c in doc_a["curves"]]
    keys_b = {(c["benchmark"], c["measure"], c["quality_measure"]) for c in doc_b["curves"]}
    shared = [k for k in keys_a if k in keys_b]
    if not shared:
        raise CrevalError(f"{root_a} and {root_b} share no curve (benchmark and measures): "
                          "sweep the same benchmark in both.")
    comparisons = []
    for key in shared:
        ca, cb = curve_items(root_a, doc_a, *key), curve_items(root_b, doc_b, *key)
        chosen = target if target is not None else default_target(_on_curve(ca), _on_curve(cb))
        row: dict[str, Any] = {"benchmark": key[0], "measure": key[1], "quality_measure": key[2],
                               "target": chosen, "fixed": _fixed(ca, cb, confidence)}
        if chosen is None:
            row["note"] = ("the two curves' quality ranges do not overlap: no quality both "
                           "reach, so no matched comparison (pass --at-quality to choose one)")
        else:
            m = matched_difference(ca, cb, target=chosen, confidence=confidence,
                                   resamples=resamples)
            row.update(a=_matched(m.a), b=_matched(m.b), difference=m.difference,
                       low=m.low, high=m.high, reached=m.reached)
        comparisons.append(row)
    return {"creval_sweep_compare": SWEEP_FORMAT, "option": doc_a["option"],
            "a": {"dir": str(root_a), "model": doc_a.get("model")},
            "b": {"dir": str(root_b), "model": doc_b.get("model")},
            "confidence": confidence, "comparisons": comparisons}


def _on_curve(curve: tuple[list[float], list[Any], list[Any]]) -> list[float | None]:
    """The quality means of the points that are on the curve: those with a divergent value
    (a point without one, such as DAT with no valid trial, cannot be matched)."""
    return [q for d, q in zip(_means(curve[1]), _means(curve[2]), strict=True) if d is not None]


def _means(items: list[list[float | None]]) -> list[float | None]:
    out: list[float | None] = []
    for values in items:
        kept = [v for v in values if v is not None]
        out.append(sum(kept) / len(kept) if kept else None)
    return out


def _matched(m: Any) -> dict[str, Any]:
    return {"value": m.value, "estimate": m.estimate, "low": m.low, "high": m.high,
            "reached": m.reached}


def _fixed(ca: tuple[list[float], list[Any], list[Any]], cb: tuple[list[float], list[Any], list[Any]],
           confidence: float) -> list[dict[str, Any]]:
    """At each value both curves have: A minus B on the divergent measure, with each side's
    quality beside it."""
    from creval.metrics.curves import mean_difference_ci

    out = []
    for i, value in enumerate(ca[0]):
        if value not in cb[0]:
            continue
        j = cb[0].index(value)
        da = [float(x) for x in ca[1][i] if x is not None]
        db = [float(x) for x in cb[1][j] if x is not None]
        row: dict[str, Any] = {"value": value, "a": _means([ca[1][i]])[0],
                               "b": _means([cb[1][j]])[0], "a_quality": _means([ca[2][i]])[0],
                               "b_quality": _means([cb[2][j]])[0],
                               "difference": None, "low": None, "high": None}
        if da and db:
            ci = mean_difference_ci(da, db, confidence=confidence)
            row.update(difference=ci.mean, low=ci.low, high=ci.high, interval=ci.reason)
        out.append(row)
    return out
