"""``--repeats`` end to end with the offline model: DAT, SAT and TTCT write the variance split;
repeat 0 is the run without repeats, and raising K resumes, asking only the new samples."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

from creval.benchmarks.repeats import REPEAT_STRIDE


def _records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def released_lists(people: Path) -> list[str]:
    """GPT-4's 40 released DAT answers at temperature 1.0 (Chen and Ding 2023)."""
    rows = [json.loads(line) for line in
            (people / "models" / "temperature" / "gpt-4.json").read_text().splitlines() if line]
    return [row["ans"] for row in rows if row["t"] == 1.0]


def test_dat_repeats_resume_a_plain_run_and_split_its_variance(tmp_path: Path) -> None:
    # The offline model (135M) almost never names 7 valid nouns, so the answers here are
    # GPT-4's released lists, served by a loopback endpoint: one list per request seed.
    people = shared_data_path("dat-humans")
    lists = released_lists(people)

    def reply(body: dict[str, Any]) -> tuple[int, str]:
        return 200, lists[random.Random(int(body["seed"])).randrange(len(lists))]

    server = ChatServer(reply=reply)
    run = tmp_path / "dat"
    common = ["run", "dat", "--model", "openai:gpt-4-released", "--base-url", server.url,
              "--trials", "8", "--out", str(run), "--no-progress"]
    try:
        plain = creval(*common)
        before = (run / "records.jsonl").read_bytes()
        again = creval(*common, "--repeats", "2", env={"CREVAL_DAT_HUMANS": str(people)})
    finally:
        server.close()
    assert plain.returncode == 0, plain.stderr
    assert again.returncode == 0, again.stderr
    first = _records(run)[:8]  # (records are appended as units finish: in any order)
    assert sorted(r["key"] for r in first) == [f"trial-{i:05d}" for i in range(8)]
    assert all("repeat" not in r["unit"] for r in first)  # today's records
    assert (run / "records.jsonl").read_bytes().startswith(before)  # repeat 0 not asked again
    assert server.seen == 16  # 8 trials, then only the 8 new samples
    seeds = [b["seed"] for b in server.bodies]
    assert sorted(seeds[:8]) == list(range(8))
    assert sorted(seeds[8:]) == [REPEAT_STRIDE + i for i in range(8)]
    new = sorted(_records(run)[8:], key=lambda r: r["key"])
    assert [r["key"] for r in new] == [f"trial-{i:05d}~r1" for i in range(8)]
    assert [r["calls"][0]["first_sample"] for r in new] == [REPEAT_STRIDE + i for i in range(8)]
    scores = json.loads((run / "scores.json").read_text())
    noise = scores["noise"]["dat_mean"]
    assert "error" not in noise, noise
    assert noise["judge"] is None and noise["repeats"] == 2
    assert noise["items"] + noise["samples"] == pytest.approx(1.0, abs=1e-5)
    assert noise["reliability"] == noise["items"] and noise["floor"] > 0
    # the people's test-retest of study 1C, as scipy computes it from the file
    from scipy.stats import pearsonr

    rows = [line.split("\t") for line in
            (people / "human-level" / "study1c.tsv").read_text().splitlines()[1:]]
    expected = pearsonr([float(r[3]) for r in rows], [float(r[4]) for r in rows]).statistic
    assert noise["people_retest"]["n"] == 50
    assert noise["people_retest"]["r"] == pytest.approx(expected, abs=1e-6)
    report = (run / "report.md").read_text()
    assert "## Noise floor (repeats)" in report and "study 1C" in report
    assert 'id="noise"' in (run / "report.html").read_text()

    # compare against a replay of the same answers (its repeats from the recorded run): no
    # difference, within the noise
    replay = tmp_path / "replay"
    done = creval("run", "dat", "--model", f"replay:{run}", "--out", str(replay), "--no-progress")
    assert done.returncode == 0, done.stderr
    compared = creval("compare", str(run), str(replay))
    assert compared.returncode == 0, compared.stderr
    section = compared.stdout.split("## Noise floor")[1]
    assert "| dat | dat_mean |" in section and "within noise" in section


@pytest.mark.slow
def test_sat_repeats_from_python(tmp_path: Path) -> None:
    import creval as api

    result = api.evaluate("sat", model="local", limit=2, repeats=2, max_tokens=24,
                          out=tmp_path / "sat")
    scores = result["sat"].scores
    assert scores.units.total == 4 and scores.headline["stories"] == 2  # each story once
    assert scores.headline["rewrites"] == 4
    noise = scores.noise["sat_mean"]
    assert noise["judge"] is None and noise["n_items"] == 2 and noise["n_samples"] == 4
    assert noise["samples"] is not None and noise["samples"] + noise["items"] == pytest.approx(1.0, abs=1e-5)
    frame = result["sat"].run().noise_df()
    assert list(frame["measure"]) == ["sat_mean"] and frame["reliability"].iloc[0] == noise["reliability"]
    # no interval for the split: none of the methods tried covers (bench/README.md)
    assert frame["reliability_low"].iloc[0] is None and "no interval" in frame["interval_note"].iloc[0]
    assert "repeat" in result["sat"].run().samples_df().columns
    keys = [r["key"] for r in _records(tmp_path / "sat")]
    plain = [k for k in keys if "~r" not in k]
    assert len(plain) == 2 and sorted(keys) == sorted([*plain, *(f"{k}~r1" for k in plain)])


