"""Input and output of ``creval score`` metrics: JSONL texts in, one JSON line per text out.

Input: JSONL, one object per line with a text field (``--text-field``, default ``text``)
and an optional ``id`` (default: the line number). Output: one JSON line per text with its
``id`` and the metric's values, or ``excluded`` with the reason, to ``--out`` or stdout; a
summary line goes to stderr.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from creval.errors import CrevalError

TextField = Annotated[str, typer.Option(help="The text field of each JSONL line.")]
Out = Annotated[Path | None, typer.Option(help="Write the JSON lines here instead of stdout.")]


def read_texts(path: Path, field: str) -> list[tuple[str, str]]:
    """``(id, text)`` per JSONL line; a missing or non-string text field stops with its line."""
    from creval.benchmarks.common import jsonl_objects

    if not path.is_file():
        raise CrevalError(f"{path} does not exist. Pass a JSONL file with a {field!r} field per line.")
    rows = jsonl_objects(path.read_text(encoding="utf-8").splitlines(), str(path))
    out = []
    for number, row in rows:
        text = row.get(field)
        if not isinstance(text, str):
            raise CrevalError(f"{path}:{number}: no string field {field!r}. Pass --text-field NAME.")
        out.append((str(row.get("id", number)), text))
    if not out:
        raise CrevalError(f"{path} holds no texts.")
    return out


def write_rows(rows: list[dict[str, Any]], out: Path | None, summary: str) -> None:
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out is None:
        typer.echo(lines, nl=False)
    else:
        out.write_text(lines, encoding="utf-8")
    typer.echo(summary + (f" -> {out}" if out else ""), err=True)
