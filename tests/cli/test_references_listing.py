"""``creval references`` read by another program: whole names and sources, one value a line."""

from __future__ import annotations

from _cli import creval

from creval.report.references import load_references


def test_a_listing_that_is_not_printed_to_a_terminal_cuts_no_name() -> None:
    # Typer's runner is not a terminal, as a pipe is not; COLUMNS is a narrow terminal's.
    done = creval("references", "--seed", "003", env={"COLUMNS": "60"})
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    (paper,) = [p for p in load_references() if p.seed == "003"]
    lines = done.stdout.splitlines()
    for value in paper.values:
        (line,) = [x for x in lines if x.startswith(value.subject + "  ")]  # `grep "^NAME  "`
        assert value.source in line and f"{value.value:g}" in line
    described = paper.protocols["lotbench"].description
    assert any(described in x for x in lines)


def test_every_papers_listing_keeps_its_longest_names() -> None:
    done = creval("references", env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    longest = max((v for p in load_references() for v in p.values), key=lambda v: len(v.source))
    assert longest.source in done.stdout
    assert "llm-jp-3-7.2b-instruct2-dpo-dat-2" in done.stdout
