"""Seed 001's analyses of semantic entropy over open-ended runs.

* :func:`naive_entropy_frame` - the naive-entropy ablation (appendix C.9.1, Table 15);
* :func:`diversity_frame` - semantic entropy against the diversity baselines (C.4, Tables 9-11);
* :func:`convergent_frame` - semantic entropy against the judge's criteria (6.3, Figure 6,
  appendix F, Table 21);
* :func:`temperature_frame` - semantic entropy against temperature and the number of
  clusters (6.1, Figure 4a-c).

Each reads scored runs only (see :mod:`.openended_runs`); each ``*_analysis`` wraps the frame
for the report.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.analyses.base import AnalysisResult
from creval.analyses.openended_runs import (
    DIVERSITY,
    estimator_option,
    open_runs,
    read_csv_rows,
    run_labels,
    step_rows,
    steps_frame,
    verdicts,
)
from creval.errors import CrevalError
from creval.reader import Run

if TYPE_CHECKING:
    import pandas as pd

SEED = "001"
LOGPROB_FIELD = {"length_normalised": "logprob_mean", "probability_weighted": "logprob_sum"}


def _corr(x: Sequence[float], y: Sequence[float]) -> tuple[float | None, float | None, int]:
    """Spearman's rho and p, None when fewer than 3 pairs or an input is constant."""
    from creval.metrics.stats import spearman

    if len(x) < 3:
        return None, None, len(x)
    c = spearman(list(x), list(y))
    return c.r, c.p, c.n


# -- the naive-entropy ablation (Table 15) -----------------------------------------------------
def read_novelty(path: str | Path) -> pd.DataFrame:
    """Novelty ranks of solutions: columns ``run`` (None = every run), ``id``, ``rank``
    (1 = most novel; several rows for one solution, e.g. one per annotator, are averaged, as
    the paper averaged its five annotators' ranks).

    Two formats:

    * CSV with a header holding ``id`` and either ``rank`` (1 = most novel) or ``novelty`` (a
      score, higher = more novel; turned into ``-novelty``, which ranks alike); optional
      ``run`` (a run directory, its folder name or its model spec) and any other columns
      (``annotator``...), which are ignored;
    * the JSON ``creval novelty --mode pool --out FILE`` writes: each run's ``order``.
    """
    import pandas as pd

    file = Path(path)
    rows: list[dict[str, Any]] = []
    if file.suffix.lower() == ".json":
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise CrevalError(f"{file} is not readable JSON ({exc}).") from None
        if not isinstance(data, dict) or data.get("mode") != "pool":
            raise CrevalError(f"{file}: a JSON novelty file is what `creval novelty --mode pool --out` writes.")
        for model in data.get("models", []):
            for rank, ident in enumerate(model.get("order") or [], start=1):
                rows.append({"run": str(model["run"]), "id": str(ident), "rank": float(rank)})
    else:
        header, lines = read_csv_rows(file, ["id"])
        if "rank" not in header and "novelty" not in header:
            raise CrevalError(f"{file}: the header needs a rank (1 = most novel) or a novelty column.")
        column = "rank" if "rank" in header else "novelty"
        for number, line in enumerate(lines, start=2):
            try:
                value = float(line[column])
            except ValueError:
                raise CrevalError(f"{file}:{number}: {column} {line[column]!r} is not a number.") from None
            rows.append({"run": line.get("run", "").strip() or None, "id": line["id"].strip(),
                         "rank": value if column == "rank" else -value})
    if not rows:
        raise CrevalError(f"{file} holds no novelty ranks.")
    frame = pd.DataFrame(rows)
    return frame.groupby(["run", "id"], dropna=False, as_index=False)["rank"].mean()


def _matches(value: Any, run: Run, label: str) -> bool:
    if value is None or value != value:  # None or NaN: applies to every run
        return True
    text = str(value)
    return text in (str(run.path), run.path.name, run.model, label) or Path(text).resolve() == run.path.resolve()


