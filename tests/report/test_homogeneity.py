"""``creval compare --homogeneity`` on a grid of the offline model and two replayed runs: the
JSON's similarities against pair loops over the recorded answers, the page with its heat map in
headless Chromium, the Python API's frames, and the DAT people and published models placed."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import pytest
from _cli import creval
from _servers import scripted_dat_run
from tests_paths import shared_data_path

from creval.benchmarks.dat.lists import parse_word_list
from creval.records import latest_records, read_records

from ._browser import Browser, chromium_or_skip

WIDE = "1. volcano\n2. spoon\n3. justice\n4. violin\n5. tomato\n6. glacier\n7. pencil"
NARROW = ["1. cat\n2. dog\n3. mouse\n4. rat\n5. hamster\n6. gerbil\n7. ferret",
          "1. volcano\n2. spoon\n3. cat\n4. dog\n5. arm\n6. leg\n7. hand"]


def _record(out: Path, name: str, texts: list[str]) -> Path:
    """A small recorded DAT run of a scripted model answering ``texts`` in turn."""
    return scripted_dat_run(out, name, texts, trials=4)


def _words(run: Path) -> list[frozenset[str]]:
    records = latest_records(read_records(run / "records.jsonl")).values()
    lists = [frozenset(w.lower() for w in parse_word_list(r.output["text"])) for r in records]
    return [w for w in lists if w]


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b)


@pytest.mark.slow
def test_grid_of_local_and_two_replays_gives_matrix_and_permutation_tests(tmp_path: Path) -> None:
    wide, narrow = _record(tmp_path / "src", "A", [WIDE]), _record(tmp_path / "src", "B", NARROW)
    root = tmp_path / "grid"
    grid = creval("run", "dat", "--model", "local", "--model", f"replay:{wide}", "--model",
                  f"replay:{narrow}", "--trials", "4", "--max-tokens", "48", "--out", str(root),
                  "--no-progress")
    assert grid.returncode == 0, grid.stderr
    done = creval("compare", str(root), "--homogeneity", "--json", "--permutations", "200",
                  "--csv", str(tmp_path / "pairs.csv"), "--html", str(tmp_path / "same.html"))
    assert done.returncode == 0, done.stderr
    (doc,) = json.loads(done.stdout)
    assert doc["benchmark"] == "dat" and doc["measure"] == "word overlap (Jaccard)"
    assert doc["unit"] == "answer"  # one prompt: the interval is over answers
    runs = {m["model"]: Path(m["source"]) for m in doc["models"]}
    assert set(runs) == {"local", "replay:A", "replay:B"}

    # every number against pair loops over the recorded answers
    words = {label: _words(path) for label, path in runs.items()}
    within = {m["model"]: m for m in doc["models"]}
    for label, lists in words.items():
        pairs = [_jaccard(x, y) for x, y in itertools.combinations(lists, 2)]
        assert within[label]["within"] == pytest.approx(sum(pairs) / len(pairs))
        assert within[label]["low"] is None  # 4 answers: too few for an interval
    assert len(doc["pairs"]) == 3
    assert any("too few answers for an interval (needs 50)" in note for note in doc["notes"])
    for pair in doc["pairs"]:
        across = [_jaccard(x, y) for x in words[pair["a"]] for y in words[pair["b"]]]
        assert pair["similarity"] == pytest.approx(sum(across) / len(across))
        assert pair["low"] is None and pair["high"] is None
        assert 1 / 201 <= pair["p"] <= 1
    # by hand: A repeats one list; B alternates two lists sharing cat and dog; A and B share
    # volcano and spoon with B's second list only
    assert within["replay:A"]["within"] == 1.0
    assert within["replay:B"]["within"] == pytest.approx((2 + 4 * 2 / 12) / 6)
    ab = next(p for p in doc["pairs"] if {p["a"], p["b"]} == {"replay:A", "replay:B"})
    assert ab["similarity"] == pytest.approx(1 / 12)
    assert doc["matrix"][doc["groups"].index("replay:A")][doc["groups"].index("replay:A")] == 1.0

    rows = list(csv.DictReader((tmp_path / "pairs.csv").open()))
    assert {(r["a"], r["b"]) for r in rows} == {(p["a"], p["b"]) for p in doc["pairs"]}
    text = creval("compare", str(root), "--homogeneity", "--permutations", "50")
    assert text.returncode == 0 and "## dat: how alike" in text.stdout and "replay:B" in text.stdout

    # the page: the heat map drawn by the report's plotting library, in real Chromium
    page = (tmp_path / "same.html").read_text()
    assert page.count("<figure class=\"plot\" data-kind=\"heatmap\">") == 1, page[:3000]
    binary = chromium_or_skip()
    browser = Browser(binary, (tmp_path / "same.html").as_uri(), tmp_path / "profile")
    try:
        browser.wait_for("!!document.querySelector('section.homogeneity figure.plot svg')")
        assert browser.js("document.querySelector('figure.plot').dataset.kind") == "heatmap"
        assert browser.js("document.querySelectorAll('figure.plot svg image, figure.plot svg path').length") > 0
        labels = browser.js("Array.from(document.querySelectorAll('figure.plot svg text')).map(t => t.textContent)")
        assert "replay:B" in labels and "1.00" in labels
        assert browser.js("document.querySelectorAll('section.homogeneity table')[1].rows.length") == 4
    finally:
        browser.close()

    # the Python API, with the people and the five published models placed
    from creval.evaluation.compare.homogeneity import compare_homogeneity

    (result,) = compare_homogeneity(root, people=shared_data_path("dat-humans"), max_answers=60,
                                    resamples=200, permutations=50)
    models = result.models_df().set_index("model")
    assert {"people", "published:gpt-4", "published:vicuna-13b"} <= set(models.index)
    for label in runs:
        assert models.loc[label, "nearest"] in set(models.index[models["kind"] != "run"])
        assert models.loc[label, "within"] == pytest.approx(within[label]["within"])
    assert models.loc["people", "answers"] == 60 and 0 < models.loc["people", "within"] < 0.2
    # the finding the docs report: each published model repeats its words more than people do
    # (beyond the intervals where both have 50 answers, the fewest the interval over answers needs)
    for label in models.index[models["kind"] == "published"]:
        assert models.loc["people", "within"] < models.loc[label, "within"], label
        if models.loc[label, "answers"] >= 50:
            assert models.loc["people", "high"] < models.loc[label, "low"], label
    pairs = result.pairs_df()
    assert len(pairs) == len(models) * (len(models) - 1) // 2
    assert result.matrix_df().loc["replay:A", "replay:A"] == 1.0
