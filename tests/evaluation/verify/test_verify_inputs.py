"""Where verify finds a file the run's scorer read by the digests the run recorded
(:mod:`creval.evaluation.verify.inputs`), on small folders."""

from __future__ import annotations

from pathlib import Path

import pytest

from creval._util.inputs import file_record
from creval.benchmarks.dat.humans import PEOPLE_ENV
from creval.evaluation.verify.inputs import recorded_locations


def _people(folder: Path, text: str = "id\tdat\n1\t80\n") -> Path:
    (folder / "human-level").mkdir(parents=True)
    (folder / "human-level" / "study2.tsv").write_text(text, encoding="utf-8")
    return folder


def test_the_recorded_path_then_the_default_places_then_what_differs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(PEOPLE_ENV, raising=False)
    first = _people(tmp_path / "first")
    inputs = {"files": {"people": {**file_record(first), "kind": "scoring"}}}
    assert recorded_locations("dat", {"people": None}, inputs) == ({"people": str(first.resolve())}, [])
    # an explicit relative --people, the folder moved to $CREVAL_DAT_HUMANS: found there
    moved = tmp_path / "elsewhere"
    first.rename(moved)
    monkeypatch.setenv(PEOPLE_ENV, str(moved))
    assert recorded_locations("dat", {"people": "first"}, inputs) == ({"people": str(moved.resolve())}, [])
    # a copy with other content at ./data/dat-humans, none at the recorded path: both said
    monkeypatch.delenv(PEOPLE_ENV)
    _people(tmp_path / "data" / "dat-humans", "id\tdat\n1\t81\n")
    found, problems = recorded_locations("dat", {"people": None}, inputs)
    assert found == {} and problems == [
        f"cannot re-derive the scores that read --people: no place holds what the run read "
        f"({first.resolve()} is not there; {(tmp_path / 'data' / 'dat-humans').resolve()}: "
        "human-level/study2.tsv differs)"]
    # another benchmark's file named by its options is not looked for elsewhere
    assert recorded_locations("jcq", {"questions": "q.jsonl"}, {"files": {"questions": {
        "path": "/nowhere", "sha256": "0" * 64}}}) == ({}, [])
