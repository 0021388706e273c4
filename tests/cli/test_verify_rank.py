"""``creval verify`` of a ``creval rank`` directory (issue 42, case 7): the pairs are planned
again from rank.json and the ranked runs, every verdict replayed against what the judge
returned, the ratings computed again; a rewritten ``output.winner`` is named."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer

from creval.records import CHAIN, chain_digest

RUBRIC = "Fluency: 3\nFlexibility: 3\nOriginality: 3\nElaboration: 3"
ANSWER = re.compile(r"Answer by (\w+)")


def _reply(body: dict[str, Any]) -> tuple[int, str]:
    content = body["messages"][-1]["content"]
    if "[Question]" in content:
        return 200, RUBRIC
    if body["model"] == "judge":  # prefers "best" wherever it is shown, else the first answer
        first, second = ANSWER.findall(content)[:2]
        return 200, f"Winner: {'B' if second == 'best' else 'A'}"
    return 200, f"Answer by {body['model']} to {len(content)}"


@pytest.fixture(scope="module")
def ranked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ranked")
    server = ChatServer(reply=_reply)
    try:
        runs = []
        for name in ("best", "plain", "other"):
            done = creval("run", "ttct", "--model", f"openai:{name}", "--base-url", server.url,
                          "--judge", "openai:rubric", "--judge-base-url", server.url, "--limit", "3",
                          "--answers", "1", "--max-tokens", "16", "--no-progress", "--no-cache",
                          "--out", str(root / name))
            assert done.returncode == 0, done.stderr
            runs.append(str(root / name))
        done = creval("rank", *runs, "--judge", "openai:judge", "--judge-base-url", server.url,
                      "--out", str(root / "rank"), "--resamples", "50", "--no-cache", "--json")
        assert done.returncode == 0, done.stderr
    finally:
        server.close()
    return root / "rank"


def verify(path: Path) -> tuple[int, list[str], str]:
    done = creval("verify", str(path), "--json")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    found = json.loads(done.stdout)
    return done.returncode, [d for r in found for d in (*r["differences"], *r["unverified"])], done.stdout


def test_a_rank_verifies_by_replay(ranked: Path) -> None:
    code, said, text = verify(ranked)
    assert code == 0 and said == [], text
    assert json.loads(text)[0]["replayed"] == 3 * 3 * 2  # 3 pairs, 3 items, both orders


@pytest.mark.unverified_runs("rewrites the rank's verdicts (case 7)")
def test_case_7_rewritten_winners_are_named(ranked: Path, tmp_path: Path) -> None:
    rank = tmp_path / "rank"
    shutil.copytree(ranked, rank)
    rows = [json.loads(x) for x in (rank / "records.jsonl").read_text().splitlines()]
    previous = ""
    for row in rows:  # every verdict flipped, the chain computed again
        row.pop(CHAIN)
        row["output"]["winner"] = {"A": "B", "B": "A"}.get(row["output"]["winner"], "tie")
        previous = row[CHAIN] = chain_digest(previous, row)
    (rank / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    log = [json.loads(x) for x in (rank / "invocations.jsonl").read_text().splitlines()]
    log[-1].update(records_head=previous, records_lines=len(rows))
    (rank / "invocations.jsonl").write_text("".join(json.dumps(e) + "\n" for e in log))
    code, said, _ = verify(rank)
    assert code == 1 and any(": output.winner: replayed " in d for d in said), said
