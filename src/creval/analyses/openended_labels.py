"""Seed 001's analyses against human labels: entailment models (Table 6) and judges (Table 2).

Both read a CSV labels file whose human labels sit in *annotator columns*: every column whose
name starts with ``annotator`` (``annotator_1``, ``annotator_2``, ...) holds one person's
yes/no labels (yes/no, 1/0, true/false; a blank cell = not labelled). The gold label of an
item is the majority of its annotators; an item whose annotators tie has no gold label and is
left out (counted in ``ties``).

Entailment pairs (:func:`entailment_frame`), one row per pair::

    id,text_a,text_b,annotator_1,annotator_2,annotator_3
    p1,Tie the rope to the hook.,Fasten the rope to the hook.,yes,yes,no

Judge labels (:func:`judge_accuracy_frame`), one row per solution and criterion; ``id`` is the
solution's problem id in the run (or the unit key of a ``macgyver-judges`` run)::

    id,criterion,annotator_1,annotator_2,annotator_3,annotator_4,annotator_5
    mg-001,feasibility,yes,yes,no,yes,yes
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.analyses.base import AnalysisResult
from creval.analyses.openended_runs import (
    all_verdicts,
    binary,
    open_runs,
    read_csv_rows,
    run_labels,
    unit_aliases,
    verdicts,
)
from creval.errors import CrevalError
from creval.reader import Run

if TYPE_CHECKING:
    import pandas as pd

SEED = "001"
DIRECTIONS = ("both", "forward", "lenient")
DEFAULT_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))


def _annotators(header: Sequence[str], path: Path) -> list[str]:
    names = [h for h in header if h.lower().startswith("annotator")]
    if not names:
        raise CrevalError(f"{path}: no annotator columns; name each person's labels annotator_1, annotator_2, ...")
    return names


def _gold(labels: Sequence[bool | None]) -> bool | None:
    """The majority of the given labels; None when none or tied.

    >>> _gold([True, True, False]), _gold([True, False]), _gold([None, False])
    (True, None, False)
    """
    from creval.metrics.agreement import majority_vote

    given = [x for x in labels if x is not None]
    if not given:
        return None
    (top,) = majority_vote([given])
    return None if top is None else bool(top)


def _pairwise_kappa(table: dict[str, list[bool | None]]) -> pd.DataFrame:
    """Cohen's kappa between every two annotators over the items both labelled (Table 7)."""
    import pandas as pd

    from creval.metrics.agreement import cohen_kappa

    names = list(table)
    rows = []
    for a in names:
        row: dict[str, Any] = {"annotator": a}
        for b in names:
            both = [(x, y) for x, y in zip(table[a], table[b], strict=True) if x is not None and y is not None]
            row[b] = None if a == b or not both else cohen_kappa([x for x, _ in both], [y for _, y in both]).kappa
        rows.append(row)
    return pd.DataFrame(rows)


def _annotated_lines(
    file: Path, required: list[str]
) -> tuple[list[str], list[tuple[int, dict[str, str], dict[str, Any]]]]:
    """The annotator columns of a labels CSV and, per line, its number, its cells and its
    labels (each annotator's yes/no and the majority ``gold``)."""
    header, lines = read_csv_rows(file, required)
    names = _annotators(header, file)
    out = []
    for number, line in enumerate(lines, start=2):
        labels = [binary(line[n], f"{file}:{number} {n}") for n in names]
        out.append((number, line, {**dict(zip(names, labels, strict=True)), "gold": _gold(labels)}))
    return names, out


# -- entailment models (Table 6) --------------------------------------------------------------
def read_entailment_labels(path: str | Path) -> tuple[pd.DataFrame, list[str]]:
    """The labelled pairs: ``id``, ``text_a``, ``text_b``, each annotator's label and ``gold``."""
    import pandas as pd

    file = Path(path)
    names, labelled = _annotated_lines(file, ["text_a", "text_b"])
    rows = []
    for number, line, labels in labelled:
        if not line["text_a"].strip() or not line["text_b"].strip():
            raise CrevalError(f"{file}:{number}: text_a and text_b must both hold a text.")
        rows.append({"id": line.get("id", "").strip() or str(number - 1), "text_a": line["text_a"],
                     "text_b": line["text_b"], **labels})
    return pd.DataFrame(rows), names


