from __future__ import annotations

from pathlib import Path

import pytest

from creval.errors import CrevalError
from creval.runner.store import Record, RunStore, read_records


def test_append_is_durable_and_readable(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append(Record(key="a", status="ok", output={"text": "x"}))
    store.append(Record(key="b", status="error", error="boom"))
    store.close()
    lines = (tmp_path / "records.jsonl").read_text().splitlines()
    assert len(lines) == 2
    assert [r.key for r in read_records(tmp_path / "records.jsonl")] == ["a", "b"]


def test_partial_last_line_is_cut_on_open(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append(Record(key="a", status="ok"))
    store.close()
    with open(tmp_path / "records.jsonl", "ab") as fh:
        fh.write(b'{"key": "b", "status": "o')  # a write cut by kill -9
    assert [r.key for r in read_records(tmp_path / "records.jsonl")] == ["a"]
    store = RunStore(tmp_path)
    store.append(Record(key="c", status="ok"))
    store.close()
    assert [r.key for r in read_records(tmp_path / "records.jsonl")] == ["a", "c"]


def test_latest_prefers_the_last_record_of_a_key(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.append(Record(key="a", status="error", error="503"))
    store.append(Record(key="a", status="ok"))
    assert store.latest()["a"].status == "ok"
    store.close()


def test_corrupt_complete_line_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "records.jsonl").write_text('{"key": "a", "status": "ok"}\nnot json\n')
    with pytest.raises(CrevalError, match=r"records.jsonl:2"):
        read_records(tmp_path / "records.jsonl")


def test_invocation_log_survives_a_cut_line(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    store.log_invocation({"units_done": 1})
    with open(tmp_path / "invocations.jsonl", "a") as fh:
        fh.write('{"units_do')
    store.log_invocation({"units_done": 2})
    assert [e["units_done"] for e in store.invocations()] == [1, 2]
    store.close()
