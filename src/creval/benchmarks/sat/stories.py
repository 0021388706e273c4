"""Stories for the Story Alteration Task: the starter sets and users' JSONL files."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from creval.benchmarks.common import parse_jsonl
from creval.errors import CrevalError


class Story(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True)

    id: str
    story: str
    title: str = ""


def parse_stories(lines: list[str], source: str) -> list[Story]:
    """Parse JSONL lines into stories; errors name the line and what to fix.

    >>> parse_stories(['{"id": "a", "story": "Once."}'], "x.jsonl")[0].story
    'Once.'
    """
    return parse_jsonl(
        lines, Story, source, example='{"id": "...", "story": "..."} (title optional)',
        check=lambda story: None if story.story.strip() else "the story text is empty.",
    )


def load_stories(path: str | None, lang: str) -> list[Story]:
    """The user's JSONL file, or the starter set for ``lang``."""
    if path:
        file = Path(path)
        if not file.is_file():
            raise CrevalError(f"Stories file {file} does not exist. Pass a JSONL file to --stories.")
        return parse_stories(file.read_text(encoding="utf-8").splitlines(), str(file))
    starter = resources.files("creval") / "data" / "sat" / f"stories_{lang}.jsonl"
    return parse_stories(starter.read_text(encoding="utf-8").splitlines(), f"starter set {lang}")
