"""Pieces the ``creval`` commands share."""

from __future__ import annotations

from creval.errors import CrevalError


def parse_extra_options(args: list[str]) -> dict[str, str]:
    """``["--trials", "5", "--lang=ja"]`` -> ``{"trials": "5", "lang": "ja"}``.

    >>> parse_extra_options(["--trials", "5", "--lang=ja", "--prompt-file", "p.txt"])
    {'trials': '5', 'lang': 'ja', 'prompt_file': 'p.txt'}
    """
    out: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or len(arg) == 2:
            raise CrevalError(f"Unexpected argument {arg!r}: benchmark options look like --name VALUE.")
        name, eq, value = arg[2:].partition("=")
        if not eq:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                raise CrevalError(f"Option --{name} needs a value.")
            value = args[i + 1]
            i += 1
        out[name.replace("-", "_")] = value
        i += 1
    return out
