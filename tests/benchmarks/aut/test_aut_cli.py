"""The aut benchmark through the CLI, against people's rated responses (Ocsai, read in place):
each scorer runs; the correlation with people's ratings is printed with its interval and the
published scorers' beside it, recomputed here from the released CSVs; people's norms place a
model that repeats the common use low and one that returns people's top-rated uses high."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from scipy import stats

from tests._cli import creval
from tests._servers import ChatServer
from tests.tests_paths import shared_data_path

PUBLISHED = ("gpt-4o", "gpt-4o-mini", "ocsai-chatgpt", "ocsai-davinci2")


@pytest.fixture(scope="module")
def people() -> Path:
    return shared_data_path("ocsai")


def _test_split(people: Path) -> pd.DataFrame:
    """The test responses read independently of creval: object, use, rating (1-5)."""
    rows = [json.loads(line) for line in
            (people / "ocsai1/finetune-gt_main2_prepared_test.jsonl").read_text().splitlines()]
    parts = [r["prompt"].split("\n") for r in rows]
    return pd.DataFrame({"object": [p[0].removeprefix("AUT Prompt:") for p in parts],
                         "use": [p[1].removeprefix("Response:") for p in parts],
                         "rating": [int(r["completion"]) / 10 for r in rows]})


def _lister(uses: list[str], judge: Any = None) -> Any:
    def reply(body: dict[str, Any]) -> tuple[int, str]:
        prompt = body["messages"][-1]["content"]
        if prompt.startswith("You rate how original"):
            return 200, judge(prompt) if judge else "3"
        return 200, "\n".join(f"{i}. {u}" for i, u in enumerate(uses, 1))
    return reply


def _run(tmp_path: Path, reply: Any, *extra: str) -> tuple[Any, dict[str, Any]]:
    server = ChatServer(reply=reply)
    try:
        done = creval("run", "aut", "--model", "openai:tiny", "--base-url", server.url,
                      "--max-tokens", "64", "--embedder", "glove-6b-50d", "--out", str(tmp_path),
                      "--no-progress", *extra,
                      env={"OPENAI_API_KEY": "test", "CREVAL_CACHE_DIR": str(tmp_path / "cache")})
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    return done, json.loads((tmp_path / "scores.json").read_text(encoding="utf-8"))


def test_regressor_validated_on_every_test_response_beside_the_published_scorers(
        people: Path, tmp_path: Path) -> None:
    done, scores = _run(tmp_path, _lister(["build a wall", "build a house", "doorstop"]),
                        "--scorer", "regressor", "--people", str(people), "--objects", "brick",
                        "--uses", "3", "--train-limit", "300")
    head = scores["headline"]
    assert head["validation_responses"] == 3030 and head["fluency_mean"] == 3
    test = _test_split(people)
    for name in PUBLISHED:  # recomputed from the released CSV, independently of creval
        csv = pd.read_csv(people / "results" / f"logprobs_{name}_ocsai1.csv")
        assert (csv["response"].str.strip() == test["use"].str.strip()).all()
        ref = stats.pearsonr(test["rating"], csv["score_1"])
        low, high = ref.confidence_interval(0.95)
        assert head[f"published_r_{name}"] == pytest.approx(ref.statistic, abs=1e-4)
        assert (head[f"published_r_{name}_low"], head[f"published_r_{name}_high"]) == pytest.approx(
            (low, high), abs=1e-4)
        assert head[f"r_minus_{name}"] == pytest.approx(head["human_r"] - ref.statistic, abs=2e-4)
        # printed in the console with its interval
        assert re.search(rf"published_r_{re.escape(name[:10])}", done.stdout)
    assert 0.2 < head["human_r"] < head["published_r_ocsai-chatgpt"]  # a weaker scorer, not nil
    assert head["human_r_low"] < head["human_r"] < head["human_r_high"]
    assert "human_r" in done.stdout and "r_minus_gpt-4o" in done.stdout
    assert scores["resources"]["regressor"]["n_train"] == 300
    assert list((tmp_path / "cache" / "aut").glob("regressor-*.npz"))  # fitted once, cached


def _top_uses(people: Path, obj: str, n: int) -> list[str]:
    test = _test_split(people)
    return test[test["object"] == obj].sort_values("rating", ascending=False)["use"].head(n).tolist()


def test_people_percentile_low_for_the_common_use_high_for_peoples_best(
        people: Path, tmp_path: Path) -> None:
    common = ["build a wall", "build a house", "build a wall with it", "build a path",
              "use it to build a house"]
    args = ("--scorer", "regressor", "--people", str(people), "--objects", "brick",
            "--validation-limit", "400", "--train-limit", "300")
    _, low = _run(tmp_path / "common", _lister(common), "--uses", "5", *args)
    _, high = _run(tmp_path / "best", _lister(_top_uses(people, "brick", 12)), "--uses", "12", *args)
    assert low["headline"]["people_percentile"] < 25 < 60 < high["headline"]["people_percentile"]
    head = high["headline"]  # 12 uses: an interval over the uses and the people
    assert head["people_percentile_low"] < head["people_percentile"] < head["people_percentile_high"]


def test_semdis_places_only_the_objects_people_answered(tmp_path: Path) -> None:
    _, scores = _run(tmp_path, _lister(["hold a door open", "grind into red pigment"]),
                     "--uses", "2", "--people", str(shared_data_path("ocsai")),
                     "--validation-limit", "60", "--objects", "brick,umbrella")
    head = scores["headline"]
    assert head["objects"] == 2 and head["fluency_mean"] == 2 and head["validation_responses"] > 0
    rows = {r["object"]: r for r in scores["table"]}
    assert 0 < rows["brick"]["originality"] < 2 and rows["umbrella"]["elaboration"] == 4.0
    # umbrella is no Ocsai object: only the brick's uses are placed among people
    assert "2 uses of 1 objects" in " ".join(scores["notes"])


def test_without_people_data_the_starter_objects_and_no_validation(tmp_path: Path) -> None:
    _, scores = _run(tmp_path, _lister(["hold a door open"]), "--uses", "4")
    assert scores["headline"]["objects"] == 5 and "human_r" not in scores["headline"]
    assert any("not validated against people" in n for n in scores["notes"])
    assert any("listed 1.0 uses per object on average of the 4 asked" in w for w in scores["warnings"])


def test_the_regressor_without_people_data_is_refused_before_any_request(tmp_path: Path) -> None:
    done = creval("run", "aut", "--model", "openai:tiny", "--base-url", "http://127.0.0.1:9/v1",
                  "--scorer", "regressor", "--out", str(tmp_path), env={"OPENAI_API_KEY": "t"})
    assert done.returncode == 2 and "creval data fetch ocsai" in done.stderr
    assert "Traceback" not in done.stderr
