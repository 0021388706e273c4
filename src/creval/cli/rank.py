"""``creval rank RUN...``: pairwise ratings of the models of several runs of one benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from creval.cli._common import ApiKey, CacheFile, Concurrency, NoCache, Timeout


def rank_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories of one benchmark (one per model), or folders holding them.")],
    judge: Annotated[str, typer.Option(help="Judge model spec; several separated by commas (a panel: each judges every pair, and the intervals resample judges too).")] = "local",
    judge_base_url: Annotated[str | None, typer.Option(help="Endpoint of the judge(s).")] = None,
    out: Annotated[Path | None, typer.Option(help="Directory of the judgements (records.jsonl, rank.json, ratings.json); a rerun resumes it. Default: runs/rank/BENCHMARK.")] = None,
    design: Annotated[str, typer.Option(help="Pairs judged: all (every pair), anchored (each model against the anchors and --opponents others on a ring), or auto (all up to 6 models, else anchored).")] = "auto",
    opponents: Annotated[int | None, typer.Option(help="anchored design: ring neighbours each model meets besides the anchors (default 3).")] = None,
    anchors: Annotated[str | None, typer.Option(help="Models (labels as shown, comma-separated) whose mean rating is fixed at 0, so their scale stays put when models are added; in the anchored design every model meets them.")] = None,
    plan: Annotated[bool, typer.Option("--plan", help="Say the models, common items, design and the judge requests it costs; ask nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the ratings document as JSON.")] = False,
    html: Annotated[bool, typer.Option("--html", help="Also write OUT/ratings.html (one self-contained page).")] = False,
    criterion: Annotated[str | None, typer.Option(help="What the judge is asked which answer is (default: more creative: more original and surprising while still doing what the task asks).")] = None,
    prompt_file: Annotated[str | None, typer.Option(help="Your own judge prompt with {task}, {answer_a}, {answer_b} and {criterion}.")] = None,
    max_tokens: Annotated[int, typer.Option(help="Maximum tokens of a judgement.")] = 256,
    prior: Annotated[float, typer.Option(help="Virtual ties per compared pair (keeps a model that always wins finite; 0: plain maximum likelihood).")] = 1.0,
    confidence: Annotated[float, typer.Option(help="Level of the bootstrap intervals.")] = 0.95,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples (items and judges together).")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    concurrency: Concurrency = None,
    timeout: Timeout = 120.0,
    api_key: ApiKey = None,
    cache: CacheFile = None,
    no_cache: NoCache = False,
    progress: Annotated[bool, typer.Option(help="Show a live progress bar.")] = False,
    allow_same_family_judge: Annotated[bool, typer.Option("--allow-same-family-judge", help="Let a judge decide the pairs of a model of its own family (left out by default: see docs/judges.md).")] = False,
) -> None:
    """Rate the models of several runs of one benchmark by a judge comparing their answers on
    the items all runs share, each pair in both orders: Bradley-Terry ratings with intervals,
    the judge's first-position bias, win rates and circular triads, beside each run's own
    scores. Resumable and cached like a run. See docs/rank.md."""
    from creval.errors import CrevalError
    from creval.evaluation.rank.items import DEFAULT_CRITERION, RankSettings
    from creval.evaluation.rank.ranking import dumps, plan_rank, run_rank
    from creval.report.rank import render_html, render_markdown

    if not 0 < confidence < 1:
        raise CrevalError(f"--confidence takes a level between 0 and 1, such as 0.95 (got {confidence}).")
    if resamples < 1 or prior < 0 or max_tokens < 1:
        raise CrevalError(f"--resamples and --max-tokens must be at least 1 and --prior at least 0 "
                          f"(got {resamples}, {max_tokens}, {prior}).")
    settings = RankSettings(
        judges=[j.strip() for j in judge.split(",")], judge_base_url=judge_base_url, api_key=api_key,
        out=out, design=design, opponents=opponents,
        anchors=[a.strip() for a in anchors.split(",") if a.strip()] if anchors else [],
        criterion=criterion or DEFAULT_CRITERION, prompt_file=prompt_file, max_tokens=max_tokens,
        prior=prior, confidence=confidence, resamples=resamples, seed=seed, concurrency=concurrency,
        timeout=timeout, cache=cache, use_cache=not no_cache, progress=progress,
        allow_same_family_judge=allow_same_family_judge)
    planned = plan_rank(run_dirs, settings)
    if plan:
        info = planned.to_dict()
        if as_json:
            typer.echo(dumps(info))
            return
        typer.echo(f"{planned.benchmark}: {len(info['models'])} models ({', '.join(info['models'])}) on "
                   f"{info['items']} common items")
        anchored = f", anchors {', '.join(info['anchors'])}" if info["anchors"] else ""
        typer.echo(f"design {info['design']}{anchored}: {len(info['pairs'])} pairs x {info['items']} items x "
                   f"2 orders x {len(info['judges'])} judge(s) = {info['requests']} judge requests "
                   "(before the response cache)")
        for a, b in info["pairs"]:
            typer.echo(f"  {a} vs {b}")
        for s in info["same_family"]:
            typer.echo(f"  {s['judge']} does not decide the pairs of {s['model']}: {s['reason']}")
        return
    doc = run_rank(planned, settings)
    (planned.out / "ratings.md").write_text(render_markdown(doc), encoding="utf-8")
    if html:
        (planned.out / "ratings.html").write_text(render_html(doc), encoding="utf-8")
    typer.echo(dumps(doc) if as_json else render_markdown(doc))
