"""Oogiri's rewriter as a model role of its own (``--rewriter SPEC``): it writes the missing
distractors on its own endpoint while the tested model answers the questions, and falls back
to ``--judge``, then to the tested model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests._cli import creval
from tests._servers import ChatServer
from tests.benchmarks.oogiri.test_oogiri import rows, scripted


def rewriting(body: dict[str, Any]) -> bool:
    text = str(body["messages"])
    return "plain, literal answer" in text or "loses the joke" in text


def oogiri_go(tmp_path: Path) -> Path:
    """Two text prompts without literal answers or rewrites: the rewriter writes both."""
    data = tmp_path / "data"
    data.mkdir()
    lines = [{"type": "T2T", "question": q, "image": None, "text": f"joke {j}", "star": 10 - j}
             for q in ("Why is the moon round?", "Name a bad superpower.") for j in range(5)]
    (data / "en.jsonl").write_text(rows(*lines))
    return data


def test_the_rewriter_role_writes_distractors_on_its_own_model(tmp_path: Path) -> None:
    data = oogiri_go(tmp_path)
    main, rewriter = ChatServer(reply=scripted), ChatServer(reply=scripted)
    out = tmp_path / "run"
    args = ["run", "oogiri", "--model", "openai:player", "--base-url", main.url, "--api-key",
            "x", "--no-progress", "--no-cache", "--source", str(data), "--test-share", "0.9",
            "--out", str(out)]
    try:
        done = creval(*args, "--rewriter", "openai:qwen", "--rewriter-base-url", rewriter.url)
        assert done.returncode == 0, done.stderr
        assert main.bodies and not any(rewriting(b) for b in main.bodies)
        assert {b["model"] for b in main.bodies} == {"player"}
        assert len(rewriter.bodies) == 4  # a literal answer and a rewrite per prompt
        assert all(rewriting(b) and b["model"] == "qwen" for b in rewriter.bodies)
        scores = json.loads((out / "scores.json").read_text())
        per_model = scores["usage"]["this_invocation"]["models"]
        assert per_model["openai:qwen"]["requests"] == 4
        assert per_model["openai:player"]["requests"] == len(main.bodies)
        assert "judged_by" not in scores["headline"]
        role = json.loads((out / "manifest.json").read_text())["roles"]["rewriter"]
        assert (role["spec"], role["chosen_by"]) == ("openai:qwen", "--rewriter")
        assert role["identity"]["base_url"].rstrip("/") == rewriter.url.rstrip("/")
        records = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
        assert all(r["output"]["generated"]["rewrite"]["text"] == "A rewritten answer."
                   for r in records)

        changed = creval(*args, "--rewriter", "openai:qwen-72b", "--rewriter-base-url", rewriter.url)
        assert changed.returncode == 2 and "different rewriter model" in changed.stderr

        fallback = tmp_path / "fallback"
        judged = creval(*args[:-1], str(fallback), "--judge", "openai:judge")
        assert judged.returncode == 0, judged.stderr
        role = json.loads((fallback / "manifest.json").read_text())["roles"]["rewriter"]
        assert (role["spec"], role["chosen_by"]) == ("openai:judge", "--judge")
        assert {b["model"] for b in main.bodies if rewriting(b)} == {"judge"}

        own = tmp_path / "own"
        itself = creval(*args[:-1], str(own))
        assert itself.returncode == 0, itself.stderr
        scores = json.loads((own / "scores.json").read_text())
        assert scores["headline"]["judged_by"].startswith("self-judged")
        assert any("--rewriter SPEC" in w for w in scores["warnings"])
    finally:
        main.close()
        rewriter.close()
