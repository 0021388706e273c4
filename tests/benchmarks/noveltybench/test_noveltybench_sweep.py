"""``creval sweep noveltybench``: distinct answers against the judge's mean rating per
temperature, from a loopback model that repeats itself when cold and varies when hot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests._cli import creval
from tests._servers import ChatServer, novelty_same


def reply(body: dict[str, Any]) -> tuple[int, str]:
    text = body["messages"][-1]["content"]
    if (verdict := novelty_same(text)) is not None:
        return 200, verdict
    if "Rate how good" in text:
        return 200, "4" if "cold" in text else "8"
    if body["temperature"] < 0.5:
        return 200, "a cold answer"
    return 200, f"hot answer number {body['seed']}"


def test_sweep_draws_distinct_against_rating(tmp_path: Path) -> None:
    server = ChatServer(reply=reply)
    try:
        done = creval("sweep", "noveltybench", "--model", "openai:tempered", "--base-url",
                      server.url, "--api-key", "x", "--judge", "openai:j", "--values",
                      "temperature=0.2,1.0", "--k", "3",
                      "--limit", "2", "--no-progress", "--resamples", "200",
                      "--out", str(tmp_path / "sw"))
    finally:
        server.close()
    assert done.returncode == 0, done.stdout + done.stderr
    points = json.loads((tmp_path / "sw" / "sweep.json").read_text())["points"]
    by_t = {p["value"]: p for p in points if p["benchmark"] == "noveltybench"}
    assert (by_t[0.2]["estimate"], by_t[0.2]["quality"]) == (1.0, 4.0)
    assert (by_t[1.0]["estimate"], by_t[1.0]["quality"]) == (3.0, 8.0)
    assert by_t[1.0]["quality_measure"] == "mean_rating"
