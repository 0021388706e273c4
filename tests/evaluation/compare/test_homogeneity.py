"""``compare --homogeneity`` refuses what it cannot compare and says what it left out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import creval
from _servers import ChatServer, scripted_dat_run

LISTS = ["1. cat\n2. dog\n3. sun", "1. cat\n2. moon\n3. sea", "I would rather not."]


def _dat(out: Path, name: str, *extra: str) -> Path:
    return scripted_dat_run(out, name, LISTS, *extra, trials=3, exit_codes=(0, 1, 3))


def test_refusals_and_notes(tmp_path: Path) -> None:
    one, two = _dat(tmp_path / "runs", "one"), _dat(tmp_path / "runs", "two")
    done = creval("compare", str(one), str(two), "--homogeneity", "--json", "--permutations", "20")
    assert done.returncode == 0, done.stderr
    (doc,) = json.loads(done.stdout)
    # the refusal parses to no word and is left out: two lists per run sharing "cat"
    assert [m["answers"] for m in doc["models"]] == [2, 2]
    assert [m["within"] for m in doc["models"]] == [1 / 5, 1 / 5]
    assert doc["pairs"][0]["similarity"] == pytest.approx((1 + 1 + 1 / 5 + 1 / 5) / 4)

    alone = creval("compare", str(one), "--homogeneity")
    assert alone.returncode == 2 and "at least two models" in alone.stderr
    other = _dat(tmp_path / "other", "three", "--words", "5")
    mixed = creval("compare", str(one), str(other), "--homogeneity")
    assert mixed.returncode == 2 and "differ in --words" in mixed.stderr
    bad = creval("compare", str(one), str(two), "--homogeneity", "--permutations", "-1")
    assert bad.returncode == 2 and "permutations at least 0" in bad.stderr
    people = creval("compare", str(one), "--homogeneity", "--people", str(tmp_path))
    assert people.returncode == 2 and "not a dat-humans folder" in people.stderr


REWRITES = {"A": "A robot in a city helps a lonely child find a friend.",
            "B": "A robot in a city helps a lonely kid find friends.",
            "C": "The stock market crashed and bankers wept over spreadsheets."}


@pytest.mark.slow
def test_sat_rewrites_compared_by_the_runs_embedder(tmp_path: Path) -> None:
    from scipy.spatial.distance import cosine

    from creval.embed import get_embedder

    for name, text in REWRITES.items():
        server = ChatServer(reply=lambda body, text=text: (200, text))
        try:
            done = creval("run", "sat", "--model", f"openai:{name}", "--base-url", server.url,
                          "--limit", "2", "--no-progress", "--out", str(tmp_path / name))
        finally:
            server.close()
        assert done.returncode == 0, done.stderr
    done = creval("compare", str(tmp_path), "--homogeneity", "--json", "--permutations", "50")
    assert done.returncode == 0, done.stderr
    (doc,) = json.loads(done.stdout)
    assert doc["measure"] == "cosine similarity of embeddings" and "MiniLM" in json.dumps(doc["embedder"])
    assert all(m["within"] is None for m in doc["models"])  # one rewrite per model and story
    vectors = dict(zip(REWRITES, get_embedder("minilm").embed(list(REWRITES.values())), strict=True))
    for pair in doc["pairs"]:
        a, b = pair["a"].removeprefix("openai:"), pair["b"].removeprefix("openai:")
        assert pair["items"] == 2
        assert pair["similarity"] == pytest.approx(1 - cosine(vectors[a], vectors[b]), abs=1e-5)
    assert doc["pairs"][0]["similarity"] > 0.9 > doc["pairs"][1]["similarity"]
