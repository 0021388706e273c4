"""``--preset paper``: the paper's judge and resources, checked before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

from _cli import creval
from _servers import ChatServer

OFFLINE = {"OPENAI_API_KEY": "", "HF_HUB_OFFLINE": "1", "CREVAL_GLOVE_840B": "",
           "CREVAL_OLSON_WORDS": ""}


def test_missing_resources_are_listed_with_how_to_provide_them(tmp_path: Path) -> None:
    done = creval("run", "dat", "macgyver", "--preset", "paper", "--lang", "en",
                  "--out", str(tmp_path / "run"), env=OFFLINE)
    assert done.returncode == 2
    err = " ".join(done.stderr.split())
    for piece in ("CREVAL_GLOVE_840B", "CREVAL_OLSON_WORDS", "openai:gpt-4o", "OPENAI_API_KEY",
                  "tasksource/deberta-base-long-nli", "stella_en_1.5B_v5"):
        assert piece in err
    assert not (tmp_path / "run").exists()


def test_paper_resources_and_judge_are_used_when_present(tmp_path: Path) -> None:
    words = ["volcano", "spoon", "justice", "violin", "tomato", "glacier", "pencil"]
    glove = tmp_path / "glove.txt"
    glove.write_text("".join(f"{w} {' '.join(str(float(i == j)) for j in range(7))}\n"
                             for i, w in enumerate(words)))
    dictionary = tmp_path / "words.txt"
    dictionary.write_text("\n".join(words) + "\n")
    server = ChatServer(reply=lambda body: (200, "\n".join(words)))
    env = {**OFFLINE, "CREVAL_GLOVE_840B": str(glove), "CREVAL_OLSON_WORDS": str(dictionary),
           "OPENAI_API_KEY": "sk-test"}
    try:
        dat = creval("run", "dat", "--preset", "paper", "--model", "openai:m", "--base-url",
                     server.url, "--trials", "2", "--no-progress", "--out", str(tmp_path / "dat"),
                     env=env)
        ttct = creval("run", "ttct", "--preset", "paper", "--model", "openai:m", "--base-url",
                      server.url, "--judge-base-url", server.url, "--limit", "1", "--answers", "1",
                      "--no-progress", "--allow-no-score", "--out", str(tmp_path / "ttct"), env=env)
    finally:
        server.close()
    assert dat.returncode == 0, dat.stderr
    options = json.loads((tmp_path / "dat" / "manifest.json").read_text())["options"]
    assert options["vectors"] == f"glove:{glove}" and options["dictionary"] == str(dictionary)
    scores = json.loads((tmp_path / "dat" / "scores.json").read_text())
    assert scores["headline"]["dat_mean"] == 100.0  # orthogonal one-hot vectors
    assert ttct.returncode == 0, ttct.stderr
    manifest = json.loads((tmp_path / "ttct" / "manifest.json").read_text())
    assert manifest["judge"]["spec"] == "openai:gpt-4o"
    assert "judged_by" not in json.loads((tmp_path / "ttct" / "scores.json").read_text())["headline"]
