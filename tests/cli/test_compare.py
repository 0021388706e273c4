"""``creval compare``: a leaderboard per benchmark across models, with bootstrap intervals."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from _cli import creval
from _servers import ChatServer

UNRELATED = "1. volcano\n2. spoon\n3. justice\n4. violin\n5. tomato\n6. glacier\n7. pencil"
RELATED = ["1. cat\n2. dog\n3. mouse\n4. rat\n5. hamster\n6. gerbil\n7. ferret",
           "1. arm\n2. leg\n3. hand\n4. foot\n5. head\n6. eye\n7. ear"]


def _server(texts: list[str]) -> ChatServer:
    state = {"i": 0}

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        state["i"] += 1
        return 200, texts[state["i"] % len(texts)]

    return ChatServer(reply=reply)


def test_compare_ranks_models_with_intervals_and_writes_csv_and_html(tmp_path: Path) -> None:
    for name, texts in (("wide", [UNRELATED]), ("narrow", RELATED)):
        server = _server(texts)
        try:
            done = creval("run", "dat", "--model", f"openai:{name}", "--base-url", server.url,
                          "--trials", "10", "--no-progress", "--out", str(tmp_path / name / "dat"))
        finally:
            server.close()
        assert done.returncode == 0, done.stderr
    table = creval("compare", str(tmp_path), "--csv", str(tmp_path / "board.csv"),
                   "--html", str(tmp_path / "board.html"))
    assert table.returncode == 0, table.stderr
    assert "## dat" in table.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "board.csv").read_text())))
    assert [r["model"] for r in rows] == ["openai:wide", "openai:narrow"]  # best first
    wide, narrow = rows
    assert float(wide["dat_mean"]) > float(narrow["dat_mean"])
    # ten identical answers: nothing varied, no interval; two alternating lists: a real one
    assert wide["dat_mean_low"] == wide["dat_mean_high"] == "" and wide["dat_mean_n"] == "10"
    assert wide["dat_mean_interval"] == "all 10 values are equal: nothing varied, no interval"
    assert float(narrow["dat_mean_low"]) < float(narrow["dat_mean"]) < float(narrow["dat_mean_high"])
    assert narrow["units"] == "10/10" and int(narrow["requests"]) == 10
    assert "<h2>dat</h2>" in (tmp_path / "board.html").read_text()
    missing = creval("compare", str(tmp_path / "nothing"))  # named (issue 44)
    assert missing.returncode == 2 and "nothing does not exist" in missing.stderr
    (tmp_path / "nothing").mkdir()
    empty = creval("compare", str(tmp_path / "nothing"))
    assert empty.returncode == 2 and "No creval run directory" in empty.stderr