@pytest.mark.slow
def test_ttct_repeats_ask_the_judge_again_with_seeds_of_their_own(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        # scores follow the answer, and the judge's seed moves originality: a judge with noise
        answer, seed = body["messages"][-1]["content"], int(body.get("seed") or 0)
        a = len(answer) % 5 + 1
        return 200, (f"Fluency: {a}\nFlexibility: {6 - a}\nOriginality: {1 + seed % 3}\n"
                     f"Elaboration: {a}")

    judge = ChatServer(reply=reply)
    try:
        done = creval("run", "ttct", "--model", "local", "--judge", "openai:judge",
                      "--judge-base-url", judge.url, "--limit", "2", "--answers", "2",
                      "--repeats", "2", "--max-tokens", "24", "--out", str(tmp_path),
                      "--no-progress")
    finally:
        judge.close()
    assert done.returncode == 0, done.stderr
    # repeat 0: one verdict per answer (2 x 2); repeat 1: two per answer (2 x 2 x 2)
    assert judge.seen == 4 + 8
    assert sorted({b["seed"] for b in judge.bodies}) == [0, 2, 3]
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["headline"]["parsed"] == 8  # the headline takes the first verdicts only
    originality = scores["noise"]["originality"]
    assert originality["judge"] > 0 and originality["n_values"] == 12
    assert scores["noise"]["fluency"]["judge"] == 0.0  # the judge gives it from the answer alone
    records = _records(tmp_path)
    again = [r for r in records if r["key"].endswith("~r1")]
    assert len(again) == 2 and all(len(r["output"]["judgements_again"]) == 2 for r in again)


def test_profile_repeats_reach_the_benchmarks_that_repeat(tmp_path: Path) -> None:
    from creval.evaluation.profile.profiling import ProfileRequest, plan_profile

    plans = plan_profile(ProfileRequest(size="smoke", only=("dat", "lotbench"), repeats=3), tmp_path)
    options = {plan.benchmark.name: plan.options for _, plan in plans}
    assert options["dat"].repeats == 3  # type: ignore[attr-defined]
    assert options["lotbench"].repeats == 1  # type: ignore[attr-defined]  (games per sample)


def test_repeats_keep_the_units_of_a_run_without_them() -> None:
    from creval.benchmarks.base import get_benchmark

    for name, values in (("dat", {"trials": 3}), ("sat", {"limit": 2}), ("ttct", {"limit": 2})):
        bench = get_benchmark(name)
        plain = [u.key for u in bench.units(bench.parse_options(values))]
        three = [u.key for u in bench.units(bench.parse_options({**values, "repeats": 3}))]
        assert [k for k in three if "~r" not in k] == plain
        assert len(three) == 3 * len(plain)
        assert {k.rsplit("~r", 1)[1] for k in three if "~r" in k} == {"1", "2"}


def test_compare_marks_differences_below_the_floor() -> None:
    from types import SimpleNamespace

    from creval.records import Scores
    from creval.report.noise import compare_noise

    split = {"sat_mean": {"variance": {"items": 0.01, "samples": 0.0016, "judge": None}}}
    def run(model: str, mean: float, noise: dict[str, Any]) -> Any:
        scores = Scores(headline={"sat_mean": mean}, per_item={"sat_mean": [mean] * 16},
                        noise=noise)
        return SimpleNamespace(model=model, benchmark="sat", scores=scores)

    rows = compare_noise([run("a", 0.50, split), run("b", 0.51, {}), run("c", 0.60, {})])
    # floor = z * sqrt(0.0016 / 16 * 2), z = 1.959964 (b borrows a's noise variance)
    verdicts = {(r["a"], r["b"]): (r["floor"], r["verdict"]) for r in rows}
    assert verdicts[("a", "b")] == (pytest.approx(1.959964 * 0.0002 ** 0.5, abs=1e-6), "within noise")
    assert verdicts[("a", "c")][1] == "beyond noise"
    assert ("b", "c") not in verdicts  # neither measured its noise


def test_profile_dat_with_repeats_shows_the_floor(tmp_path: Path) -> None:
    people = shared_data_path("dat-humans")
    lists = released_lists(people)
    server = ChatServer(reply=lambda body: (200, lists[random.Random(int(body["seed"])).randrange(len(lists))]))
    try:
        done = creval("profile", "--model", "openai:gpt-4-released", "--base-url", server.url,
                      "--size", "smoke", "--only", "dat", "--set", "dat.trials=6", "--repeats",
                      "2", "--out", str(tmp_path), "--no-progress")
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    assert server.seen == 12
    document = json.loads((tmp_path / "profile.json").read_text())
    [measure] = [m for f in document["families"] for m in f["measurements"] if m["key"] == "dat_mean"]
    assert measure["noise"]["repeats"] == 2 and measure["noise"]["floor"] > 0
    assert "Noise floor" in (tmp_path / "profile.md").read_text()
    assert "Noise floor" in (tmp_path / "profile.html").read_text()


def test_profile_noise_names_the_published_models_within_the_floor() -> None:
    from creval.records import Scores
    from creval.report.noise import noise_sentence, profile_noise

    scores = Scores(headline={"mean": 3.0}, noise={"mean": {"floor": 0.2, "repeats": 2,
                                                            "reliability": 0.4, "items": 0.4}})
    refs = [{"subject": "a", "value": 3.1, "comparable": True},
            {"subject": "b", "value": 3.5, "comparable": True},
            {"subject": "c", "value": 3.0, "comparable": False}]
    noise = profile_noise(scores, "mean", refs)
    assert noise is not None and noise["within_noise"] == ["a"] and noise["placed"] == 2
    assert noise_sentence(noise).endswith("not distinguishable from a.")
    assert profile_noise(Scores(headline={"mean": 3.0}), "mean", refs) is None
