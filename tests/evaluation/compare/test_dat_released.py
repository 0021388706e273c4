"""English DAT placed among Chen and Ding's released models and the people, every list
re-scored by the run's scorer, with an unpaired test; through the command line."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import creval
from _servers import scripted_dat_run
from tests_paths import shared_data_path

from creval.benchmarks.base import get_benchmark
from creval.benchmarks.dat.humans import read_model_words
from creval.benchmarks.dat.scoring import DATScorer
from creval.metrics.paired import holm
from creval.metrics.unpaired import permutation_p, unpaired_difference

LISTS = ["\n".join(w) for w in (
    ["cat", "violin", "tomato", "glacier", "ladder", "justice", "magnet", "blanket", "volcano", "pencil"],
    ["harbor", "engine", "giraffe", "microscope", "philosophy", "umbrella", "pizza", "river", "candle", "doctor"],
    ["elephant", "democracy", "bicycle", "laughter", "software", "necklace", "ocean", "chair", "time", "guitar"],
    ["tree", "hammer", "cloud", "freedom", "spoon", "mountain", "jacket", "planet", "butter", "soldier"],
)]
MODELS = {"gpt-4", "gpt-3.5-turbo", "oa-30b", "vicuna-13b", "chatglm-6b"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A small dat-humans folder (the released model lists and 150 people) and DAT runs at
    the released condition, at another temperature and with another --minimum."""
    root = tmp_path_factory.mktemp("released")
    humans = root / "dat-humans"
    shutil.copytree(shared_data_path("dat-humans", "models"), humans / "models")
    lines = shared_data_path("dat-humans", "human-level", "study2.tsv").read_text(encoding="utf-8").splitlines()
    (humans / "human-level").mkdir(parents=True)
    (humans / "human-level" / "study2.tsv").write_text("\n".join(lines[:151]) + "\n", encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CREVAL_CACHE_DIR", str(root / "cache"))
        people = ("--people", str(humans))
        out = {
            "placed": scripted_dat_run(root, "placed", LISTS, "--temperature", "0.7", "--top-p", "0.9",
                                       *people, trials=8),
            "hot": scripted_dat_run(root, "hot", LISTS, "--temperature", "1.0", *people, trials=6),
            "min3": scripted_dat_run(root, "min3", LISTS, "--temperature", "0.7", "--top-p", "0.9",
                                     "--minimum", "3", *people, trials=6),
            "humans": humans,
        }
        yield out


def test_references_check_places_the_run_among_released_models_and_people(runs: dict[str, Path]) -> None:
    done = creval("references", "check", str(runs["placed"]))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "dat-en-released-top-p (seed 004): comparable (values in x100)" in text
    for model in MODELS:
        assert f"    {model} " in text
    assert "people (Olson et al. study 2)" in text and "published - this run = " in text
    assert "(unpaired, " in text and "p_holm" in text
    # greedy is the other released condition: not comparable, the reason names the temperature
    greedy = text.split("dat-en-released-greedy")[1]
    assert greedy.startswith(" (seed 004): not comparable") and "temperature=0.7, the paper used 0.0" in greedy
    # the Japanese paper's protocol says nothing of an English run
    assert "dat-ja" not in text and "lang=en" not in text and "embedder=" not in text


def test_placement_is_the_unpaired_test_of_the_rescored_lists(runs: dict[str, Path]) -> None:
    checks = json.loads(creval("references", "check", str(runs["placed"]), "--json").stdout)
    placed = [c for c in checks if c["placement"]]
    assert {c["subject"] for c in placed} == MODELS | {"people (Olson et al. study 2)"}
    assert all(c["protocol"] == "dat-en-released-top-p" and c["unit"] == "x100" for c in placed)
    # independently: GPT-4's released top-p lists re-scored by the run's scorer, and the test
    scorer = DATScorer.from_options(get_benchmark("dat").parse_options({}))
    gpt4 = [s for s in (scorer.score_words([w.lower() for w in m.words]).score
                        for m in read_model_words(runs["humans"], "top_p") if m.model == "gpt-4")
            if s is not None]
    scores = json.loads((runs["placed"] / "scores.json").read_text())
    ours = [v for v in scores["per_item"]["dat_mean"] if v is not None]
    row = next(c for c in placed if c["subject"] == "gpt-4")
    assert row["value"] == pytest.approx(sum(gpt4) / len(gpt4))
    d = unpaired_difference(gpt4, ours)
    assert row["placement"]["difference"] == pytest.approx(d.difference, abs=1e-5)
    assert d.low is None and row["placement"]["low"] is None  # 8 trials: too few for one
    assert row["placement"]["interval_note"] == d.reason == ("n=8: too few items for an "
                                                             "interval (needs 30)")
    ps = [c["placement"]["p"] for c in placed]
    assert row["placement"]["p"] == pytest.approx(permutation_p(gpt4, ours))
    assert [c["placement"]["p_holm"] for c in placed] == pytest.approx(holm(ps))


def test_compare_published_and_the_profile_place_it_unpaired(runs: dict[str, Path]) -> None:
    from creval.evaluation.profile.data import place
    from creval.reader import read_run

    done = creval("compare", str(runs["placed"]), "--published", "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert {r["subject"] for r in rows} == MODELS | {"people (Olson et al. study 2)"}
    assert all(r["test"] == "unpaired" and r["unit"] == "x100" and r["mdd"] is None
               and r["verdict_of"] == str(runs["placed"]) for r in rows)
    table = creval("compare", str(runs["placed"]), "--published").stdout
    assert "unpaired" in table and "x100" in table
    refs = place(read_run(runs["placed"]), "dat_mean")
    placed = [r for r in refs if r["placement"]]
    assert len(placed) == 6 and all(r["comparable"] and r["unit"] == "x100" for r in placed)


def test_another_temperature_is_not_placed_with_the_reason(runs: dict[str, Path]) -> None:
    text = creval("references", "check", str(runs["hot"])).stdout
    assert "dat-en-released-top-p (seed 004): not comparable" in text
    assert "temperature=1.0, the paper used 0.7" in text and "top_p=1.0, the paper used 0.9" in text
    assert "published - this run" not in text
    done = creval("compare", str(runs["hot"]), "--published")
    assert done.returncode == 2
    assert "not comparable with the released lists" in done.stderr
    assert "temperature=1.0, the paper used 0.7" in done.stderr


def test_runs_scored_differently_are_grouped_apart_or_refused(runs: dict[str, Path]) -> None:
    done = creval("compare", str(runs["placed"]), str(runs["min3"]))
    assert done.returncode == 0, done.stderr
    # runs are read in path order: min3 first, then placed
    assert "## dat (measured differently: minimum=7, the first run used 3)" in done.stdout
    assert "different item sets" not in done.stdout
    strict = creval("compare", str(runs["placed"]), str(runs["min3"]), "--strict")
    assert strict.returncode == 2 and "minimum=7, the first run used 3" in strict.stderr
    paired = creval("compare", str(runs["placed"]), str(runs["min3"]), "--paired")
    assert paired.returncode == 2 and "minimum=3, the first run used 7" in paired.stderr


def test_other_sampling_is_ranked_together_and_other_item_counts_are_said(runs: dict[str, Path]) -> None:
    done = creval("compare", str(runs["placed"]), str(runs["hot"]))
    assert done.returncode == 0, done.stderr
    assert "measured differently" not in done.stdout
    assert f"dat: different item sets: {runs['hot']} 6 items, {runs['placed']} 8 items" in done.stdout


def test_two_dat_runs_compared_unpaired_naming_whose_standing(runs: dict[str, Path]) -> None:
    done = creval("compare", str(runs["placed"]), str(runs["hot"]), "--paired", "--json")
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert row["test"] == "unpaired" and row["subject"] == str(runs["placed"])
    assert row["verdict_of"] == str(runs["hot"]) and row["mdd"] is None
    assert "no item ids" not in done.stdout + done.stderr


def test_profiles_measured_differently_are_ranked_apart(tmp_path: Path) -> None:
    from _servers import ChatServer

    def reply(body: dict[str, object]) -> tuple[int, str]:
        return 200, LISTS[int(body.get("seed") or 0) % len(LISTS)]  # type: ignore[call-overload]

    server = ChatServer(reply=reply)
    key = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
    try:
        for name, extra in (("a", ()), ("b", ("--set", "dat.minimum=3"))):
            done = creval("profile", "--model", f"openai:{name}", "--base-url", server.url,
                          "--only", "dat", "--size", "smoke", "--set", "dat.trials=3", *extra,
                          "--no-progress", "--out", str(tmp_path / name), env=key)
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        server.close()
    done = creval("compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert done.returncode == 0, done.stderr
    assert "[group 1]" in done.stdout and "[group 2]" in done.stdout
    assert f"dat group 2 ({tmp_path / 'b'}) measured differently from group 1: minimum=3, the first run used 7" in done.stdout
    strict = creval("compare", str(tmp_path / "a"), str(tmp_path / "b"), "--strict")
    assert strict.returncode == 2 and "minimum=3, the first run used 7" in strict.stderr


@pytest.mark.unverified_runs("changes the people's file the run read, on purpose")
def test_the_people_are_the_ones_the_run_read(runs: dict[str, Path], tmp_path: Path) -> None:
    """Placed from the dat-humans folder the run recorded, found by its digests (a moved folder
    still places it); with the people's file changed the run is refused, naming the file."""
    moved = tmp_path / "elsewhere" / "dat-humans"
    shutil.copytree(runs["humans"], moved)
    run = tmp_path / "placed"
    shutil.copytree(runs["placed"], run)
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["inputs"]["files"]["people"]["path"] = str(tmp_path / "gone")
    (run / "manifest.json").write_text(json.dumps(manifest))
    env = {"CREVAL_DAT_HUMANS": str(moved)}
    done = creval("references", "check", str(run), env=env)
    assert done.returncode == 0 and "dat-en-released-top-p (seed 004): comparable" in done.stdout, done.stderr
    people = moved / "human-level" / "study2.tsv"
    people.write_text(people.read_text(encoding="utf-8").replace("\n", "\n", 1)[:-200] + "\n", encoding="utf-8")
    done = creval("references", "check", str(run), env=env)
    # verify runs first: the run's human_percentile cannot be re-derived, so it is not compared
    assert done.returncode == 2 and "comparable" not in done.stdout
    assert "no place holds what the run read" in done.stderr and "study2.tsv" in done.stderr, done.stderr
