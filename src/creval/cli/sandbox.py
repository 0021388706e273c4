"""``creval sandbox ...``: run a Python program in the sandbox, show what isolation works here.

Exit codes of ``creval sandbox run``: 0 the program ran and succeeded (verdict ``ok``),
1 it failed (runtime error, timeout, memory or output limit), 2 bad input, 3 the sandbox
itself failed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from creval.errors import CrevalError

sandbox_app = typer.Typer(help="Run untrusted Python programs in the sandbox.", no_args_is_help=True,
                          rich_markup_mode=None)


def _read(path: Path, what: str) -> str:
    if not path.is_file():
        raise CrevalError(f"{what} {path} does not exist or is not a file.")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CrevalError(f"{what} {path} is not UTF-8 text: {exc}.") from exc


@sandbox_app.command("run")
def run_command(
    program: Annotated[Path, typer.Argument(help="The Python source file to run.")],
    stdin: Annotated[Path | None, typer.Option("--stdin", help="File whose text is the program's standard input.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the execution as one JSON object.")] = False,
    isolation: Annotated[str, typer.Option(help="auto, namespace or process.")] = "auto",
    python: Annotated[str | None, typer.Option(help="Interpreter for the program (default: creval's own).")] = None,
    cpu_seconds: Annotated[float, typer.Option(help="CPU time limit.")] = 6.0,
    wall_seconds: Annotated[float, typer.Option(help="Wall-clock limit.")] = 10.0,
    memory_mb: Annotated[int, typer.Option(help="Address-space limit per process, MiB.")] = 512,
    file_size_mb: Annotated[int, typer.Option(help="Largest file the program may write, MiB.")] = 16,
    scratch_mb: Annotated[int, typer.Option(help="Writable space in total (namespace isolation), MiB.")] = 64,
    processes: Annotated[int, typer.Option(help="Processes and threads the program may have.")] = 64,
    output_bytes: Annotated[int, typer.Option(help="Cap on each of stdout and stderr, bytes.")] = 1_000_000,
    network: Annotated[bool, typer.Option("--network", help="Allow network access (default: none).")] = False,
) -> None:
    """Run PROGRAM in the sandbox; print the verdict, output and timings."""
    from creval.sandbox import Limits, Verdict, run

    if isolation not in ("auto", "namespace", "process"):
        raise CrevalError(f"--isolation takes auto, namespace or process, not {isolation!r}.")
    source = _read(program, "Program")
    text = _read(stdin, "Stdin file") if stdin is not None else ""
    limits = Limits(cpu_seconds=cpu_seconds, wall_seconds=wall_seconds, memory_mb=memory_mb,
                    file_size_mb=file_size_mb, scratch_mb=scratch_mb, processes=processes,
                    output_bytes=output_bytes, network=network)
    result = run(source, stdin=text, limits=limits, isolation=isolation,  # type: ignore[arg-type]
                 python=python)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        status = f"exit code {result.exit_code}" if result.signal is None else f"signal {result.signal}"
        typer.echo(f"verdict: {result.verdict.value}" + (f" ({result.detail})" if result.detail else ""))
        typer.echo(f"{status}; wall {result.wall_seconds:.3f} s, cpu {result.cpu_seconds:.3f} s, "
                   f"max rss {result.max_rss_mb:.1f} MiB; isolation {result.isolation}")
        for name, body, cut in (("stdout", result.stdout, result.stdout_truncated),
                                ("stderr", result.stderr, result.stderr_truncated)):
            typer.echo(f"--- {name}{' (truncated)' if cut else ''} ---")
            typer.echo(body, nl=not body.endswith("\n") and bool(body))
    if result.verdict is Verdict.SANDBOX_ERROR:
        raise typer.Exit(3)
    if result.verdict is not Verdict.OK:
        raise typer.Exit(1)


@sandbox_app.command("info")
def info_command(
    python: Annotated[str | None, typer.Option(help="Interpreter to probe (default: creval's own).")] = None,
) -> None:
    """Which isolation levels work on this machine (as JSON)."""
    from creval.sandbox import describe_isolation

    typer.echo(json.dumps(describe_isolation(python), indent=2))
