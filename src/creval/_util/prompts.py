"""Prompt templates: the ones creval ships (``creval/data/prompts``, our own wording) or a
user's file, and filling their placeholders with errors that say what to fix. A bottom
layer: benchmarks, judges and the LLM entailment backend all load their prompts here."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from creval.errors import CrevalError


def load_prompt(name: str, path: str | None = None) -> str:
    """The prompt template ``name`` shipped in ``creval/data/prompts``, or the user's file."""
    if path:
        file = Path(path)
        if not file.is_file():
            raise CrevalError(f"Prompt file {file} does not exist. Pass an existing --prompt-file.")
        return file.read_text(encoding="utf-8")
    return (resources.files("creval") / "data" / "prompts" / f"{name}.txt").read_text(
        encoding="utf-8"
    )


def format_prompt(template: str, source: str, **fields: str) -> str:
    """``template.format(**fields)`` with an error that names the template and field."""
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError) as exc:
        raise CrevalError(
            f"The prompt template from {source} has a placeholder creval cannot fill ({exc}). "
            f"Available placeholders: {', '.join('{' + f + '}' for f in fields) or 'none'}; "
            "write literal braces as {{ and }}."
        ) from None
