"""A loopback judge that answers each TTCW test as a released LLM judge did: it finds the story
and the test in the prompt and replays that judge's released answer (or always says No)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _servers import ChatServer


def released_answers(folder: Path, stem: str) -> dict[tuple[str, int], str]:
    out = {}
    for line in (folder / "data" / f"annotations_{stem}.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        story, _, test = row["id"].removeprefix("story_").rpartition("_test")
        out[(story, int(test))] = row["response"]
    return out


def replay_server(folder: Path, stem: str | None) -> ChatServer:
    """``stem`` None: a judge that answers "No" to everything."""
    stories = json.loads((folder / "stories" / "ttcw_short_stories.json").read_text(encoding="utf-8"))
    tests = json.loads((folder / "tests" / "ttcw_all_tests.json").read_text(encoding="utf-8"))
    answers = released_answers(folder, stem) if stem else {}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if stem is None:
            return 200, "No. It does not."
        (story,) = [s["story_id"] for s in stories
                    if not s["content"].startswith("http") and s["content"].strip() in prompt]
        (test,) = [t["ttcw_idx"] for t in tests if t["full_prompt"].strip() in prompt]
        return 200, answers[(story, test)]

    return ChatServer(reply=reply)
