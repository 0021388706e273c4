"""What the ``creval`` commands share: bad input as a message and an exit code (never a
traceback), the console, benchmark options and model roles given on the command line, and the
JSONL input and output of ``creval score`` metrics.

``creval score`` metrics read JSONL, one object per line with a text field (``--text-field``,
default ``text``) and an optional ``id`` (default: the line number), and write one JSON line per
text with its ``id`` and the metric's values, or ``excluded`` with the reason, to ``--out`` or
stdout; a summary line goes to stderr.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from creval.errors import CrevalError


class ErrorsAsMessages(TyperGroup):
    """Bad input (a :class:`CrevalError`) exits with its code and a message, no traceback,
    however the app is invoked: ``creval``, ``python -m creval.cli`` or Typer's test runner."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except CrevalError as exc:
            from rich.markup import escape

            from creval._util.redact import redact_text

            message = escape(redact_text(str(exc)))
            get_console(stderr=True).print(f"[bold red]error:[/] {message}", soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except (FileExistsError, NotADirectoryError) as exc:  # an --out under or at a file
            from rich.markup import escape

            where = escape(str(exc.filename or "the output path"))
            get_console(stderr=True).print(
                f"[bold red]error:[/] {where}: a file is where a directory is needed; pass an "
                "--out that names a directory (new or a run's).", soft_wrap=True, markup=True)
            raise typer.Exit(2) from None

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The commands with the whole first sentence of their help, wrapped, not cut."""
        rows = [(name, cmd.get_short_help_str(limit=1000)) for name in self.list_commands(ctx)
                if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def get_console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, emoji=False)  # "openai:m:" is no emoji


def options_table(cls: Any) -> Any:
    """A benchmark's options with their kinds, readable in an 80-column terminal."""
    from rich.table import Table
    from rich.text import Text

    table = Table("option", "kind", "default", "what it does", box=None, pad_edge=False)
    for name, info in cls.Options.model_fields.items():
        table.add_row(  # Text: shown as written, no Rich markup ("[ray]" stays)
            "--" + name.replace("_", "-"), cls.Options.kind_of(name), Text(repr(info.default)),
            Text(info.description or ""),
        )
    return table


OPTION_KINDS = (
    "Option kinds: generation options must match to resume a run directory; scale options "
    "(--limit, --trials) may grow or shrink it; scoring options re-score the same answers."
)


def parse_extra_options(args: list[str], flags: Collection[str] = ()) -> dict[str, str]:
    """``["--trials", "5", "--lang=ja"]`` -> ``{"trials": "5", "lang": "ja"}``.

    Options named in ``flags`` (yes/no options) also stand alone: ``--name`` is true and
    ``--no-name`` false; every other option needs a value.

    >>> parse_extra_options(["--trials", "5", "--lang=ja", "--prompt-file", "p.txt"])
    {'trials': '5', 'lang': 'ja', 'prompt_file': 'p.txt'}
    >>> parse_extra_options(["--constrain-answers", "--no-strict", "--words", "10"],
    ...                     flags={"constrain_answers", "strict"})
    {'constrain_answers': 'true', 'strict': 'false', 'words': '10'}
    """
    out: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) == 2:
            raise CrevalError(f"Unexpected argument {arg!r}: benchmark options look like --name VALUE.")
        name, eq, value = arg[2:].partition("=")
        key = name.replace("-", "_")
        alone = not eq and (i + 1 >= len(args) or args[i + 1].startswith("--"))
        if alone and key in flags:
            value = "true"
        elif alone and key.startswith("no_") and key[3:] in flags:
            key, value = key[3:], "false"
        elif alone:
            raise CrevalError(f"Option --{name} needs a value.")
        elif not eq:
            value = args[i + 1]
            i += 1
        out[key] = value
        i += 1
    return out


def check_own_options(ctx: Any, args: list[str], names: list[str]) -> None:
    """Stop on an option that is no benchmark's (or role's) but close to one of the command's
    own: ``run`` and ``sweep`` take unknown options as benchmark options, so ``--concurency``
    would otherwise be reported as a benchmark option ("Did you mean --concurrency?")."""
    import difflib

    from creval.benchmarks.base import get_benchmark, registry

    known = registry()
    for name in names:
        if name not in known:
            get_benchmark(name)  # an unknown benchmark is named first ("Did you mean 'dat'?")
    benches = [known[n] for n in names if n in known]
    theirs = {f for b in benches for f in b.Options.model_fields}
    roles = {r for b in benches for r in b.extra_roles}
    roles |= {f"{r}_base_url" for r in roles}
    own = [o[2:].replace("-", "_") for p in ctx.command.params for o in p.opts if o.startswith("--")]
    given = [a[2:].partition("=")[0].replace("-", "_") for a in args if a.startswith("--")]
    for key in given:
        if key.removeprefix("no_") in theirs or key in theirs or key in roles:
            continue
        close = difflib.get_close_matches(key, own + sorted(theirs), n=1)
        if close and close[0] in own:
            raise CrevalError(f"No such option --{key.replace('_', '-')}. Did you mean "
                              f"--{close[0].replace('_', '-')}?")


def flag_options(benchmarks: Iterable[Any]) -> set[str]:
    """The yes/no options of benchmarks (their ``Options`` fields typed ``bool``)."""
    return {name for bench in benchmarks for name, field in bench.Options.model_fields.items()
            if field.annotation is bool}