def _classify(spec: str, pairs: list[tuple[str, str]], generate: Any) -> list[Any]:
    from creval.nli import CachingEntailment, get_entailment

    backend = CachingEntailment(get_entailment(spec, generate=generate))
    return asyncio.run(backend.classify(pairs))


def _score(result: Any) -> float | None:
    """A directed verdict's entailment score: the probability, or the embedding's cosine."""
    if result.probabilities and "entailment" in result.probabilities:
        return float(result.probabilities["entailment"])
    return None if result.score is None else float(result.score)


def _both(forward: float | None, backward: float | None) -> float | None:
    return None if forward is None or backward is None else min(forward, backward)


def entailment_frame(
    labels: str | Path, models: Sequence[str], *, direction: str = "both",
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS, generate: Any = None,
) -> dict[str, pd.DataFrame]:
    """Table 6 and a threshold sweep: each entailment model (an ``creval.nli`` spec) against
    the gold labels of the pairs in ``labels``.

    ``direction``: ``both`` (the pair is entailment when each text entails the other, the
    bidirectional test the clustering uses; default), ``forward`` (text_a entails text_b) or
    ``lenient`` (the clustering's lenient mode). The paper's annotators judged "whether
    entailment was present in each pair"; it does not say in which direction.

    The sweep turns each model's entailment score (its entailment probability; the cosine
    similarity for ``embedding``; the smaller of the two directions for ``both`` and
    ``lenient``) into verdicts ``score >= threshold``. Backends without scores (``llm``) are
    not swept. Returns ``{"models", "sweep", "agreement", "labels"}`` frames.
    """
    import pandas as pd

    from creval.metrics.agreement import cohen_kappa
    from creval.metrics.partition import equivalent
    from creval.metrics.threshold import threshold_sweep

    if direction not in DIRECTIONS:
        raise CrevalError(f"--direction takes {', '.join(DIRECTIONS)}, got {direction!r}.")
    if not models:
        raise CrevalError("Name at least one entailment model (--model hf:PATH, embedding:0.85, llm).")
    pairs, names = read_entailment_labels(labels)
    kept = pairs[pairs["gold"].notna()]
    if kept.empty:
        raise CrevalError(f"{labels}: no pair has a majority label.")
    gold = [bool(g) for g in kept["gold"]]
    forward = list(zip(kept["text_a"], kept["text_b"], strict=True))
    backward = [(b, a) for a, b in forward]
    rows, sweep = [], []
    for spec in models:
        results = _classify(spec, forward + ([] if direction == "forward" else backward), generate)
        fwd, bwd = results[: len(forward)], results[len(forward):]
        if direction == "forward":
            judged = [r.label == "entailment" for r in fwd]
            scores = [_score(r) for r in fwd]
        else:
            mode = "strict" if direction == "both" else "lenient"
            judged = [equivalent(f.label, b.label, mode=mode) for f, b in zip(fwd, bwd, strict=True)]
            scores = [_both(_score(f), _score(b)) for f, b in zip(fwd, bwd, strict=True)]
        tally = list(zip(gold, judged, strict=True))
        row: dict[str, Any] = {
            "model": spec, "pairs": len(tally), "accuracy": sum(g == j for g, j in tally) / len(tally),
            "kappa": cohen_kappa(gold, judged, labels=[True, False]).kappa,
            "true_positive": sum(g and j for g, j in tally), "false_positive": sum(j and not g for g, j in tally),
            "true_negative": sum(not g and not j for g, j in tally),
            "false_negative": sum(g and not j for g, j in tally),
            "approximate": any(r.approximate for r in results), "failed": sum(r.failed for r in results),
        }
        if all(s is not None for s in scores):
            points = threshold_sweep([float(s) for s in scores if s is not None], gold, thresholds)
            best = max(points, key=lambda p: p.accuracy)
            row.update(best_threshold=best.threshold, best_accuracy=best.accuracy)
            sweep += [{"model": spec, "threshold": p.threshold, "accuracy": p.accuracy, "kappa": p.kappa}
                      for p in points]
        rows.append(row)
    table = {n: list(pairs[n]) for n in names}
    counts = pd.DataFrame([{"verdict": "positive", "pairs": sum(gold)},
                           {"verdict": "negative", "pairs": len(gold) - sum(gold)},
                           {"verdict": "tie (left out)", "pairs": int(pairs["gold"].isna().sum())}])
    frame = pd.DataFrame(rows).sort_values("accuracy", ascending=False, kind="stable", ignore_index=True)
    return {"models": frame, "sweep": pd.DataFrame(sweep, columns=["model", "threshold", "accuracy", "kappa"]),
            "agreement": _pairwise_kappa(table), "labels": counts}


