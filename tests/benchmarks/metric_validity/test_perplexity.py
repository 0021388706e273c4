"""Perplexity with the packaged local model: the benchmark's units and `creval score ppl`
give the same value for the same text; a backend without prompt log-probabilities is a
clear error (score) or a counted exclusion (run)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from _cli import creval

from creval.benchmarks.metric_validity.data import balanced_sample, load_domain


@pytest.mark.slow
def test_run_and_score_agree_on_perplexity(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    run = tmp_path / "run"
    done = creval("run", "metric-validity", "--model", "local", "--metrics", "ppl", "--limit", "2",
                  "--out", str(run), "--no-progress")
    assert done.returncode == 0, done.stderr
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    items = balanced_sample(load_domain("problem-solving"), per_class=1, seed=0)
    texts = tmp_path / "texts.jsonl"
    texts.write_text("".join(json.dumps({"id": i.id, "text": i.text}) + "\n" for i in items))
    scored = creval("score", "ppl", str(texts), "--model", "local")
    assert scored.returncode == 0, scored.stderr
    rows = {r["id"]: r for r in map(json.loads, scored.stdout.splitlines())}
    for item in items:
        value = scores["per_text"][item.id]["ppl"]
        assert math.isfinite(value) and value > 1.0
        assert rows[item.id]["ppl"] == pytest.approx(value, rel=1e-9)


def test_score_ppl_needs_prompt_logprobs(tmp_path: Path) -> None:
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"text": "A short text to score."}\n')
    done = creval("score", "ppl", str(texts), "--model", "openai:gpt-4o-mini",
                  env={"OPENAI_API_KEY": "test"})
    assert done.returncode == 2
    assert "gives no prompt log-probabilities" in done.stderr and "local" in done.stderr


def test_run_counts_texts_a_backend_cannot_score(tmp_path: Path) -> None:
    from _servers import ChatServer

    server = ChatServer()
    try:
        run = tmp_path / "run"
        done = creval("run", "metric-validity", "--model", "openai:m", "--base-url", server.url,
                      "--metrics", "ppl,templates", "--limit", "4", "--out", str(run),
                      "--no-progress", env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    (reason,) = [r for r in scores["excluded"] if r.startswith("ppl:")]
    assert scores["excluded"][reason] == 4 and "local, local:PATH.gguf, hf:NAME" in reason
    assert [row["metric"] for row in scores["separation"]] == ["tpt"]  # the other metrics still ran
    texts = [i.text for i in load_domain("problem-solving")]
    assert not [b for b in server.bodies if any(t in json.dumps(b) for t in texts)]  # never asked


def _usage(run: Path, spec: str) -> dict[str, int]:
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    return dict(scores["usage"]["this_invocation"]["models"].get(spec, {}))


@pytest.mark.slow
def test_perplexity_units_are_counted_then_cached_and_record_their_window(tmp_path: Path) -> None:
    """Through the runner: the first run asks once per text (windows of 16 tokens every 8:
    several requests per text), a second run into a new folder gets every text from the
    response cache, and each unit records the window it was scored with."""
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    args = ["run", "metric-validity", "--model", "local", "--metrics", "ppl", "--limit", "2",
            "--ppl-window", "16", "--ppl-stride", "8", "--no-progress"]
    first = creval(*args, "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    counted = _usage(tmp_path / "a", "local")
    records = [json.loads(line) for line in (tmp_path / "a" / "records.jsonl").read_text().splitlines()]
    outputs = [r["output"] for r in records]
    assert all((o["ppl_window"], o["ppl_stride"]) == (16, 8) and o["ppl_windows"] > 1 for o in outputs)
    assert counted["requests"] == sum(o["ppl_windows"] for o in outputs) and counted["cache_hits"] == 0
    notes = " ".join(json.loads((tmp_path / "a" / "scores.json").read_text())["notes"])
    assert "windows of 16 tokens every 8" in notes and "2 text(s) needed more than one" in notes
    again = creval(*args, "--out", str(tmp_path / "b"))
    assert again.returncode == 0, again.stderr
    cached = _usage(tmp_path / "b", "local")
    assert cached["requests"] == 0 and cached["cache_hits"] == 2
    a = json.loads((tmp_path / "a" / "scores.json").read_text())["per_text"]
    b = json.loads((tmp_path / "b" / "scores.json").read_text())["per_text"]
    assert {k: v["ppl"] for k, v in a.items()} == {k: v["ppl"] for k, v in b.items()}


@pytest.mark.slow
def test_an_openai_endpoint_with_vllm_prompt_logprobs_gives_the_local_perplexity(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    from _prompt_server import PromptServer

    args = ["run", "metric-validity", "--metrics", "ppl", "--limit", "2", "--no-progress"]
    server = PromptServer("vllm")
    try:
        remote = creval(*args, "--model", "openai:smollm2", "--base-url", server.url,
                        "--prompt-logprobs", "auto", "--out", str(tmp_path / "remote"),
                        env={"OPENAI_API_KEY": "test"})
    finally:
        server.close()
    assert remote.returncode == 0, remote.stderr
    local = creval(*args, "--model", "local", "--out", str(tmp_path / "local"))
    assert local.returncode == 0, local.stderr
    there = json.loads((tmp_path / "remote" / "scores.json").read_text())["per_text"]
    here = json.loads((tmp_path / "local" / "scores.json").read_text())["per_text"]
    assert len(there) == 2
    for key, row in here.items():
        assert there[key]["ppl"] == pytest.approx(row["ppl"], rel=1e-6)
    assert _usage(tmp_path / "remote", "openai:smollm2")["requests"] == 2


@pytest.mark.slow
def test_a_replay_serves_the_recorded_perplexities(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    args = ["run", "metric-validity", "--metrics", "ppl", "--limit", "2", "--no-progress", "--no-cache"]
    first = creval(*args, "--model", "local", "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    replayed = creval(*args, "--model", f"replay:{tmp_path / 'a'}", "--out", str(tmp_path / "b"))
    assert replayed.returncode == 0, replayed.stderr
    a = json.loads((tmp_path / "a" / "scores.json").read_text())
    b = json.loads((tmp_path / "b" / "scores.json").read_text())
    assert len(a["per_text"]) == 2 and not b["excluded"]
    assert {k: v["ppl"] for k, v in b["per_text"].items()} == {k: v["ppl"] for k, v in a["per_text"].items()}