def role_values(
    names: list[str], values: dict[str, Any], role_flags: list[str]
) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Split the options after the benchmark names into (benchmark options, role specs,
    role base URLs); ``--role NAME=SPEC`` joins the specs. A role given twice is an error."""
    from creval.benchmarks.base import get_benchmark
    from creval.evaluation.run.roles import parse_role_flags, split_role_values

    known = []
    for name in names:
        try:
            known.append(get_benchmark(name))
        except CrevalError:
            continue  # plan_runs names the unknown benchmark
    rest, roles, urls = split_role_values(known, values)
    for role, spec in parse_role_flags(role_flags).items():
        if role in roles and roles[role] != spec:
            raise CrevalError(f"The {role} model is given twice (--{role} {roles[role]} and "
                              f"--role {role}={spec}); give it once.")
        roles[role] = spec
    return rest, roles, urls


def roles_table(cls: Any) -> Any:
    """A benchmark's own model roles, as ``creval list --verbose`` and ``run --help`` show them."""
    from rich.table import Table

    table = Table("role option", "default", "what the model does", box=None, pad_edge=False)
    for role, what in cls.extra_roles.items():
        table.add_row(f"--{role} SPEC", "--judge, else --model", what)
        table.add_row(f"--{role}-base-url URL", "its fallback's endpoint",
                      f"endpoint of the {role} model (with --{role}: --base-url by default)")
    return table


TextsFile = Annotated[Path, typer.Argument(help="JSONL texts.")]
TextField = Annotated[str, typer.Option(help="The text field of each JSONL line.")]
Out = Annotated[Path | None, typer.Option(help="Write the JSON lines here instead of stdout.")]


def read_texts(path: Path, field: str) -> list[tuple[str, str]]:
    """``(id, text)`` per JSONL line; a missing or non-string text field stops with its line."""
    from creval.benchmarks.common import jsonl_objects

    if not path.is_file():
        raise CrevalError(f"{path} does not exist. Pass a JSONL file with a {field!r} field per line.")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise CrevalError(f"{path} is not UTF-8 text (byte {exc.start}): save it as UTF-8 "
                          "(e.g. iconv -t UTF-8) and run again.") from None
    rows = jsonl_objects(lines, str(path))
    out = []
    for number, row in rows:
        text = row.get(field)
        if not isinstance(text, str):
            raise CrevalError(f"{path}:{number}: no string field {field!r}. Pass --text-field NAME.")
        out.append((str(row.get("id", number)), text))
    if not out:
        raise CrevalError(f"{path} holds no texts: give it one JSON object with a {field!r} "
                          "field per line.")
    return out


def write_rows(rows: list[dict[str, Any]], out: Path | None, summary: str) -> None:
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out is None:
        typer.echo(lines, nl=False)
    else:
        out.write_text(lines, encoding="utf-8")
    typer.echo(summary + (f" -> {out}" if out else ""), err=True)


CacheFile = Annotated[Path | None, typer.Option(
    "--cache", help="Response cache file (SQLite). Default: the one creval run uses "
                    "(~/.cache/creval/responses.sqlite or $CREVAL_CACHE_DIR).")]
NoCache = Annotated[bool, typer.Option(
    "--no-cache", help="Do not read or write the response cache: ask the model again.")]


# Model options that `creval profile` and `creval sweep` share, said once.
JudgeBaseUrl = Annotated[str | None, typer.Option(help="Endpoint of the judge, when it differs from --base-url.")]
BaseUrl = Annotated[str | None, typer.Option(help="Endpoint of an OpenAI-compatible server.")]
ApiKey = Annotated[str | None, typer.Option(help="API key (default: $OPENAI_API_KEY).", envvar="CREVAL_API_KEY")]
Threads = Annotated[int | None, typer.Option(help="CPU threads per copy of an in-process model (local; default: the CPUs shared out among the copies).")]
Replicas = Annotated[int | None, typer.Option(help="Copies of an in-process model (local), each on its own thread with --threads threads; requests go to the least busy. Default: one one-thread copy per CPU on a small model, one copy on a large one (docs/usage.md).")]
def _positive_seconds(value: float) -> float:
    if value <= 0:
        raise typer.BadParameter(f"{value:g} seconds: give a time above 0 (e.g. 120).")
    return value


Concurrency = Annotated[int | None, typer.Option(min=1, help="Requests in flight per endpoint.")]
Timeout = Annotated[float, typer.Option(callback=_positive_seconds,
                                        help="Seconds before a model request times out.")]
Retries = Annotated[int, typer.Option(help="Attempts per request.")]
RunProgress = Annotated[bool, typer.Option(help="Show a live progress bar per run.")]
ReasoningEffort = Annotated[str | None, typer.Option(help="openai: reasoning models: how much the tested model thinks before it answers (low, medium or high), sent as reasoning_effort; a run at another effort is another run. Default: not sent.")]


def check_effort(value: str | None) -> str | None:
    """``--reasoning-effort`` checked: low, medium, high or not given."""
    if value is not None and value not in ("low", "medium", "high"):
        raise CrevalError(f"--reasoning-effort takes low, medium or high, not {value!r}.")
    return value


#: ``--allow-no-score``: exit 0, not 3, when the invocation finished without a score.
AllowNoScore = Annotated[bool, typer.Option(
    "--allow-no-score",
    help="Exit 0 (with the warning) when the invocation finished without a score (no measure "
         "had a valid item); by default such an invocation exits 3 (docs/usage.md, exit "
         "status).")]
