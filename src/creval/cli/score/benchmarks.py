"""``creval score dat|sat|jcq|neocoder``: short names for scoring one benchmark's inputs
without a model, beside ``creval score answers BENCH FILE``.

Each name keeps only how it reads its input (the words of a trial, a file of story pairs,
judgement files, NeoCoder codes) and how it prints the result. Its scoring options are the
benchmark's own, built from the benchmark's ``Options`` (type, choices, default, description
as help) and validated by the benchmark, exactly as ``creval run BENCH`` and ``creval score
answers BENCH`` take them: the options of the ``scoring`` kind, and the few others a name
needs to read its input (``also``). Nothing is declared twice.

The commands are built when they are used (:class:`ScoreGroup`), so that ``creval`` starts
without importing the benchmarks.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperGroup

from creval.cli.score.slop import slop_texts
from creval.errors import CrevalError

# An input adapter is called as ``read(bench, options, **its own parameters)``; the first two
# are typed Any so that Typer can read the parameters' annotations without importing creval's
# benchmarks (``bench`` is a Benchmark, ``options`` its Options instance).
Read = Callable[..., None]


def dat_words(
    bench: Any,
    options: Any,
    *,
    words: Annotated[list[str] | None, typer.Argument(help="The words of one trial.")] = None,
    file: Annotated[Path | None, typer.Option(help="One trial per line, words separated by commas, tabs or spaces.")] = None,
) -> None:
    """Score human or external DAT word lists without a model."""
    from rich.markup import escape
    from rich.table import Table

    from creval.benchmarks.dat.people import place_among_people
    from creval.benchmarks.dat.scoring import DATScorer
    from creval.cli._common import get_console
    from creval.report.markdown import fmt

    lists = read_word_lists(words or [], file)
    scorer = DATScorer.from_options(options)
    from creval.benchmarks.dat import against_chance_and_people
    from creval.benchmarks.dat.norms import refuse_norms_request

    refuse_norms_request(options)
    scores = place_among_people(scorer.score_lists(lists), scorer, options.people)
    scores = against_chance_and_people(scores, scorer, options)
    table = Table("trial", "score", "words used", "invalid")
    for row in scores.table:
        table.add_row(row["key"], fmt(row["score"]), escape(row["used"]), escape(row["invalid"]))
    console = get_console()
    console.print(table)
    console.print(" ".join(f"{k}={fmt(v)}" for k, v in scores.headline.items()))
    for note in scores.notes:
        if note.startswith(("People's percentile", "Random-word control", "People's norms",
                            "People's DAT-AUT")):
            console.print(escape(note))


def read_word_lists(words: list[str], file: Path | None) -> list[tuple[str, list[str]]]:
    """``(trial, words)``: one trial from the arguments, or one per line of ``file``."""
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


def sat_pairs(
    bench: Any,
    options: Any,
    *,
    file: Annotated[Path, typer.Argument(help="JSONL with 'original' and 'rewrite' (and an optional 'id') per line.")],
) -> None:
    """Score story rewrites without a model: cosine distance of original and rewrite."""
    import statistics

    from creval.benchmarks.common import jsonl_objects
    from creval.benchmarks.sat import rewrite_distances

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
    distances, _ = rewrite_distances([(p[1], p[2]) for p in pairs], options)
    for (key, _, _), d in zip(pairs, distances, strict=True):
        typer.echo(f"{key}\t{d:.4f}")
    typer.echo(f"sat_mean={statistics.fmean(distances):.4f} n={len(pairs)}")


def jcq_judgements(
    bench: Any,
    options: Any,
    *,
    files: Annotated[list[Path], typer.Argument(help="Judgement files in the upstream JCQ format (answer_id, judgement), one per model.")],
    tasks: Annotated[bool, typer.Option(help="Also print the task x criterion table per model.")] = False,
) -> None:
    """Aggregate already-judged JCQ answers without calling a model (per model x criterion)."""
    from creval.benchmarks.ttct.judgements import load_jcq_judgements
    from creval.benchmarks.ttct.scoring import CRITERIA
    from creval.metrics.rubric_agg import aggregate_rubric
    from creval.report.markdown import markdown_table

    paths = [p for f in files for p in (sorted(f.glob("*.jsonl")) if f.is_dir() else [f])]
    rows, task_tables = [], []
    for path in paths:
        judged = load_jcq_judgements(path, parser=options.parser)
        if not judged:
            raise CrevalError(f"{path}: no judgement parsed with the {options.parser} parser.")
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


def neocoder_codes(
    bench: Any,
    options: Any,
    *,
    codes: Annotated[str, typer.Option(help="'shipped' (the codes in NeoCoder.json) or a JSONL file of answers.")] = "shipped",
    detector: Annotated[Literal["static", "file"], typer.Option(help="Techniques by static analysis (AST), or from the file (the 'techniques' field of each JSONL line).")] = "static",
    out: Annotated[Path | None, typer.Option(help="Also write the scores as JSON here.")] = None,
) -> None:
    """NeoGauge per state of existing solutions, without calling a model."""
    from creval.benchmarks.neocoder.benchmark import starter_dir
    from creval.benchmarks.neocoder.data import load_neocoder
    from creval.benchmarks.neocoder.solutions import jsonl_items, shipped_items
    from creval.records import Record
    from creval.report.markdown import markdown_table

    dataset = load_neocoder(options.data or starter_dir())
    items = shipped_items(dataset) if codes == "shipped" else jsonl_items(dataset, Path(codes))
    if detector == "file" and any(i.get("llm_techniques") is None for i in items):
        raise CrevalError("--detector file needs a 'techniques' list on every JSONL line.")
    # The codes as the records of a run, scored by the benchmark's own scorer; techniques read
    # from the file stand where a run has the detector model's.
    records = [Record(key=f"{i['problem_id']}-{i['round']}", status="ok",
                      unit={k: v for k, v in i.items() if k not in ("answers", "llm_techniques")},
                      output={"answers": i["answers"], "llm_techniques": i.get("llm_techniques")})
               for i in items]
    chosen = options.model_copy(update={"detector": "llm" if detector == "file" else "static"})
    scores = bench.score(records, chosen)
    typer.echo(markdown_table(scores.extra("states", [])))
    for note in scores.notes:
        typer.echo(f"- {note}")
    if out is not None:
        write_scores(scores, out)


def write_scores(scores: Any, out: Path) -> None:
    """``scores.json`` as a run writes it (``scores``: :class:`creval.records.Scores`)."""
    import json

    out.write_text(json.dumps(scores.model_dump(mode="json"), indent=2, default=str), encoding="utf-8")


@dataclass(frozen=True)
class ThinName:
    """``creval score NAME``: the benchmark it scores for, how it reads its input, and the
    benchmark's options it takes beyond the ``scoring`` ones."""

    benchmark: str
    read: Read
    also: tuple[str, ...] = ()


