"""``creval run ... --dry-run`` lists every unit's first prompt, calls no model, writes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _cli import creval

from creval.benchmarks.base import registry
from creval.evaluation import dry_run


@pytest.mark.parametrize("name", sorted(registry()))
def test_every_benchmark_names_its_first_requests(name: str) -> None:
    bench = registry()[name]()
    options = bench.parse_options({"limit": 2})
    listed: list[dict[str, Any]] = dry_run(bench, options)
    assert listed, f"{name} has no unit with limit 2"
    for item in listed:  # a unit asks a model (its prompt is listed) or asks none
        assert (item["role"] is None) == (not item["messages"]), item
        assert not item["messages"] or item["messages"][-1]["content"]


def test_dry_run_from_the_command_line_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = creval("run", "dat", "--trials", "2", "--dry-run", "--model", "openai:none",
                  "--base-url", "http://127.0.0.1:9/v1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "dat: 2 unit(s)" in done.stdout and "trial-00001" in done.stdout
    assert "10 nouns" in done.stdout
    assert not out.exists()