def entailment_analysis(labels: str | Path, models: Sequence[str], *, direction: str = "both",
                        thresholds: Sequence[float] = DEFAULT_THRESHOLDS, generate: Any = None) -> AnalysisResult:
    frames = entailment_frame(labels, models, direction=direction, thresholds=thresholds, generate=generate)
    frame, sweep = frames["models"], frames["sweep"]
    plots: list[dict[str, Any]] = [{"title": "Accuracy against the majority label", "kind": "bar",
                                    "ylabel": "accuracy", "data": {"labels": list(frame["model"]),
                                                                   "values": list(frame["accuracy"])}}]
    if not sweep.empty:
        xs = sorted(set(sweep["threshold"]))
        plots.append({"title": "Accuracy per threshold on the entailment score", "kind": "line",
                      "xlabel": "threshold", "ylabel": "accuracy",
                      "data": {"x": xs, "series": {m: [next(iter(g[g.threshold == x]["accuracy"]), None) for x in xs]
                                                   for m, g in sweep.groupby("model", sort=False)}}})
    notes = [f"Labels: {labels}; gold = the annotators' majority (ties left out). Direction: {direction} "
             "(both = each text entails the other, the clustering's test)."]
    if frame["approximate"].any():
        notes.append("Models marked approximate are the embedding-similarity fallback, not NLI models; "
                     "their scores are cosine similarities.")
    return AnalysisResult(
        name="entailment_models", title="Entailment models against human-labelled pairs",
        frame=frame, seed_paper=SEED, reproduces="Tables 6-8",
        tables={"Threshold sweep": sweep, "Annotator agreement, Cohen's kappa (Table 7)": frames["agreement"],
                "Gold labels (Table 8)": frames["labels"]},
        plots=plots, notes=notes,
        options={"labels": str(labels), "models": list(models), "direction": direction,
                 "thresholds": list(thresholds)},
    )


# -- judge accuracy (Table 2, Figure 8) -------------------------------------------------------
def read_judge_labels(path: str | Path) -> tuple[pd.DataFrame, list[str]]:
    """The labelled (solution, criterion) items: ``id``, ``criterion``, each annotator's label
    and ``gold``."""
    import pandas as pd

    file = Path(path)
    names, labelled = _annotated_lines(file, ["id", "criterion"])
    rows = [{"id": line["id"].strip(), "criterion": line["criterion"].strip().lower(), **labels}
            for _, line, labels in labelled]
    frame = pd.DataFrame(rows)
    dup = frame[frame.duplicated(["id", "criterion"])]
    if not dup.empty:
        raise CrevalError(f"{file}: {dup.iloc[0]['id']} / {dup.iloc[0]['criterion']} appears twice; "
                          "give one row per solution and criterion.")
    return frame, names


def _accuracy_row(rater: str, kind: str, predicted: dict[tuple[str, str], bool | None],
                  items: pd.DataFrame, criteria: list[str]) -> dict[str, Any]:
    row: dict[str, Any] = {"rater": rater, "kind": kind}
    right = scored = undecided = 0
    for criterion in criteria:
        mine = items[items["criterion"] == criterion]
        c_right = c_scored = 0
        for ident, gold in zip(mine["id"], mine["gold"], strict=True):
            guess = predicted.get((ident, criterion))
            if guess is None:
                undecided += 1
                continue
            c_scored += 1
            c_right += guess == gold
        row[criterion] = c_right / c_scored if c_scored else None
        right, scored = right + c_right, scored + c_scored
    row.update(accuracy=right / scored if scored else None, items=scored, undecided=undecided)
    return row


