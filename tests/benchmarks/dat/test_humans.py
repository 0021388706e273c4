"""The dat-humans reader on the shared copy of github.com/DingNLab/probing_creativity."""

from __future__ import annotations

from pathlib import Path

import pytest

from creval.benchmarks.dat.humans import (
    PEOPLE_ENV,
    read_model_words,
    read_people,
    read_retest,
    resolve_people_root,
)
from creval.errors import CrevalError
from tests.tests_paths import shared_data_path

MODELS = {"gpt-4", "gpt-3.5-turbo", "oa-30b", "vicuna-13b", "chatglm-6b"}


@pytest.fixture(scope="module")
def root() -> Path:
    return shared_data_path("dat-humans")


def test_people_counts_and_first_rows(root: Path) -> None:
    study2 = read_people(root)
    assert len(study2) == 8572
    first = study2[0]
    assert first.id == "R_OCfAxZo5M0SxNMB" and first.study == "study2"
    assert first.words[:7] == ("copper", "insect", "volcano", "trolley", "goblet", "dog",
                               "traffic light")
    assert first.dat == pytest.approx(83.0306999740146)
    scored = [p.dat for p in study2 if p.dat is not None]
    assert sum(scored) / len(scored) == pytest.approx(78.19, abs=0.01)  # the README's mean
    older = read_people(root, ("study1a", "study1b"))
    assert [sum(p.study == s for p in older) for s in ("study1a", "study1b")] == [141, 285]
    # Blank and NA answers are dropped, the rest keep their order and lose stray spaces.
    assert all(w and w.strip() == w and w.upper() != "NA" for p in study2 + older for w in p.words)
    assert older[141].words[0] == "giraffe"


def test_retest_has_fifty_pairs(root: Path) -> None:
    pairs = read_retest(root)
    assert len(pairs) == 50
    assert pairs[0] == pytest.approx((84.708835699019, 86.0034718222561))


def test_model_words_by_setting(root: Path) -> None:
    greedy = read_model_words(root, "greedy")
    assert greedy[0].model == "gpt-4" and greedy[0].words[0] == "Giraffe"
    assert {m.model for m in greedy} >= MODELS  # the file also holds six more models
    assert all(len(m.words) == 10 and m.temperature is None for m in greedy)
    top_p = read_model_words(root, "top_p")
    assert {m.model for m in top_p} == MODELS
    assert {(m.temperature, m.top_p) for m in top_p} == {(0.7, 0.9)}
    assert sum(m.model == "gpt-4" for m in top_p) == 40
    temperature = read_model_words(root, "temperature")
    assert {m.model for m in temperature} == MODELS
    assert {m.temperature for m in temperature} == {0.1, 0.4, 0.7, 0.9, 1.0}
    assert len(temperature) == 4782
    assert len(read_model_words(root)) == len(greedy) + len(top_p) + len(temperature)


def test_bad_input_says_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="creval data fetch dat-humans"):
        read_people(tmp_path)
    with pytest.raises(CrevalError, match="read_retest"):
        read_people(tmp_path, ("study1c",))
    with pytest.raises(CrevalError, match="choose from greedy"):
        read_model_words(tmp_path, "beam")
    with pytest.raises(CrevalError, match="not a dat-humans folder"):
        resolve_people_root(tmp_path)


def test_resolve_order(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(PEOPLE_ENV, raising=False)
    assert resolve_people_root(None) is None
    (tmp_path / "data" / "dat-humans" / "human-level").mkdir(parents=True)
    assert resolve_people_root(None) == tmp_path / "data" / "dat-humans"
    monkeypatch.setenv(PEOPLE_ENV, str(root))
    assert resolve_people_root(None) == root
    assert resolve_people_root(str(tmp_path / "data" / "dat-humans")) == tmp_path / "data" / "dat-humans"