def solution_entropies(run: Run, estimator: str = "length_normalised") -> pd.DataFrame:
    """Per solution of ``run``: the semantic, naive and predictive entropy, each the mean over
    the scored steps where ``estimator`` exists (natural log).

    Naive entropy (:func:`creval.metrics.naive_entropy.naive_entropy`) is computed from the
    recorded candidates of the same steps with exact-text classes instead of meaning classes
    and the same estimator; predictive entropy is ``-mean(log P(s|x))`` (None for the discrete
    estimator, which has no probabilities).
    """
    import pandas as pd

    from creval.metrics.naive_entropy import naive_entropy, predictive_entropy

    estimator_option(estimator)
    scored = {(str(r["id"]), r["step"]): r for r in step_rows(run) if r.get(estimator) is not None}
    field = LOGPROB_FIELD.get(estimator)
    rows = []
    for record in run.records:
        if record.status != "ok":
            continue
        ident = str(record.unit.get("id"))
        semantic, naive, predictive = [], [], []
        for step in record.output.get("steps", []):
            row = scored.get((ident, step["step"]))
            if row is None:
                continue
            valid = [c for c in step["candidates"] if c.get("valid")]
            texts = [c["text"] for c in valid]
            logps = None if field is None else [float(c[field]) for c in valid]
            semantic.append(float(row[estimator]))
            naive.append(naive_entropy(texts, logps))
            if logps is not None:
                predictive.append(predictive_entropy(logps))
        if semantic:
            rows.append({"id": ident, "steps": len(semantic), "semantic_entropy": statistics.fmean(semantic),
                         "naive_entropy": statistics.fmean(naive),
                         "predictive_entropy": statistics.fmean(predictive) if predictive else None})
    return pd.DataFrame(rows, columns=["id", "steps", "semantic_entropy", "naive_entropy", "predictive_entropy"])


