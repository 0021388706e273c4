"""The ``creval`` command line: one module per command group, registered on :data:`app`.

``run`` (``list``, ``run``), ``profile``, ``sweep``, ``verify``, ``report`` (``report``, ``compare``, ``correlate``,
``agreement``), ``score``, ``analyze``, ``index``, ``data``, ``play``, ``train``, ``sandbox``
``novelty`` and ``rank``; what they share (error handling, options, roles) is in ``_common``. The
commands call :mod:`creval.evaluation` and the layers below; nothing imports this package.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from creval.cli._common import ErrorsAsMessages, get_console

app = typer.Typer(
    name="creval",
    cls=ErrorsAsMessages,
    help="Measure the creativity of language models.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Click's own help: paragraphs reflowed to the terminal, text shown as written (no Rich
    # markup to eat "[ray]"), no type labels on flags; up to 120 columns wide
    rich_markup_mode=None,
    context_settings={"max_content_width": 120},
)


def _show_version(value: bool) -> None:
    if value:
        from importlib import metadata

        try:
            version = metadata.version("creval")
        except metadata.PackageNotFoundError:  # a source tree on the path, not installed
            version = "(not installed)"
        typer.echo(f"creval {version}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_show_version,
        help="Print creval's version and exit.")] = False,
) -> None:
    """Measure the creativity of language models."""


def _register_subcommands() -> None:
    from creval.cli import report, run
    from creval.cli.analyze import register_all
    from creval.cli.data import data_app
    from creval.cli.index import index_app
    from creval.cli.novelty import novelty
    from creval.cli.play import play_app
    from creval.cli.profile import profile
    from creval.cli.rank import rank_command
    from creval.cli.references import references_app
    from creval.cli.sandbox import sandbox_app
    from creval.cli.score import score_app
    from creval.cli.sweep import sweep_command
    from creval.cli.train import train_app
    from creval.cli.verify import verify

    app.command("list")(run.list_benchmarks)
    app.command("run", context_settings={
        "allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": [],
    })(run.run)
    app.command("profile")(profile)
    app.command("sweep", context_settings={
        "allow_extra_args": True, "ignore_unknown_options": True,
    })(sweep_command)
    app.command("report")(report.report)
    app.command("compare")(report.compare)
    app.command("correlate")(report.correlate)
    app.command("agreement")(report.agreement_command)
    app.add_typer(score_app, name="score")
    app.add_typer(data_app, name="data")
    app.add_typer(sandbox_app, name="sandbox")
    app.add_typer(index_app, name="index")
    app.add_typer(play_app, name="play")
    app.command("novelty")(novelty)
    app.command("rank")(rank_command)
    app.add_typer(register_all(), name="analyze")
    app.add_typer(train_app, name="train")
    app.add_typer(references_app, name="references")
    app.command("verify")(verify)


def main() -> None:
    """Entry point: bad input and set-up problems exit 2 with a message, no traceback."""
    try:
        app(prog_name="creval")
    except KeyboardInterrupt:
        get_console(stderr=True).print(
            "interrupted: finished units are saved; run the same command again to resume."
        )
        sys.exit(130)


_register_subcommands()  # at import, so `app` is whole for Typer's in-process test runner

