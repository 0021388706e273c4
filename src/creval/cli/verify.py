"""``creval verify RUN|PROFILE``: whether a run's scores follow from its records, its manifest
agrees with its requests, and the digests it recorded agree with its items and files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer


def verify(
    path: Annotated[Path, typer.Argument(help="A run directory, or a profile directory (every run below it).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: one object per run (run, benchmark, ok, sound, differences, changed_since, unverified, replayed, notes, code).")] = False,
) -> None:
    """Replay every unit of a run against the answers it recorded (no model is called),
    compare each request and output with the records, re-derive the scores and check the
    manifest, the recorded digests and scores.json against them.

    Exit 0 only when nothing differs; 1 when a run's files disagree (each difference named).
    See docs/verify.md.
    """
    from creval.evaluation.verify.verifying import verify_path

    say_verifying(path)
    results = verify_path(path, progress=True)
    if as_json:
        typer.echo(json.dumps([r.as_dict() for r in results], indent=1, ensure_ascii=False))
    else:
        for line in _lines(results):
            typer.echo(line)
    if not all(r.ok for r in results):
        raise typer.Exit(1)


def say_verifying(path: Path) -> None:
    """A line on stderr before the silent part: re-scoring may load the scorer's models
    (embedders, NLI), which takes tens of seconds on a busy machine."""
    typer.echo(f"verifying {path}: re-deriving its scores from its records (loading the "
               "scorer's models may take a minute)...", err=True)


def _lines(results: list[Any]) -> list[str]:
    lines: list[str] = []
    for r in results:
        found = [*r.differences, *r.changed_since]
        verdict = (f"verified: nothing differs ({r.replayed} unit(s) replayed)" if r.ok
                   else f"{len(found)} difference(s)" if found else "not verified")
        lines.append(f"{r.run}: {r.benchmark or '?'}: {verdict}")
        lines += [f"  - {d}" for d in found]
        lines += [f"  - unverified: {u}" for u in r.unverified]
        lines += [f"  note: {n}" for n in r.notes]
        if r.code:
            lines.append("  code: " + _code(r.code))
    return lines


def _code(code: dict[str, Any]) -> str:
    def named(v: dict[str, Any]) -> str:
        return f"creval {v.get('creval') or '?'} (git {v.get('git_revision') or 'unknown'})"

    same = code.get("scores_the_same")
    verdict = {True: "scores it the same", False: "scores it differently",
               None: "could not re-score it"}[same]
    return f"written by {named(code['run'])}; this is {named(code['this'])}, which {verdict}"


def say_unverified(paths: list[Path], *, strict: bool) -> None:
    """``not verified: RUN: why`` for each run below ``paths`` whose scores its records'
    digest chain does not vouch for (:func:`creval.records.not_verified`, no replay), printed
    before what the command shows of it; ``strict`` refuses them instead."""
    from creval.errors import CrevalError
    from creval.evaluation.compare.comparability import run_dirs
    from creval.records import not_verified

    found = []
    for path in paths:
        try:
            runs = run_dirs(Path(path))
        except CrevalError:
            continue  # the command says what is wrong with the path
        found += [f"not verified: {run}: {why}" for run in runs
                  if (why := not_verified(run)) is not None]
    if found and strict:
        raise CrevalError("--strict: " + "; ".join(found))
    for line in found:
        typer.echo(line)