def naive_entropy_frame(
    runs: Sequence[str | Path | Run], novelty: str | Path | pd.DataFrame, *, estimator: str = "length_normalised"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 15: per run (model), Spearman's rho of naive and of semantic entropy (and of the
    predictive entropy) with the novelty rank (1 = most novel, so a negative rho means more
    entropy goes with more novel solutions, as in the paper's table). Returns the table and
    the per-solution values behind it."""
    import pandas as pd

    opened = open_runs(runs)
    labels = run_labels(opened)
    ranks = novelty if isinstance(novelty, pd.DataFrame) else read_novelty(novelty)
    table, points = [], []
    for run in opened:
        label = labels[run.path]
        mine = ranks[[_matches(v, run, label) for v in ranks["run"]]]
        rank = dict(zip(mine["id"].astype(str), mine["rank"], strict=True))
        values = solution_entropies(run, estimator)
        values = values[values["id"].isin(rank)]
        values.insert(0, "model", label)
        values["novelty_rank"] = [rank[i] for i in values["id"]]
        points.append(values)
        row: dict[str, Any] = {"model": label, "solutions": len(values)}
        for kind in ("naive", "semantic", "predictive"):
            kept = values.dropna(subset=[f"{kind}_entropy"])
            rho, p, _ = _corr(list(kept[f"{kind}_entropy"]), list(kept["novelty_rank"]))
            row[f"rho_{kind}"], row[f"p_{kind}"] = rho, p
        row["run"] = str(run.path)
        table.append(row)
    if not any(len(p) for p in points):
        raise CrevalError("No solution of the runs has a novelty rank: the ids (and run column) of "
                          "the novelty file must name the runs' problems.")
    return pd.DataFrame(table), pd.concat(points, ignore_index=True)


def naive_entropy_analysis(runs: Sequence[str | Path | Run], novelty: str | Path,
                           *, estimator: str = "length_normalised") -> AnalysisResult:
    frame, points = naive_entropy_frame(runs, novelty, estimator=estimator)
    return AnalysisResult(
        name="naive_entropy", title="Naive vs semantic entropy against novelty rank (Spearman)",
        frame=frame, seed_paper=SEED, reproduces="Table 15",
        tables={"Per solution: entropies and novelty rank": points},
        plots=[{"title": "Spearman rho with the novelty rank", "kind": "bar", "ylabel": "rho",
                "data": {"labels": list(frame["model"]),
                         "series": {"naive entropy": list(frame["rho_naive"]),
                                    "semantic entropy": list(frame["rho_semantic"])}}}],
        notes=[f"Novelty ranks from {novelty}; rank 1 = most novel, so negative rho = more entropy, "
               "more novel (the paper's sign).",
               f"Entropies: {estimator} estimator, mean over the scored steps. Naive entropy = the "
               "same estimator over exact-text classes instead of meaning classes (the paper does not "
               "define it further); predictive entropy = -mean log P(s|x) (Kuhn et al.), for reference."],
        options={"novelty": str(novelty), "estimator": estimator},
    )


# -- diversity baselines (Tables 9-11) -------------------------------------------------------
def diversity_frame(runs: Sequence[str | Path | Run], *, estimator: str = "length_normalised") -> pd.DataFrame:
    """Tables 9-11: per run (model) and diversity metric, Spearman's rho between step-level
    semantic entropy and the metric over the scored steps with two or more valid candidates."""
    import pandas as pd

    estimator_option(estimator)
    steps = steps_frame(open_runs(runs))
    rows = []
    for metric in DIVERSITY:
        for model, group in steps.groupby("model", sort=False):
            kept = group.dropna(subset=[estimator, metric])
            rho, p, n = _corr(list(kept[estimator]), list(kept[metric]))
            rows.append({"metric": metric, "model": model, "rho": rho, "p": p, "steps": n})
    return pd.DataFrame(rows)


def diversity_analysis(runs: Sequence[str | Path | Run], *, estimator: str = "length_normalised") -> AnalysisResult:
    frame = diversity_frame(runs, estimator=estimator)
    models = list(dict.fromkeys(frame["model"]))
    return AnalysisResult(
        name="se_diversity", title="Semantic entropy vs diversity metrics per step (Spearman)",
        frame=frame, seed_paper=SEED, reproduces="Tables 9-11",
        plots=[{"title": "Spearman rho of step-level semantic entropy with each diversity metric",
                "kind": "bar", "ylabel": "rho",
                "data": {"labels": list(DIVERSITY),
                         "series": {m: [frame[(frame.metric == d) & (frame.model == m)]["rho"].iloc[0]
                                        for d in DIVERSITY] for m in models}}}],
        notes=[f"Step level: one point per scored step with 2+ valid candidates; {estimator} entropy. "
               "Metrics as the scorer computed them (cosine similarity with the run's diversity embedder)."],
        options={"estimator": estimator},
    )


# -- convergent criteria (Figure 6, Table 21) ------------------------------------------------
def convergent_frame(
    runs: Sequence[str | Path | Run], *, judge: str | None = None, estimator: str = "length_normalised",
    bin_size: int = 15,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 21: per run (model) and criterion, Spearman's rho between solution-level semantic
    entropy (``se_<estimator>`` of the scores table) and the judge's verdict (yes = 1, no = 0;
    unparsed verdicts left out). Also Figure 6's points: per run and criterion, solutions
    sorted by entropy in groups of ``bin_size``, each the median entropy and mean verdict."""
    import pandas as pd

    from creval.metrics.binning import fixed_count_bins

    estimator_option(estimator)
    opened = open_runs(runs)
    labels = run_labels(opened)
    rows, bins = [], []
    for run in opened:
        name, judged = verdicts(run, judge)
        scores = run.scores
        entropy = {str(r["id"]): r.get(f"se_{estimator}") for r in (scores.table if scores else [])}
        criteria = sorted({c for v in judged.values() for c in v})
        for criterion in criteria:
            pairs = [(float(x), float(y)) for i, v in judged.items()
                     if (x := entropy.get(i)) is not None and (y := v.get(criterion)) is not None]
            rho, p, n = _corr([x for x, _ in pairs], [y for _, y in pairs])
            rows.append({"model": labels[run.path], "judge": name, "criterion": criterion, "rho": rho,
                         "p": p, "solutions": n, "share_yes": statistics.fmean(y for _, y in pairs) if pairs else None})
            if pairs:
                for b in fixed_count_bins([x for x, _ in pairs], [y for _, y in pairs], size=bin_size):
                    bins.append({"model": labels[run.path], "criterion": criterion,
                                 "median_entropy": b.x, "mean_verdict": b.y, "points": b.n})
    return pd.DataFrame(rows), pd.DataFrame(bins, columns=["model", "criterion", "median_entropy", "mean_verdict", "points"])


def convergent_analysis(runs: Sequence[str | Path | Run], *, judge: str | None = None,
                        estimator: str = "length_normalised", bin_size: int = 15) -> AnalysisResult:
    frame, bins = convergent_frame(runs, judge=judge, estimator=estimator, bin_size=bin_size)
    wide = frame.pivot_table(index="model", columns="criterion", values="rho", aggfunc="first", sort=False)
    plots = []
    for model, group in bins.groupby("model", sort=False):
        xs = sorted(set(group["median_entropy"]))
        series = {c: [next(iter(g[g.median_entropy == x]["mean_verdict"]), None) for x in xs]
                  for c, g in group.groupby("criterion")}
        plots.append({"title": f"{model}: mean verdict per group of {bin_size} solutions",
                      "kind": "line", "xlabel": "median semantic entropy", "ylabel": "share judged yes",
                      "data": {"x": xs, "series": series}})
    return AnalysisResult(
        name="se_convergent", title="Semantic entropy vs convergent criteria (Spearman)",
        frame=frame, seed_paper=SEED, reproduces="Table 21 and Figure 6",
        tables={"Spearman rho, model x criterion (Table 21)": wide.reset_index(),
                f"Binned points (Figure 6): groups of {bin_size} by entropy": bins},
        plots=plots[:6],
        notes=[f"Solution-level {estimator} semantic entropy (mean over steps) against the judge's "
               "binary verdict per criterion (yes = 1); unparsed verdicts are left out.",
               f"Figure 6: solutions sorted by entropy, cut into groups of {bin_size} (the last group "
               "keeps the remainder); each point is the group's median entropy and mean verdict."],
        options={"judge": judge, "estimator": estimator, "bin_size": bin_size},
    )


# -- temperature and clusters (Figure 4a-c) ---------------------------------------------------
def temperature_frame(runs: Sequence[str | Path | Run], *, estimator: str = "length_normalised"
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 4: per run, its model and sampling temperature, the mean step-level semantic
    entropy (4b), Spearman's rho of step entropy with the number of clusters (4a) and with the
    mean pairwise cosine similarity of the candidates (4c); and the mean step entropy per number
    of clusters per run (the points of 4a)."""
    import pandas as pd

    estimator_option(estimator)
    opened = open_runs(runs)
    steps = steps_frame(opened).dropna(subset=[estimator])
    rows = []
    for run in opened:
        mine = steps[steps["run"] == str(run.path)]
        clusters = mine.dropna(subset=["clusters"])
        cosine = mine.dropna(subset=["cosine_similarity"])
        rho_c, p_c, _ = _corr(list(clusters[estimator]), list(clusters["clusters"]))
        rho_s, p_s, _ = _corr(list(cosine[estimator]), list(cosine["cosine_similarity"]))
        rows.append({"benchmark": run.benchmark, "model": run.model,
                     "temperature": run.manifest.options.get("temperature"),
                     "steps": len(mine), "mean_step_entropy": mine[estimator].mean() if len(mine) else None,
                     "mean_clusters": mine["clusters"].mean() if len(mine) else None,
                     "rho_clusters": rho_c, "p_clusters": p_c, "rho_cosine": rho_s, "p_cosine": p_s,
                     "run": str(run.path)})
    frame = pd.DataFrame(rows).sort_values(["benchmark", "model", "temperature"], kind="stable", ignore_index=True)
    per_cluster = (steps.groupby(["model", "clusters"], as_index=False)
                   .agg(mean_step_entropy=(estimator, "mean"), steps=(estimator, "size")))
    return frame, per_cluster


def temperature_analysis(runs: Sequence[str | Path | Run], *, estimator: str = "length_normalised") -> AnalysisResult:
    frame, per_cluster = temperature_frame(runs, estimator=estimator)
    temps = sorted({t for t in frame["temperature"] if t is not None})
    mixed = frame["benchmark"].nunique() > 1
    by_temp = {(f"{b}: {m}" if mixed else m): [next(iter(g[g.temperature == t]["mean_step_entropy"]), None)
                                               for t in temps]
               for (b, m), g in frame.groupby(["benchmark", "model"], sort=False)}
    counts = sorted({int(c) for c in per_cluster["clusters"]})
    by_count = {m: [next(iter(g[g.clusters == c]["mean_step_entropy"]), None) for c in counts]
                for m, g in per_cluster.groupby("model", sort=False)}
    notes = [f"Step level, {estimator} semantic entropy (nats) over every scored step of each run."]
    if len(temps) < 2:
        notes.append("Only one temperature among the runs: give runs made at several --temperature "
                     "values for Figure 4b.")
    return AnalysisResult(
        name="se_temperature", title="Semantic entropy vs temperature and number of clusters",
        frame=frame, seed_paper=SEED, reproduces="Figure 4a-c",
        tables={"Mean step entropy per number of clusters (Figure 4a)": per_cluster},
        plots=[{"title": "Mean step-level semantic entropy per temperature (Figure 4b)", "kind": "line",
                "xlabel": "temperature", "ylabel": "semantic entropy", "data": {"x": temps, "series": by_temp}},
               {"title": "Mean step-level semantic entropy per number of clusters (Figure 4a)", "kind": "line",
                "xlabel": "clusters", "ylabel": "semantic entropy", "data": {"x": counts, "series": by_count}}],
        notes=notes, options={"estimator": estimator},
    )
