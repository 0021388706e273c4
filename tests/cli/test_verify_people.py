"""``creval verify`` re-derives DAT's ``human_percentile`` where the run found the people by
itself ($CREVAL_DAT_HUMANS, ./data/dat-humans): the run records the folder's path and the
SHA-256 of each file, and verify finds the people by them (issue 33)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import scripted_dat_run
from tests_paths import shared_data_path

from creval.benchmarks.dat.humans import PEOPLE_ENV

WORDS = ["cat", "bridge", "ocean", "pencil", "galaxy", "violin", "tractor", "honey", "glacier",
         "democracy", "spoon", "thunder"]


def verify(path: Path) -> tuple[int, list[str]]:
    done = creval("verify", str(path), "--json")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    (found,) = json.loads(done.stdout)
    return done.returncode, [*found["differences"], *found["changed_since"]]


@pytest.mark.unverified_runs("changes the people's file after the run on purpose, to see verify name it")
def test_verify_finds_the_people_by_the_digests_the_run_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    people = tmp_path / "humans"
    shutil.copytree(shared_data_path("dat-humans"), people)
    monkeypatch.setenv(PEOPLE_ENV, str(people))
    texts = ["\n".join(WORDS[i:i + 10]) for i in range(3)]
    run = scripted_dat_run(tmp_path, "w", texts, trials=4)
    scores = json.loads((run / "scores.json").read_text())
    assert scores["headline"]["human_percentile"] is not None
    manifest: dict[str, Any] = json.loads((run / "manifest.json").read_text())
    assert manifest["options"]["people"] is None
    recorded = manifest["inputs"]["files"]["people"]
    assert recorded["path"] == str(people.resolve()) and recorded["kind"] == "scoring"
    assert len(recorded["files"]["human-level/study2.tsv"]) == 64

    monkeypatch.delenv(PEOPLE_ENV)  # the checker's environment does not name them
    assert verify(run) == (0, [])
    fetched = tmp_path / "work" / "data" / "dat-humans"  # moved where `data fetch` writes
    fetched.parent.mkdir(parents=True)
    people.rename(fetched)
    monkeypatch.chdir(tmp_path / "work")
    code, said = verify(run)
    assert code == 0, said  # found at the default location by its digests

    study = fetched / "human-level" / "study2.tsv"
    study.write_text(study.read_text(encoding="utf-8") + "x\t0.5\n", encoding="utf-8")
    code, said = verify(run)
    assert code == 1
    assert any(d.startswith("cannot re-derive the scores that read --people: no place holds "
                            "what the run read (") and
               f"{people.resolve()} is not there" in d and
               f"{fetched.resolve()}: human-level/study2.tsv differs" in d for d in said), said
