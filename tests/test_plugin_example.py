"""The example plug-in package (examples/creval-plugin-example): its scoring by hand, and the
package installed into a temporary directory, found through its entry point and run end to
end with the command line on the offline default model."""

from __future__ import annotations

import doctest
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _cli import creval_process as creval
from tests_paths import REPO

pytestmark = pytest.mark.unverified_runs("a plug-in benchmark installed in a separate environment: verify cannot re-score it")

EXAMPLE = REPO / "examples" / "creval-plugin-example"


@pytest.fixture(scope="module")
def plugin() -> Iterator[tuple[ModuleType, ModuleType]]:
    """The example's modules ``(benchmark, scoring)``, imported from its source folder."""
    sys.path.insert(0, str(EXAMPLE / "src"))
    try:
        from creval_plugin_example import benchmark, scoring

        yield benchmark, scoring
    finally:
        sys.path.remove(str(EXAMPLE / "src"))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example installed with pip into a temporary directory (not into the venv); pip
    builds in the source folder, so it builds a copy."""
    root = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(EXAMPLE, root / "source",
                             ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--no-cache-dir", "--target", str(target), str(source)],
        check=True, capture_output=True, text=True, timeout=300,
    )
    return target


def _env(site: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}


def test_parse_uses_counts_distinct_list_items(plugin: tuple[ModuleType, ModuleType]) -> None:
    _, scoring = plugin
    answer = ("Sure! Here are 5 unusual uses:\n1. A drumstick.\n2. **Plant marker**: write the "
              "name on it\n3. a drumstick\n4) Stir paint\n\n- Back scratcher")
    # the preamble is no use; "a drumstick" repeats "A drumstick."
    assert scoring.parse_uses(answer) == [
        "A drumstick", "Plant marker: write the name on it", "Stir paint", "Back scratcher"]
    assert scoring.parse_uses("doorstop\nbookend\ndoorstop.") == ["doorstop", "bookend"]
    assert scoring.parse_uses("") == []


def test_originality_by_hand(plugin: tuple[ModuleType, ModuleType]) -> None:
    _, scoring = plugin
    # object (3, 4); uses (3, 4): distance 0; (-4, 3): orthogonal, 1; (-3, -4): opposite, 2
    assert scoring.originality([3.0, 4.0], [[3.0, 4.0]]) == pytest.approx(0.0, abs=1e-12)
    assert scoring.originality([3.0, 4.0], [[3.0, 4.0], [-4.0, 3.0], [-3.0, -4.0]]) == \
        pytest.approx(1.0)
    # (1, 0) against (1, 1): 1 - 1/sqrt(2)
    assert scoring.originality([1.0, 0.0], [[1.0, 1.0]]) == pytest.approx(1 - 2 ** -0.5)
    with pytest.raises(ValueError, match="at least one vector"):
        scoring.originality([1.0, 0.0], [])
    with pytest.raises(ValueError, match="length 2"):
        scoring.originality([1.0, 0.0], [[1.0, 0.0, 0.0]])


def test_worked_examples_in_the_docstrings_run(plugin: tuple[ModuleType, ModuleType]) -> None:
    for module in plugin:
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_objects_starter_list_and_bad_files(plugin: tuple[ModuleType, ModuleType],
                                            tmp_path: Path) -> None:
    benchmark, _ = plugin
    from creval.errors import CrevalError

    starter = benchmark.load_objects(None)
    assert len(starter) == 5 and starter[0] == "a wooden spoon"
    mine = tmp_path / "objects.txt"
    mine.write_text("# mine\na brick\n\na paperclip\n", encoding="utf-8")
    assert benchmark.load_objects(str(mine)) == ["a brick", "a paperclip"]
    mine.write_text("a brick\nA brick!\n", encoding="utf-8")
    with pytest.raises(CrevalError, match="twice"):
        benchmark.load_objects(str(mine))
    units = benchmark.AlternativeUses().units(benchmark.AUTOptions(limit=2, uses=3))
    assert [u.key for u in units] == ["object-a-wooden-spoon", "object-an-empty-glass-jar"]
    assert units[1].meta == {"object": "an empty glass jar"}


def test_installed_plugin_is_listed_run_and_rerun_from_the_store_and_cache(
    site: Path, plugin: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    env = _env(site)
    listed = creval("list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "aut-lite" in listed.stdout and "Alternative Uses" in listed.stdout

    out = tmp_path / "run"
    args = ["run", "aut-lite", "--model", "local", "--limit", "1", "--max-tokens", "64",
            "--no-progress"]
    done = creval(*args, "--out", str(out), env=env)
    assert done.returncode == 0, done.stderr
    scores = json.loads((out / "scores.json").read_text())
    assert scores["benchmark"] == "aut-lite" and scores["uses_asked"] == 5
    assert set(scores["headline"]) == {"fluency_mean", "originality_mean", "objects",
                                       "empty_answers"}
    assert scores["units"]["finished"] == 1 and scores["units"]["errors"] == 0
    assert scores["headline"]["objects"] == 1

    # the scores are those of the recorded answer, recomputed here by hand
    _, scoring = plugin
    (record,) = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert record["key"] == "object-a-wooden-spoon"
    uses = scoring.parse_uses(record["output"]["text"])
    assert scores["headline"]["fluency_mean"] == len(uses)
    assert scores["headline"]["empty_answers"] == (0 if uses else 1)
    if uses:
        from creval.embed import get_embedder

        vectors = get_embedder("minilm").embed(["a wooden spoon", *uses])
        assert scores["headline"]["originality_mean"] == pytest.approx(
            scoring.originality(vectors[0], vectors[1:]), abs=1e-5)
        assert 0.0 < scores["headline"]["originality_mean"] <= 2.0
    else:
        assert scores["headline"]["originality_mean"] is None

    # the same command again: the run directory has the answer, nothing is asked
    again = creval(*args, "--out", str(out), env=env)
    assert again.returncode == 0, again.stderr
    rescored = json.loads((out / "scores.json").read_text())
    assert rescored["usage"]["this_invocation"]["units_ok"] == 0
    assert rescored["headline"] == scores["headline"]

    # into a new directory: the response cache answers, no request reaches the model
    other = creval(*args, "--out", str(tmp_path / "other"), env=env)
    assert other.returncode == 0, other.stderr
    cached = json.loads((tmp_path / "other" / "scores.json").read_text())
    assert cached["usage"]["this_invocation"]["models"]["local"]["requests"] == 0
    assert cached["usage"]["this_invocation"]["models"]["local"]["cache_hits"] == 1
    assert cached["headline"] == scores["headline"]


def test_installed_plugin_says_what_to_fix(site: Path, tmp_path: Path) -> None:
    done = creval("run", "aut-lite", "--model", "local", "--objects", str(tmp_path / "none.txt"),
                  "--out", str(tmp_path / "run"), env=_env(site))
    assert done.returncode == 2
    assert "Objects file" in done.stderr and "--objects" in done.stderr
    assert "Traceback" not in done.stderr


def test_plugin_declares_a_preset_a_place_in_the_profile_and_a_sweep_pairing(
        plugin: tuple[ModuleType, ModuleType]) -> None:
    from creval.records import Scores

    benchmark, _ = plugin
    bench = benchmark.AlternativeUses()
    assert bench.preset("paper") == benchmark.PresetEntry(options={"uses": 10})
    assert bench.preset("fast") is None
    member = bench.battery_member
    assert member is not None and member.family.name == "plugins"
    assert [m.key for m in member.measures] == ["originality_mean", "fluency_mean"]
    # objects with 3 uses, none and 2: the second has no originality and was not answered
    scores = Scores(per_item={"originality_mean": [0.5, None, 0.75], "fluency_mean": [3.0, 0.0, 2.0]})
    assert bench.sweep_pairing is not None
    (pair,) = bench.sweep_pairing.pairs([], scores)
    assert (pair.measure, pair.quality_measure) == ("originality_mean", "answered_rate")
    assert pair.divergent == [0.5, None, 0.75] and pair.quality == [1.0, 0.0, 1.0]
    assert bench.sweep_pairing.pairs([], Scores()) == []


def test_installed_plugin_takes_its_preset_and_joins_the_profile(site: Path, tmp_path: Path) -> None:
    env = _env(site)
    # the preset's option reaches the prompt; an option the user gives wins over it
    preset = creval("run", "aut-lite", "--preset", "paper", "--limit", "1", "--dry-run", env=env)
    assert preset.returncode == 0, preset.stderr
    assert "Think of 10 unusual" in preset.stdout
    given = creval("run", "aut-lite", "--preset", "paper", "--uses", "4", "--limit", "1",
                   "--dry-run", env=env)
    assert given.returncode == 0, given.stderr
    assert "Think of 4 unusual" in given.stdout and "Think of 10" not in given.stdout
    # `creval profile` places it as a built-in member: its family, its options per size
    out = tmp_path / "profile"
    plan = creval("profile", "--model", "local", "--size", "smoke", "--family", "plugins",
                  "--plan", "--out", str(out), env=env)
    assert plan.returncode == 0, plan.stderr
    rows = json.loads((out / "plan.json").read_text())["rows"]
    assert [(r["benchmark"], r["units"], r["output_tokens"]) for r in rows] == [("aut-lite", 2, 2 * 64)]
    # without the plug-in, the family is unknown
    alone = creval("profile", "--model", "local", "--size", "smoke", "--family", "plugins",
                   "--plan", "--out", str(tmp_path / "none"))
    assert alone.returncode != 0 and "Unknown family plugins" in alone.stderr


def _five_uses(body: dict[str, Any]) -> tuple[int, str]:
    """A stand-in model that lists exactly the uses asked for (``Think of N unusual ...``)."""
    asked = int(re.search(r"Think of (\d+) unusual", body["messages"][-1]["content"]).group(1))
    return 200, "\n".join(f"{i}. use number {i}" for i in range(1, asked + 1))


def test_installed_plugin_declares_a_reference_placed_like_a_built_in_ones(
    site: Path, tmp_path: Path
) -> None:
    """The plug-in's reference is listed by ``creval references`` and held against its runs
    by ``creval references check``: comparable when the run measured as its protocol says,
    with every difference said when not."""
    from _servers import ChatServer

    env = _env(site)
    rows = json.loads(creval("references", "--benchmark", "aut-lite", "--json", env=env).stdout)
    assert [(r["protocol"], r["measure"], r["value"]) for r in rows] == [
        ("aut-lite-example", "fluency_mean", 5.0)]

    server = ChatServer(reply=_five_uses)
    try:
        for name, extra in (("same", ()), ("fewer", ("--uses", "3"))):
            done = creval("run", "aut-lite", "--model", "openai:lister", "--base-url", server.url,
                          "--no-progress", "--out", str(tmp_path / name), *extra,
                          env={**env, "OPENAI_API_KEY": "x"})
            assert done.returncode == 0, done.stderr
    finally:
        server.close()
    same = creval("references", "check", str(tmp_path / "same"), "--json", env=env)
    assert same.returncode == 0, same.stderr
    (check,) = json.loads(same.stdout)
    assert (check["benchmark"], check["protocol"], check["ours"]) == ("aut-lite", "aut-lite-example", 5.0)
    assert check["comparable"] and check["reasons"] == []
    fewer = creval("references", "check", str(tmp_path / "fewer"), "--json", env=env)
    (check,) = json.loads(fewer.stdout)
    assert check["ours"] == 3.0 and not check["comparable"]
    assert check["reasons"] == ["uses=3, the paper used 5"]