THIN_NAMES = {
    "dat": ThinName("dat", dat_words, also=("lang",)),
    "sat": ThinName("sat", sat_pairs, also=("lang",)),
    "jcq": ThinName("jcq", jcq_judgements),
    "neocoder": ThinName("neocoder", neocoder_codes, also=("data",)),
    "slop": ThinName("slop", slop_texts, also=("data",)),
}


def benchmark_option_parameters(options_cls: Any, names: Iterable[str]) -> list[Any]:
    """Command-line parameters (``inspect.Parameter`` for Typer) for the named options of a
    benchmark's ``Options``, as the benchmark declares them: ``--name`` with its type, choices
    and default, and its description as the help. The benchmark still validates the values
    (``parse_options``: ranges, names to fix)."""
    parameters = []
    for name in names:
        field = options_cls.model_fields[name]
        flag = "--" + name.replace("_", "-")
        decls = f"{flag}/--no-{flag[2:]}" if field.annotation is bool else flag
        option = typer.Option(decls, help=field.description or "")
        annotation = Annotated[field.annotation, option]  # type: ignore[name-defined]  # built at run time
        parameters.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY,
                                            default=field.default, annotation=annotation))
    return parameters


def thin_command(name: str) -> Any:
    """The click command of ``creval score NAME``: the input adapter's own parameters, then
    the benchmark's options, each as the benchmark declares it."""
    from creval.benchmarks.base import get_benchmark

    thin = THIN_NAMES[name]
    bench = get_benchmark(thin.benchmark)
    chosen = [n for n in bench.Options.model_fields
              if bench.Options.kind_of(n) == "scoring" or n in thin.also]
    own = list(inspect.signature(thin.read, eval_str=True).parameters.values())[2:]
    clash = {p.name for p in own} & set(chosen)
    assert not clash, f"creval score {name} reads {clash} itself and from {bench.name}'s options"

    def command(**values: Any) -> None:
        options = bench.parse_options({k: values.pop(k) for k in chosen})
        thin.read(bench, options, **values)

    command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*own, *benchmark_option_parameters(bench.Options, chosen)])
    command.__doc__ = (f"{inspect.getdoc(thin.read)}\n\nThe scoring options are {bench.name}'s "
                       f"own, as `creval run {bench.name}` and `creval score answers "
                       f"{bench.name}` take them.")
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command(name)(command)
    return typer.main.get_command(app)


class ScoreGroup(TyperGroup):
    """``creval score``: the commands registered on it, after the benchmarks' short names,
    whose commands are built the first time they are asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*THIN_NAMES, *super().list_commands(ctx)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in THIN_NAMES and cmd_name not in self.commands:
            self.commands[cmd_name] = thin_command(cmd_name)
        return super().get_command(ctx, cmd_name)
