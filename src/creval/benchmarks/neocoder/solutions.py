"""Solution items to score without a model: the codes shipped in ``NeoCoder.json``, or a
user's JSONL file (see :mod:`.scoring` for the item format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from creval.benchmarks.neocoder.data import NeoCoderDataset, states
from creval.errors import CrevalError

JSONL_EXAMPLE = (
    '{"problem_id": "1901A", "round": 0, "answer": "```python ...```"} (or "code" for bare '
    'code; optional "techniques": [...] from your own detector)'
)


def shipped_items(dataset: NeoCoderDataset) -> list[dict[str, Any]]:
    """One item per state with the ``codes`` the dataset ships (GPT-4's, upstream)."""
    items = []
    for state in states(dataset):
        codes = dataset.problem(state.problem_id).codes
        if codes is None or codes[state.round] is None:
            continue
        items.append({"problem_id": state.problem_id, "round": state.round, "t": state.t,
                      "constraints": list(state.constraints), "answers": [codes[state.round]],
                      "raw_code": True})
    if not items:
        raise CrevalError(f"{dataset.source} ships no codes; pass --codes FILE.jsonl.")
    return items


def jsonl_items(dataset: NeoCoderDataset, path: Path) -> list[dict[str, Any]]:
    """Items from a JSONL file of answers, one line per (problem, round)."""
    if not path.is_file():
        raise CrevalError(f"{path} does not exist. Each line: {JSONL_EXAMPLE}.")
    by_key = {(s.problem_id, s.round): s for s in states(dataset)}
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (str(row["problem_id"]), int(row.get("round", 0)))
            text = row["answer"] if "answer" in row else row["code"]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise CrevalError(f"{path}:{number}: {exc!s}. Each line: {JSONL_EXAMPLE}.") from None
        state = by_key.get(key)
        if state is None:
            raise CrevalError(f"{path}:{number}: problem {key[0]} has no distinct state at round "
                              f"{key[1]} in {dataset.source}.")
        techniques = row.get("techniques")
        items.append({"problem_id": state.problem_id, "round": state.round, "t": state.t,
                      "constraints": list(state.constraints), "answers": [text],
                      "raw_code": "answer" not in row,
                      "llm_techniques": None if techniques is None else [list(techniques)]})
    if not items:
        raise CrevalError(f"{path} holds no answers.")
    return items
