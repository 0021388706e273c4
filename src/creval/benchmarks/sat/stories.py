"""Stories for the Story Alteration Task: the starter sets and users' JSONL files."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ValidationError

from creval.errors import CrevalError


class Story(BaseModel):
    id: str
    story: str
    title: str = ""


def parse_stories(lines: list[str], source: str) -> list[Story]:
    """Parse JSONL lines into stories; errors name the line and what to fix.

    >>> parse_stories(['{"id": "a", "story": "Once."}'], "x.jsonl")[0].story
    'Once.'
    """
    stories: list[Story] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CrevalError(f"{source}:{number}: not valid JSON ({exc.msg}).") from None
        if not isinstance(value, dict):
            raise CrevalError(f"{source}:{number}: expected a JSON object with 'id' and 'story'.")
        if "id" in value and not isinstance(value["id"], str):
            value["id"] = str(value["id"])
        try:
            story = Story.model_validate(value)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise CrevalError(
                f"{source}:{number}: field {field!r}: {err['msg']}. Each line needs "
                '{"id": "...", "story": "..."} (title optional).'
            ) from None
        if not story.story.strip():
            raise CrevalError(f"{source}:{number}: the story text is empty.")
        if story.id in seen:
            raise CrevalError(f"{source}:{number}: duplicate id {story.id!r}; ids must be unique.")
        seen.add(story.id)
        stories.append(story)
    if not stories:
        raise CrevalError(f"{source} holds no stories.")
    return stories


def load_stories(path: str | None, lang: str) -> list[Story]:
    """The user's JSONL file, or the starter set for ``lang``."""
    if path:
        file = Path(path)
        if not file.is_file():
            raise CrevalError(f"Stories file {file} does not exist. Pass a JSONL file to --stories.")
        return parse_stories(file.read_text(encoding="utf-8").splitlines(), str(file))
    starter = resources.files("creval") / "data" / "sat" / f"stories_{lang}.jsonl"
    return parse_stories(starter.read_text(encoding="utf-8").splitlines(), f"starter set {lang}")
