"""``creval score ppl`` through the runner: counted requests, the response cache on a second
call, windows recorded per text, and a clear exit 2 for an endpoint that cannot score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import creval

LONG = ("The caravan left the oasis before sunrise, and by noon the dunes had swallowed every "
        "trace of the road, so the guide steered by the shape of the wind on the sand.")


@pytest.mark.slow
def test_score_ppl_counts_requests_then_reads_the_cache(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp", reason="needs the 'local' extra")
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"id": "long", "text": LONG}) + "\n" + json.dumps({"id": "empty", "text": " "}) + "\n")
    args = ["score", "ppl", str(texts), "--model", "local", "--window", "16", "--stride", "8",
            "--cache", str(tmp_path / "cache.sqlite")]
    first = creval(*args)
    assert first.returncode == 0, first.stderr
    rows = {r["id"]: r for r in map(json.loads, first.stdout.splitlines())}
    assert rows["empty"] == {"id": "empty", "excluded": "empty text"}
    long = rows["long"]
    assert (long["window"], long["stride"]) == (16, 8) and long["windows"] > 2 and long["ppl"] > 1
    assert f"({long['windows']} requests, 0 cache hits)" in first.stderr
    again = creval(*args)
    assert again.returncode == 0, again.stderr
    assert "(0 requests, 1 cache hits)" in again.stderr
    assert again.stdout == first.stdout


def test_score_ppl_rejects_an_unknown_prompt_logprobs_setting(tmp_path: Path) -> None:
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"text": "A short text."}\n')
    done = creval("score", "ppl", str(texts), "--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1",
                  "--prompt-logprobs", "always")
    assert done.returncode == 2 and "--prompt-logprobs takes off, auto, vllm or echo" in done.stderr


@pytest.mark.slow
def test_score_ppl_against_llama_cpp_server_is_a_clear_exit_2(llama_server: str, tmp_path: Path) -> None:
    """llama-cpp-python's server has no prompt_logprobs and its echo is misaligned: the probe
    finds neither, and the command stops naming what can score texts."""
    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"text": "A short text to score."}\n')
    done = creval("score", "ppl", str(texts), "--model", "openai:smollm2", "--base-url", llama_server,
                  "--prompt-logprobs", "auto", env={"OPENAI_API_KEY": "test"})
    assert done.returncode == 2, done.stderr
    assert "was probed and gives no prompt log-probabilities" in done.stderr
    assert "local" in done.stderr and "--prompt-logprobs vllm" in done.stderr
    assert "Traceback" not in done.stderr
