"""The documentation says what is built: every ``creval ...`` command in the README and the
documentation pages names commands and options that exist (the site itself is built with
warnings as errors by ``make docs``; the README's Python block runs in tests/evaluation)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").rglob("*.md"))]


def commands_in(page: Path) -> list[tuple[int, list[str]]]:
    """``(line, arguments after creval)`` of each command in the page's bash blocks."""
    found: list[tuple[int, list[str]]] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    in_bash, pending, start = False, "", 0
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            in_bash = line.strip() in ("```bash", "```sh", "```console") and not in_bash
            continue
        if not in_bash:
            continue
        code = line.split(" #", 1)[0].rstrip()  # a comment may follow a continued line
        if not pending:
            start = number
        pending += " " + code.rstrip("\\")
        if code.endswith("\\"):
            continue
        words = shlex.split(pending)
        pending = ""
        if words and words[0] == "creval":
            found.append((start, words[1:]))
    return found


CASES = [pytest.param(words, id=f"{page.relative_to(REPO)}:{line}")
         for page in PAGES for line, words in commands_in(page)]


def known_options(command: Any, words: list[str]) -> set[str]:
    """Every option ``command`` takes; for ``run``, also those of the benchmarks named."""
    opts = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    if command.name in ("run", "sweep"):
        from creval.benchmarks.base import get_benchmark, registry

        for name in (w for w in words if w in registry()):
            bench = get_benchmark(name)
            opts |= {"--" + f.replace("_", "-") for f in bench.Options.model_fields}
            opts |= {f"--{r}" for r in bench.extra_roles} | {f"--{r}-base-url" for r in bench.extra_roles}
    return opts


def test_the_pages_show_commands() -> None:
    assert len(CASES) > 50


@pytest.mark.parametrize("words", CASES)
def test_documented_command_exists_with_its_options(words: list[str]) -> None:
    from creval.cli import app

    # typer carries its own click: commands are walked by what they have, not their class
    command: Any = typer.main.get_command(app)
    ctx = command.context_class(command)
    rest = list(words)
    while hasattr(command, "get_command") and rest and not rest[0].startswith("-"):
        sub = command.get_command(ctx, rest[0])
        assert sub is not None, f"creval has no command {' '.join(words[: len(words) - len(rest) + 1])!r}"
        command, rest = sub, rest[1:]
        ctx = command.context_class(command, parent=ctx)
    options = {re.split("=", w, maxsplit=1)[0] for w in rest if w.startswith("--")}
    unknown = options - known_options(command, rest)
    assert not unknown, f"`creval {' '.join(words)}`: {command.name} has no {sorted(unknown)}"