def judge_accuracy_frame(runs: Sequence[str | Path | Run], labels: str | Path, *,
                         judge: str | None = None) -> pd.DataFrame:
    """Table 2: accuracy of each run's judges (every judge the run holds, or ``judge``), and of
    each annotator, against the majority-vote gold label, per criterion and over all
    (solution, criterion) items.

    Items without a gold label (annotators tied) are left out. A judge verdict that did not
    parse, or a labelled solution the run did not judge, is ``undecided`` and left out of the
    judge's accuracy. Annotators are scored against the majority of all annotators, themselves
    included (the paper does not say otherwise). Several runs (the multi-agent judge at several
    ``--judge-threshold`` values) give one row each, with the threshold (Figure 8, appendix D.5).
    """
    import pandas as pd

    opened = open_runs(runs, benchmarks=("macgyver", "hypogen", "bookmia", "macgyver-judges"))
    names_label = run_labels(opened)
    items_all, names = read_judge_labels(labels)
    items = items_all[items_all["gold"].notna()]
    if items.empty:
        raise CrevalError(f"{labels}: no item has a majority label.")
    criteria = list(dict.fromkeys(items["criterion"]))
    rows = []
    for run in opened:
        judges = all_verdicts(run) if judge is None else dict([verdicts(run, judge)])
        alias = unit_aliases(run)
        unknown = sorted({i for i in items["id"] if i not in alias})
        if len(unknown) == items["id"].nunique():
            raise CrevalError(f"No labelled id is a solution of {run.path} (e.g. {unknown[0]!r}); "
                              "the labels' id column must hold the run's problem ids.")
        for name, judged in sorted(judges.items()):
            predicted = {(i, c): judged.get(alias.get(i, ""), {}).get(c)
                         for i, c in zip(items["id"], items["criterion"], strict=True)}
            row = _accuracy_row(f"{name} @ {names_label[run.path]}", "judge", predicted, items, criteria)
            row["judge"] = name
            # the multi-agent judge's early-exit confidence (appendix D.5); others have none
            row["threshold"] = run.manifest.options.get("judge_threshold") if name == "multiagent" else None
            row["run"] = str(run.path)
            rows.append(row)
    for annotator in names:
        predicted = {(i, c): v for i, c, v in zip(items["id"], items["criterion"], items[annotator], strict=True)}
        rows.append(_accuracy_row(annotator, "annotator", predicted, items, criteria))
    return pd.DataFrame(rows)


def judge_accuracy_analysis(runs: Sequence[str | Path | Run], labels: str | Path, *,
                            judge: str | None = None) -> AnalysisResult:
    frame = judge_accuracy_frame(runs, labels, judge=judge)
    items, _ = read_judge_labels(labels)
    plots: list[dict[str, Any]] = [{"title": "Accuracy against the majority-vote gold label", "kind": "bar",
                                    "ylabel": "accuracy", "data": {"labels": list(frame["rater"]),
                                                                   "values": list(frame["accuracy"])}}]
    judges = frame[frame["kind"] == "judge"].dropna(subset=["threshold"])
    if judges["threshold"].nunique() > 1:
        xs = sorted(set(judges["threshold"]))
        plots.append({"title": "Multi-agent judge accuracy per confidence threshold (Figure 8)", "kind": "line",
                      "xlabel": "confidence threshold", "ylabel": "accuracy",
                      "data": {"x": xs, "series": {"multiagent": [judges[judges.threshold == x]["accuracy"].mean()
                                                                  for x in xs]}}})
    share = items.dropna(subset=["gold"]).groupby("criterion", sort=False)["gold"].mean().reset_index()
    return AnalysisResult(
        name="judge_accuracy", title="Judge and annotator accuracy against majority-vote gold labels",
        frame=frame, seed_paper=SEED, reproduces="Table 2, Table 19 and Figure 8",
        tables={"Share of yes in the gold labels (Table 19)": share.rename(columns={"gold": "share_yes"})},
        plots=plots,
        notes=[f"Labels: {labels}; gold = majority of the annotators per (solution, criterion); ties left out.",
               "Accuracy over all labelled (solution, criterion) items; per-criterion columns alike. "
               "Undecided = a verdict that did not parse or a solution the run did not judge (left out).",
               "Annotators are scored against the majority including their own label."],
        options={"labels": str(labels), "judge": judge},
    )
