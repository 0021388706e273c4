"""Pieces the ``creval`` commands share."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from creval.errors import CrevalError


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


def flag_options(benchmarks: Iterable[Any]) -> set[str]:
    """The yes/no options of benchmarks (their ``Options`` fields typed ``bool``)."""
    return {name for bench in benchmarks for name, field in bench.Options.model_fields.items()
            if field.annotation is bool}
