"""The slop benchmark: prompts, scoring of records, `creval run slop --model local` offline,
`creval score slop FILE` on each input form, and the bad inputs' one-line errors."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.slop import SlopOptions, score_texts
from creval.benchmarks.slop.data import read_texts, upstream_prompts
from creval.errors import CrevalError
from creval.metrics.slop import slop_metrics
from creval.records import Record

CREVAL = [sys.executable, "-m", "creval.cli"]
STORY = ("It wasn't fear, but a quiet resolve that kept her walking. The tapestry of night "
         "unfurled above the harbour, and the lamps along the quay flickered one by one. ") * 3


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CREVAL, *args], capture_output=True, text=True, timeout=900,
                          env=os.environ.copy())


def test_starter_units_ask_as_upstream() -> None:
    bench = get_benchmark("slop")
    units = bench.units(bench.parse_options({}))
    assert len(units) == 8
    assert {u.meta["kind"] for u in units} == {"creative", "essay"}
    prompts = bench.prompts(bench.parse_options({}))
    assert prompts["system"] == "Write 1000 words on the provided writing prompt."
    assert prompts["prompt"].endswith("Do not use tables.\n\nPrompt: {prompt}")


def test_upstream_prompts_are_read_in_place(slop_data: Path) -> None:
    prompts = upstream_prompts(slop_data)
    assert len(prompts) == 300
    assert [p.kind for p in prompts].count("creative") == 150
    bench = get_benchmark("slop")
    essays = bench.units(bench.parse_options({"data": str(slop_data), "subset": "essay"}))
    assert len(essays) == 150 and essays[0].meta["id"] == "upstream-150"


def test_records_score_pooled_as_upstream(slop_data: Path) -> None:
    bench = get_benchmark("slop")
    options = bench.parse_options({"data": str(slop_data)})
    records = [Record(key=f"slop-{i}", status="ok", unit={"id": str(i), "kind": "creative"},
                      output={"text": text}) for i, text in enumerate([STORY, "Too short.", STORY.upper()])]
    scores = bench.score(records, options)
    from creval.benchmarks.slop.data import slop_lists

    words, trigrams = slop_lists(slop_data)
    pooled = slop_metrics(STORY + "\n\n" + STORY.upper(), words=words, trigrams=trigrams)
    assert pooled is not None
    assert scores.headline["slop_list_matches_per_1k_words"] == pooled["slop_list_matches_per_1k_words"] > 0
    assert scores.headline["not_x_but_y_per_1k_chars"] == pooled["not_x_but_y_per_1k_chars"] > 0
    assert scores.headline["pooled_texts"] == 2 and scores.headline["texts"] == 3
    assert [row["pooled"] for row in scores.table] == [True, False, True]
    assert len(scores.per_item["mattr_500_per_text"]) == 3


def test_without_lists_the_list_rates_are_not_measured() -> None:
    scores = score_texts([("a", STORY)], SlopOptions())
    assert scores.headline["slop_list_matches_per_1k_words"] is None
    assert scores.headline["mattr_500"] is not None
    assert any("need upstream's lists" in n for n in scores.notes)


def test_read_texts_forms(tmp_path: Path) -> None:
    plain = tmp_path / "a.txt"
    plain.write_text("\ufeffOne text.\n\nTwo paragraphs.", encoding="utf-8")
    assert read_texts(plain) == ([("1", "One text.\n\nTwo paragraphs.")], "text")
    lines = tmp_path / "a.jsonl"
    lines.write_text('{"id": "x", "text": "A."}\n\n{"output": "B."}\n', encoding="utf-8")
    assert read_texts(lines) == ([("x", "A."), ("3", "B.")], "jsonl")
    results = tmp_path / "m.json.gz"
    results.write_bytes(gzip.compress(json.dumps(
        {"org/m": {"samples": [{"prompt_index": 7, "output": "C."}]}}).encode()))
    assert read_texts(results) == ([("7", "C.")], "results")
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"key": "slop-upstream-3", "status": "ok", "unit": {"id": "upstream-3"},
                                   "output": {"text": "D."}}) + "\n" + json.dumps(
        {"key": "slop-upstream-4", "status": "error", "unit": {"id": "upstream-4"}, "output": {"text": ""}})
        + "\n" + json.dumps({"key": "slop-upstream-3", "status": "ok", "unit": {"id": "upstream-3"},
                             "output": {"text": "E."}}),
        encoding="utf-8")
    assert read_texts(records) == ([("upstream-3", "E.")], "jsonl")  # the last line per unit
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"words": 1}\n', encoding="utf-8")
    with pytest.raises(CrevalError, match="no text field"):
        read_texts(bad)


@pytest.mark.parametrize(("content", "message"), [
    (b"", "is empty"), (b" \n\n", "is empty"), (b"caf\xe9\n", "is not UTF-8 (byte 3)")])
def test_bad_texts_files_are_one_line_errors(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "texts.txt"
    path.write_bytes(content)
    done = _cli("score", "slop", str(path))
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_missing_data_folder_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "texts.txt"
    path.write_text(STORY, encoding="utf-8")
    done = _cli("score", "slop", str(path), "--data", str(tmp_path / "nowhere"))
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode != 0 and len(lines) == 1
    assert "does not exist" in lines[0] and "creval data fetch slop" in lines[0]
    done = _cli("run", "slop", "--model", "local", "--subset", "essay", "--out", str(tmp_path / "r"))
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert done.returncode != 0 and len(errors) == 1 and "needs upstream's prompts" in errors[0]
    assert done.stderr.rstrip().endswith(errors[0])


def test_score_slop_on_an_upstream_results_file(slop_data: Path, tmp_path: Path) -> None:
    path = slop_data / "results" / "claude-sonnet-4-20250514.json.gz"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    out = tmp_path / "scores.json"
    done = _cli("score", "slop", str(path), "--data", str(slop_data), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "300 text(s) (results)" in done.stdout  # 150 of them empty (failed upstream)
    published = {r["model"]: r for r in json.loads(
        (slop_data / "data" / "leaderboard_results.json").read_text())["results"]}
    want = published["claude-sonnet-4-20250514"]["metrics"]
    got = json.loads(out.read_text())["headline"]
    assert got["mattr_500"] == pytest.approx(want["lexical_diversity"]["mattr_500"], rel=1e-12)
    assert got["vocab_level"] == pytest.approx(want["vocab_level"], rel=1e-12)
    assert got["pooled_texts"] == published["claude-sonnet-4-20250514"]["sample_count"] == 150


@pytest.mark.slow
def test_run_slop_offline_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "slop", "--model", "local", "--limit", "2", "--max-tokens", "48",
            "--min-chars", "0", "--out", str(out)]
    done = _cli(*args)
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert scores["units"]["finished"] == 2
    h = scores["headline"]
    assert h["texts"] == 2 and h["mattr_500"] is not None and h["slop_list_matches_per_1k_words"] is None
    record = json.loads((out / "records.jsonl").read_text().splitlines()[0])
    call = record["calls"][0]["request"]
    assert call["temperature"] == 0.7 and call["max_tokens"] == 48
    assert call["messages"][0]["content"] == "Write 1000 words on the provided writing prompt."
    again = _cli(*args)
    assert again.returncode == 0 and "nothing to run" in " ".join(again.stdout.split())


def test_paired_per_prompt_with_a_released_model(slop_data: Path) -> None:
    from creval.benchmarks.slop.data import read_released, slop_lists
    from creval.metrics.slop import utf16_length

    results = slop_data / "results"
    mine, other = results / "gemma-3-4b-it.json.gz", results / "claude-sonnet-4-20250514.json.gz"
    if not (mine.is_file() and other.is_file()):
        pytest.skip(f"released outputs not in {results}")
    texts = read_texts(mine)[0][:12]
    options = SlopOptions(data=str(slop_data), against=str(other))
    paired = score_texts(texts, options).extra("paired")
    # brute force: each prompt's slop-word rate, ours minus the released model's
    words, trigrams = slop_lists(slop_data)
    theirs = {s["prompt_index"]: s["output"] for s in read_released(other)[1]}
    diffs = []
    for key, text in texts:
        answer = theirs.get(int(key)) or ""
        if utf16_length(text) > 300 and utf16_length(answer) > 300:
            a, b = (slop_metrics(t, words=words, trigrams=trigrams) for t in (text, answer))
            assert a is not None and b is not None
            diffs.append(a["slop_list_matches_per_1k_words"] - b["slop_list_matches_per_1k_words"])
    row = next(r for r in paired["table"] if r["metric"] == "slop_list_matches_per_1k_words")
    assert row["n"] == len(diffs) == paired["prompts"] > 0
    assert row["difference"] == pytest.approx(sum(diffs) / len(diffs), rel=1e-12)
    itself = score_texts(texts, SlopOptions(data=str(slop_data), against=str(mine))).extra("paired")
    assert all(r["difference"] == 0 and r["p"] == 1.0 for r in itself["table"])
    with pytest.raises(CrevalError, match="No prompt answered both"):
        score_texts([("starter-c1", STORY)], options)
