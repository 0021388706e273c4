"""Seed 004's SAT analyses (appendix C of the TTCT-family paper): frames and report entries.

* :func:`sat_scores` (Table 23): per model, the SAT embedding score, the human score from
  rankings (1, 0.9, ..., 0 per story; :mod:`creval.metrics.human_ranks`) and, with a judge,
  the 1-5 judge score divided by 5 (Table 22's prompt, :mod:`creval.judges.story`).
* :func:`embedder_correlations` (Table 24): for each embedder, every model's SAT score
  recomputed from its rewrites and its Pearson (and Spearman) correlation with the human
  scores across models.
* :func:`sat_reliability` (Figure 1): the correlation of embedding scores over ``n`` random
  stories with the human scores over all stories, for ``n`` = 1, 2, ...

Each takes SAT run directories (one per model; :mod:`creval.analyses.sat_data` reads them
and the rankings file) and returns a pandas frame; ``*_analysis`` wraps it for the report.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from creval.analyses.base import AnalysisResult
from creval.analyses.sat_data import SATRun, match_runs, read_rankings, read_sat_run
from creval.errors import CrevalError

if TYPE_CHECKING:
    import pandas as pd

    from creval.embed.base import Embedder

SEED = "004"
PathLike = Path | str


def _runs(paths: Sequence[PathLike]) -> list[SATRun]:
    if not paths:
        raise CrevalError("Give at least one SAT run directory (one per model).")
    return [read_sat_run(p) for p in paths]


def human_scores(labels: PathLike, runs: list[SATRun]) -> dict[str, tuple[float, int]]:
    """Run path -> (mean rank points, rankings counted) from the rankings file."""
    from creval.metrics.human_ranks import mean_rank_points

    rankings = read_rankings(labels)
    by_name = match_runs(runs, {m for r in rankings for m in r.ranking})
    points = mean_rank_points([r.ranking for r in rankings])
    counts = {m: sum(m in r.ranking for r in rankings) for m in points}
    return {str(run.path): (points[name], counts[name]) for name, run in by_name.items()}


async def _judge_runs(runs: list[SATRun], judge: str, base_url: str | None,
                      prompt_file: str | None, concurrency: int, cache: bool) -> dict[str, list[int | None]]:
    from creval.judges.story import StoryRatingJudge
    from creval.models import ModelOptions, get_model
    from creval.runner.cache import cached_generate, open_cache

    model = get_model(judge, ModelOptions(base_url=base_url))
    store = open_cache(enabled=cache)
    generate = cached_generate(model, store)
    rater = StoryRatingJudge.create(generate, prompt_file=prompt_file,
                                    structured=model.capabilities.structured_output)
    gate = asyncio.Semaphore(concurrency)

    async def one(original: str, rewrite: str) -> int | None:
        async with gate:
            return (await rater.evaluate(original, rewrite)).rating

    try:
        return {str(run.path): list(await asyncio.gather(*(one(o, t) for o, t in run.pairs.values())))
                for run in runs}
    finally:
        await model.aclose()
        if store is not None:
            store.close()


def sat_scores(runs: Sequence[PathLike], labels: PathLike | None = None, *, judge: str | None = None,
               base_url: str | None = None, judge_prompt: str | None = None,
               concurrency: int = 4, cache: bool = True) -> pd.DataFrame:
    """Table 23: one row per run with its embedding score (the run's ``sat_mean``), human
    score (mean rank points; needs ``labels``) and judge score (mean 1-5 rating / 5; needs
    ``judge``, a model spec; its answers are kept in the response cache unless ``cache`` is
    False). Ratings that do not parse are counted, not scored."""
    import pandas as pd

    sat = _runs(runs)
    human = human_scores(labels, sat) if labels is not None else {}
    ratings = asyncio.run(_judge_runs(sat, judge, base_url, judge_prompt, concurrency, cache)) if judge else {}
    rows = []
    for run in sat:
        row: dict[str, Any] = {"model": run.model_spec, "run": str(run.path), "stories": len(run.pairs),
                               "embedder": run.embedder, "embedding": run.sat_mean}
        if labels is not None:
            score, count = human.get(str(run.path), (None, 0))
            row |= {"human": score, "rankings": count}
        if judge:
            valid = [r for r in ratings[str(run.path)] if r is not None]
            row |= {"judge": math.fsum(valid) / len(valid) / 5 if valid else None,
                    "judge_unparsed": len(ratings[str(run.path)]) - len(valid)}
        rows.append(row)
    return pd.DataFrame(rows)


def _correlations(frame: pd.DataFrame, against: str, columns: list[str]) -> pd.DataFrame:
    import pandas as pd

    from creval.metrics.stats import pearson, spearman

    rows = []
    for column in columns:
        both = frame[[column, against]].dropna()
        row: dict[str, Any] = {"score": column, "with": against, "models": len(both)}
        if len(both) >= 3:
            p, s = pearson(both[column].tolist(), both[against].tolist()), spearman(both[column].tolist(), both[against].tolist())
            row |= {"pearson_r": p.r, "pearson_p": p.p, "spearman_r": s.r, "spearman_p": s.p}
        rows.append(row)
    return pd.DataFrame(rows)


def sat_scores_analysis(runs: Sequence[PathLike], labels: PathLike | None = None, **options: Any) -> AnalysisResult:
    """:func:`sat_scores` with its correlations and a bar plot, for the report."""
    frame = sat_scores(runs, labels, **options)
    scored = [c for c in ("embedding", "judge") if c in frame.columns]
    series = {c: frame[c].tolist() for c in ("embedding", "human", "judge") if c in frame.columns}
    notes = ["embedding: the run's SAT score (mean cosine distance, original vs rewrite).",
             "human: mean rank points per story, 1 for the most creative down to 0 for the last "
             "(1, 0.9, ..., 0 with 11 models; linear in general)."]
    if "judge" in frame.columns:
        notes.append(f"judge: mean 1-5 rating by {options['judge']} divided by 5 (Table 22's prompt, our wording).")
    tables = {"Correlation with the human score across models": _correlations(frame, "human", scored)} \
        if "human" in frame.columns else {}
    return AnalysisResult(
        name="sat-scores", title="SAT scores by embedding, human rankings and judge", frame=frame,
        seed_paper=SEED, reproduces="Table 23", tables=tables, notes=notes,
        options={"labels": labels, **{k: v for k, v in options.items() if k != "base_url"}},
        plots=[{"title": "SAT score per model", "kind": "bar",
                "data": {"labels": frame["model"].tolist(), "series": series}}],
    )


def story_distances(runs: list[SATRun], embedder: Embedder) -> dict[str, dict[str, float]]:
    """Run path -> story id -> cosine distance of original and rewrite under ``embedder``."""
    from creval.metrics.distance import paired_cosine_distances

    out: dict[str, dict[str, float]] = {}
    for run in runs:
        stories = list(run.pairs)
        if not stories:
            out[str(run.path)] = {}
            continue
        a = embedder.embed([run.pairs[s][0] for s in stories])
        b = embedder.embed([run.pairs[s][1] for s in stories])
        out[str(run.path)] = dict(zip(stories, (float(d) for d in paired_cosine_distances(a, b)), strict=True))
    return out


def _embedder(spec: str | Embedder) -> tuple[str, Embedder]:
    if isinstance(spec, str):
        from creval.embed import get_embedder

        return spec, get_embedder(spec)
    return spec.spec, spec


def embedder_correlations(runs: Sequence[PathLike], labels: PathLike,
                          embedders: Sequence[str | Embedder]) -> pd.DataFrame:
    """Table 24: per embedder, the correlation across models of the SAT score it gives
    (mean distance over each run's stories) with the human score. The scores themselves
    (one row per run, one column per embedder) are in ``frame.attrs["scores"]``."""
    import pandas as pd

    sat = _runs(runs)
    human = human_scores(labels, sat)
    frame = pd.DataFrame({"model": [r.model_spec for r in sat], "run": [str(r.path) for r in sat],
                          "human": [human[str(r.path)][0] for r in sat]})
    names = []
    for spec in embedders:
        name, embedder = _embedder(spec)
        distances = story_distances(sat, embedder)
        frame[name] = [math.fsum(d.values()) / len(d) if d else None for d in (distances[str(r.path)] for r in sat)]
        names.append(name)
    if len(frame) < 3:
        raise CrevalError(f"A correlation across models needs at least 3 runs, got {len(frame)}.")
    table = _correlations(frame, "human", names).rename(columns={"score": "embedder"}).drop(columns="with")
    table.attrs["scores"] = frame
    return table


def embedder_correlations_analysis(runs: Sequence[PathLike], labels: PathLike,
                                   embedders: Sequence[str | Embedder]) -> AnalysisResult:
    """:func:`embedder_correlations` with each model's score per embedder, for the report."""
    frame = embedder_correlations(runs, labels, embedders)
    return AnalysisResult(
        name="sat-embedders", title="Embedders by correlation with human SAT scores", frame=frame,
        seed_paper=SEED, reproduces="Table 24", tables={"SAT score per model and embedder": frame.attrs["scores"]},
        notes=["Each embedder re-scores every run's rewrites (mean cosine distance to the original); "
               "r is across models, against the mean human rank points."],
        options={"labels": labels, "embedders": [_embedder_name(e) for e in embedders]},
        plots=[{"title": "Pearson r with the human score", "kind": "bar",
                "data": {"labels": frame["embedder"].tolist(), "values": frame["pearson_r"].tolist()}}],
    )


def _embedder_name(spec: str | Embedder) -> str:
    return spec if isinstance(spec, str) else spec.spec


def sat_reliability(runs: Sequence[PathLike], labels: PathLike | None = None, *,
                    embedder: str | Embedder | None = None, repeats: int = 100, seed: int = 0) -> pd.DataFrame:
    """Figure 1: per number of stories ``n``, the Pearson r between models' embedding scores
    over ``n`` random stories (``repeats`` draws, stories every run rewrote) and their human
    scores over all stories; without ``labels``, against their embedding scores over all the
    stories (how well a subset reproduces the full set)."""
    import pandas as pd

    from creval.metrics.human_ranks import reliability_curve

    sat = _runs(runs)
    if len(sat) < 3:
        raise CrevalError(f"A correlation across models needs at least 3 runs, got {len(sat)}.")
    _, model = _embedder(embedder if embedder is not None else sat[0].embedder)
    distances = story_distances(sat, model)
    common = sorted(set.intersection(*(set(d) for d in distances.values())))
    if not common:
        raise CrevalError("No story was rewritten (non-empty) by every run; nothing to sample.")
    matrix = [[distances[str(r.path)][s] for s in common] for r in sat]
    reference = [human_scores(labels, sat)[str(r.path)][0] for r in sat] if labels is not None \
        else [math.fsum(row) / len(row) for row in matrix]
    points = reliability_curve(matrix, reference, repeats=repeats, seed=seed)
    return pd.DataFrame([{"stories": p.items, "draws": p.draws, "mean_r": p.mean_r, "p5_r": p.low_r,
                          "p95_r": p.high_r, "undefined": p.undefined} for p in points])


def sat_reliability_analysis(runs: Sequence[PathLike], labels: PathLike | None = None, *,
                             embedder: str | None = None, repeats: int = 100, seed: int = 0) -> AnalysisResult:
    """:func:`sat_reliability` with its line plot, for the report."""
    frame = sat_reliability(runs, labels, embedder=embedder, repeats=repeats, seed=seed)
    against = "the human scores (all stories)" if labels is not None else \
        "the embedding scores over all stories (no --labels given; the paper uses human scores)"
    return AnalysisResult(
        name="sat-reliability", title="SAT reliability against the number of stories", frame=frame,
        seed_paper=SEED, reproduces="Figure 1",
        notes=[f"r across models between embedding scores over n random stories and {against}; "
               f"mean and 5th-95th percentile over {repeats} draws (one draw at all stories), seed {seed}."],
        options={"labels": labels, "embedder": embedder, "repeats": repeats, "seed": seed},
        plots=[{"title": "Correlation against the number of stories", "kind": "line",
                "xlabel": "stories", "ylabel": "Pearson r",
                "data": {"x": frame["stories"].tolist(),
                         "series": {k: frame[k].tolist() for k in ("mean_r", "p5_r", "p95_r")}}}],
    )
