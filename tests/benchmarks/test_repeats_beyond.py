"""``--repeats`` for the two benchmarks beyond the seed papers, through the CLI with loopback
models: NoveltyBench asks each prompt another set of k answers per repeat (partitioned on its
own, the prompt's value the mean over its sets); AUT asks each object another list of uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from creval.benchmarks.repeats import REPEAT_STRIDE
from tests._cli import creval
from tests._servers import ChatServer, novelty_same
from tests.tests_paths import shared_data_path


def novelty_reply(body: dict[str, Any]) -> tuple[int, str]:
    """Repeat 0's three answers fall in two classes (by the seed's parity), repeat 1's are
    all different; the judge says same for equal answers and rates 7."""
    text = body["messages"][-1]["content"]
    if (verdict := novelty_same(text)) is not None:
        return 200, verdict
    if "Rate how good" in text:
        return 200, "7"
    seed = int(body["seed"])
    return 200, f"idea {seed % 2}" if seed < REPEAT_STRIDE else f"idea {seed}"


def _scores(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "scores.json").read_text()))


def test_noveltybench_repeats_are_sets_of_k_kept_per_prompt(tmp_path: Path) -> None:
    server = ChatServer(reply=novelty_reply)
    out = tmp_path / "nb"
    common = ["run", "noveltybench", "--model", "openai:m", "--base-url", server.url,
              "--api-key", "x", "--judge", "openai:j", "--k", "3", "--limit", "2",
              "--no-progress", "--out", str(out)]
    try:
        plain = creval(*common)
        assert plain.returncode == 0, plain.stderr
        assert _scores(out)["headline"]["distinct_mean"] == 2.0
        asked = server.seen
        again = creval(*common, "--repeats", "2")
    finally:
        server.close()
    assert again.returncode == 0, again.stderr
    target = [b for b in server.bodies[asked:] if "Answer A:" not in b["messages"][-1]["content"]
              and "Rate how good" not in b["messages"][-1]["content"]]
    assert sorted(b["seed"] for b in target) == sorted([REPEAT_STRIDE + i for i in range(3)] * 2)
    scores = _scores(out)
    head = scores["headline"]
    assert head["prompts"] == 2 and head["answer_sets"] == 4
    assert head["distinct_mean"] == 2.5 and head["distinct_paper_mean"] == 1.5
    assert scores["per_item"]["distinct_mean"] == [2.5, 2.5]
    assert head["utility_mean"] == pytest.approx((7 + 7 * 0.8 + 7 * 0.64) / (1 + 0.8 + 0.64) * 0.5
                                                 + (7 + 7 * 0.8) / (1 + 0.8 + 0.64) * 0.5)
    for row in scores["table"]:
        assert row["repeats"] == 2 and [s["distinct"] for s in row["sets"]] == [2, 3]
        assert [s["repeat"] for s in row["sets"]] == [0, 1]
    noise = scores["noise"]["distinct_mean"]
    assert noise["repeats"] == 2 and noise["judge"] is None
    assert noise["samples"] == pytest.approx(1.0)  # every prompt varies the same way
    assert "## Noise floor (repeats)" in (out / "report.md").read_text()


def test_aut_repeats_ask_each_object_again_and_average_per_object(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        if int(body["seed"]) >= REPEAT_STRIDE:
            return 200, "1. doorstop\n2. paperweight\n3. build a small garden wall"
        return 200, "1. doorstop"

    server = ChatServer(reply=reply)
    out = tmp_path / "aut"
    try:
        done = creval("run", "aut", "--model", "openai:m", "--base-url", server.url,
                      "--api-key", "x", "--objects", "brick,knife", "--uses", "3",
                      "--embedder", "glove-6b-50d", "--repeats", "2", "--no-progress",
                      "--out", str(out), env={"CREVAL_CACHE_DIR": str(tmp_path / "cache")})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = _scores(out)
    head = scores["headline"]
    assert head["objects"] == 2 and head["lists"] == 4
    assert scores["per_item"]["fluency_mean"] == [2.0, 2.0]  # (1 + 3) / 2 per object
    assert head["fluency_mean"] == 2.0
    assert sorted((r["object"], r.get("repeat", 0), r["fluency"]) for r in scores["table"]) == [
        ("brick", 0, 1), ("brick", 1, 3), ("knife", 0, 1), ("knife", 1, 3)]
    noise = scores["noise"]["fluency_mean"]
    assert noise["repeats"] == 2 and noise["samples"] == pytest.approx(1.0)


def test_noveltybench_repeats_pair_each_prompts_mean_with_the_published_value(
        tmp_path: Path) -> None:
    """GPT-4o's published generations replayed for every set (sample i of any repeat is
    answer i): each prompt's mean over its two sets is its published value, and ``compare
    --published`` pairs it prompt by prompt: difference 0, p = 1."""
    from tests.benchmarks.noveltybench.test_noveltybench_replay import (
        PROMPTS,
        Replay,
        compare_rows,
        published,
    )

    class EverySet(Replay):
        def __call__(self, body: dict[str, Any]) -> tuple[int, str]:
            if "seed" in body:
                body = {**body, "seed": int(body["seed"]) % REPEAT_STRIDE}
            return super().__call__(body)

    rows = published()
    server = ChatServer(reply=EverySet(rows))
    out = tmp_path / "gpt-4o-sets"
    try:
        done = creval("run", "noveltybench", "--model", "openai:gpt-4o-sets", "--base-url",
                      server.url, "--judge", "openai:judge", "--api-key", "x", "--data",
                      str(shared_data_path("noveltybench", "data")), "--subset", "curated",
                      "--limit", str(PROMPTS), "--repeats", "2", "--no-progress",
                      "--out", str(out))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr + done.stdout
    by_id = {row["id"]: row for row in rows.values()}
    table = json.loads((out / "scores.json").read_text())["table"]
    assert len(table) == PROMPTS and all(row["repeats"] == 2 for row in table)
    for row in table:
        assert row["distinct"] == by_id[row["id"]]["distinct"] + 1
        assert row["utility"] == pytest.approx(by_id[row["id"]]["utility"], abs=1e-12)
    mine = {r["measure"]: r for r in compare_rows(out) if r["subject"] == "gpt-4o-2024-11-20"}
    assert set(mine) == {"distinct", "utility"}
    for pair in mine.values():
        assert pair["n"] == PROMPTS and pair["difference"] == 0 and pair["p"] == 1
