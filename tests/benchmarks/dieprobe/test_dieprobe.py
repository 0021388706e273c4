"""The die-roll mode-collapse probe: units per strategy, parsing, scoring against a hand
count, and an offline run on the local model."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.dieprobe import parse_rolls
from creval.errors import CrevalError
from creval.records import Record


@pytest.mark.parametrize(("strategy", "units"), [("direct", 12), ("sequence", 3), ("verbalized", 3)])
def test_units_ask_for_the_rolls(strategy: str, units: int) -> None:
    bench = get_benchmark("dieprobe")
    options = bench.parse_options({"strategy": strategy, "rolls": 12, "k": 5})
    got = bench.units(options)
    assert len(got) == units
    assert len({u.key for u in got}) == units


def test_unknown_strategy_is_a_one_line_error() -> None:
    bench = get_benchmark("dieprobe")
    with pytest.raises(CrevalError, match="--strategy") as err:
        bench.parse_options({"strategy": "telepathy"})
    assert "\n" not in str(err.value)


def test_parse_rolls() -> None:
    assert parse_rolls("The die shows 7, then 3.", "direct", 6, 5) == ([], [])  # first number off the die
    assert parse_rolls("2,2,2", "sequence", 6, 2) == ([2, 2], [None, None])
    assert parse_rolls("I think 0.5 of the time: 3\n1: 0.25\n2 - 0.5", "verbalized", 6, 5) == ([1, 2], [0.25, 0.5])
    cot = "Each face has 1/6.\n1: 0.1\n2: 0.2\n3: 0.3"
    assert parse_rolls(cot, "verbalized-cot", 6, 2) == ([2, 3], [0.2, 0.3])


def test_score_is_the_kl_of_the_hand_count() -> None:
    bench = get_benchmark("dieprobe")
    options = bench.parse_options({"strategy": "sequence", "rolls": 10, "k": 5})
    texts = ["1, 1, 1, 2, 6", "1, 3, 9, banana", "none"]
    records = [Record(key=f"die-sequence-{i}", status="ok", unit={"id": str(i)}, output={"text": t})
               for i, t in enumerate(texts)]
    scores = bench.score(records, options)
    counts = [4, 1, 1, 0, 0, 1]  # faces 1..6
    want = sum(c / 7 * math.log(c / 7 * 6) for c in counts if c)
    assert scores.headline["kl_from_uniform"] == pytest.approx(want, rel=1e-12)
    assert scores.headline["rolls"] == 7 and scores.headline["unreadable_answers"] == 1
    assert scores.headline["top_face_share"] == 4 / 7
    assert scores.extra("counts") == {"1": 4, "2": 1, "3": 1, "4": 0, "5": 0, "6": 1}


@pytest.mark.slow
def test_dieprobe_runs_offline_on_the_local_model(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = [sys.executable, "-m", "creval.cli", "run", "dieprobe", "--model", "local",
            "--strategy", "sequence", "--rolls", "10", "--k", "5", "--max-tokens", "24",
            "--out", str(out)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert scores["units"]["finished"] == 2 and scores["headline"]["answers"] == 2
    texts = [json.loads(line)["output"]["text"] for line in (out / "records.jsonl").read_text().splitlines()]
    assert texts[0] != texts[1]  # each request its own sample (seed + i)
