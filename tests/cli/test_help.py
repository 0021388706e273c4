"""Every command's help, as a user reads it at 80 and 120 columns: nothing cut, no text lost
to markup, no type labels on flags; and the suggestions for what was misspelled."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from _cli import creval, creval_process


def _commands() -> tuple[Any, list[tuple[list[str], Any]]]:
    """The ``creval`` group and every command and group in it with its path, ``score``'s
    short names included."""
    import typer

    from creval.cli import app

    def walk(cmd: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
        yield path, cmd
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd, info_name=path[-1] if path else "creval")
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None and not sub.hidden:
                    yield from walk(sub, [*path, name])

    root = typer.main.get_command(app)
    return root, list(walk(root, []))


ROOT, COMMANDS = _commands()
#: Helps also read through the command line (``run`` adds the named benchmarks' tables).
THROUGH_THE_CLI = [[], ["run"], ["run", "dat", "lotbench"], ["score", "dat"], ["references", "check"]]


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _bracketed(cmd: Any) -> list[str]:
    """The ``[...]`` passages of a command's own help texts, which must survive rendering."""
    texts = [cmd.help or "", *(getattr(p, "help", None) or "" for p in cmd.params)]
    return [m for text in texts for m in re.findall(r"\[[^\[\]]*\]", text)]


def _help(path: list[str], width: int) -> str:
    """``creval PATH --help`` rendered as in a terminal ``width`` columns wide (Typer's test
    runner pins 80 columns, so this renders from the command's context)."""
    cmd: Any = ROOT
    ctx = cmd.make_context("creval", [], resilient_parsing=True, terminal_width=width)
    for name in path:
        cmd = cmd.get_command(ctx, name)
        ctx = cmd.make_context(name, [], parent=ctx, resilient_parsing=True)
    return str(cmd.get_help(ctx))


def _check(text: str, where: str, width: int, cmd: Any) -> None:
    assert "…" not in text, f"{where}: a cell or line is cut"
    assert "<bool>" not in text, f"{where}: a flag shows a type label"
    wide = [line for line in text.splitlines() if len(line.rstrip()) > width]
    assert not wide, f"{where}: lines wider than the terminal: {wide[:2]}"
    for passage in _bracketed(cmd) if cmd is not None else []:
        assert _squeezed(passage) in _squeezed(text), f"{where}: {passage!r} was lost"


@pytest.mark.parametrize("width", [80, 120])
def test_every_help_fits_and_keeps_its_text(width: int) -> None:
    assert len(COMMANDS) > 30  # the walk found the tree, not only the top
    names = [" ".join(path) for path, _ in COMMANDS]
    assert "run" in names and "score dat" in names and "references check" in names
    for path, cmd in COMMANDS:
        _check(_help(path, width), f"creval {' '.join(path)} --help at {width} columns", width, cmd)


def test_helps_through_the_command_line_at_80_columns() -> None:
    commands = {tuple(path): cmd for path, cmd in COMMANDS}
    for path in THROUGH_THE_CLI:
        done = creval(*path, "--help")
        assert done.returncode == 0, done.stderr
        _check(done.stdout, f"creval {' '.join(path)} --help", 80, commands.get(tuple(path)))
    from creval.benchmarks.base import get_benchmark

    text = creval("run", "dat", "lotbench", "--help").stdout  # the benchmarks' option tables
    for name in ("dat", "lotbench"):
        for field in get_benchmark(name).Options.model_fields.values():
            for passage in re.findall(r"\[[^\[\]]*\]", field.description or ""):
                assert _squeezed(passage) in _squeezed(text), f"{name}: {passage!r} was lost"


def test_run_help_reads_as_paragraphs() -> None:
    """The docstring's hard line breaks are reflowed to the width; Rich markup does not eat
    ``[ray]``; the description column is wide enough to read."""
    text = _help(["run"], 120)
    assert "pip install 'creval[ray]'" in " ".join(text.split())
    # the docstring breaks its first paragraph at ~90 characters; at 120 it is one line
    assert "Run benchmarks against a model, resuming what an earlier run in --out finished." in text
    wide = creval_process("run", "--help", env={"COLUMNS": "120"}).stdout  # a real terminal width
    assert max(map(len, wide.splitlines())) > 100
    narrow = creval("run", "--help", env={"COLUMNS": "80"}).stdout
    option = next(line for line in narrow.splitlines() if "Model spec: local" in line)
    assert len(option) - option.index("Model spec") >= 40  # a usable description column
    assert len(narrow.splitlines()) < 150


def test_version() -> None:
    from importlib import metadata

    done = creval("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"creval {metadata.version('creval')}"


@pytest.mark.parametrize(("args", "suggestion"), [
    (["run", "dat", "--tempreature", "0.5"], "Did you mean --temperature?"),
    (["run", "dat", "--concurency", "2"], "Did you mean --concurrency?"),
    (["run", "dat", "--progres"], "Did you mean --progress?"),
    (["run", "datt"], "Did you mean 'dat'?"),
    (["sweep", "dat", "--values", "temperature=0.2,0.7", "--trails", "2"], "Did you mean --trials?"),
    (["profile", "--sizee", "smoke"], "Possible options: --set, --size"),
])
def test_misspellings_get_a_suggestion(args: list[str], suggestion: str, tmp_path: Any) -> None:
    done = creval(*args, "--out", str(tmp_path / "run"))
    assert done.returncode == 2
    assert suggestion in " ".join((done.stdout + done.stderr).split())
    assert not (tmp_path / "run").exists()
