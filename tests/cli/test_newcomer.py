"""What a new user met on a first afternoon (issue 44, the newcomer's list): each mistake
gets one clear line and a non-zero exit, each output says what is true."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer, scripted_dat_run

NOWHERE = ["--model", "openai:m", "--base-url", "http://127.0.0.1:9/v1"]
WORDS = ["cat, dog, thimble, violin, tomato, hippo, jumper, machinery, prickle, tickets",
         "volcano, spoon, justice, giraffe, umbrella, algebra, velvet, harbor, pepper, saxophone"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    return (scripted_dat_run(root, "a", WORDS, trials=3),
            scripted_dat_run(root, "b", WORDS[::-1], trials=3))


def _said(done: Any) -> str:
    return " ".join((done.stdout + done.stderr).split())


# 1. --out at or under a file -----------------------------------------------------------------

@pytest.mark.parametrize("where", ["afile", "afile/run"])
def test_out_at_or_under_a_file_is_one_line(tmp_path: Path, where: str) -> None:
    (tmp_path / "afile").write_text("mine\n")
    done = creval("run", "dat", *NOWHERE, "--trials", "2", "--no-progress",
                  "--out", str(tmp_path / where))
    assert done.returncode == 2
    assert "Traceback" not in _said(done) and "FileExistsError" not in _said(done)
    assert f"{tmp_path / 'afile'} is a file" in _said(done)
    assert (tmp_path / "afile").read_text() == "mine\n"


# 8. --timeout and --concurrency out of range -------------------------------------------------

@pytest.mark.parametrize("option", [["--timeout", "-1"], ["--timeout", "0"],
                                    ["--concurrency", "0"], ["--concurrency", "-3"]])
@pytest.mark.parametrize("command", [["run", "dat"],
                                     ["sweep", "dat", "--values", "temperature=0.2"]])
def test_impossible_timeout_or_concurrency_is_refused(tmp_path: Path, option: list[str],
                                                      command: list[str]) -> None:
    done = creval(*command, *NOWHERE, *option, "--no-progress", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert f"Invalid value for '{option[0]}'" in _said(done)
    assert "Cannot reach" not in _said(done)
    assert not (tmp_path / "r").exists()


# 2. a mistyped path among the runs ----------------------------------------------------------

@pytest.mark.parametrize("command", ["compare", "rank"])
def test_a_missing_run_path_is_named(two_runs: tuple[Path, Path], command: str) -> None:
    missing = two_runs[0].parent / "nothere"
    done = creval(command, *map(str, two_runs), str(missing))
    assert done.returncode == 2
    assert f"{missing} does not exist" in _said(done)
    assert "| openai:a" not in done.stdout  # not tabled without it


# 3. compare --html of profiles ----------------------------------------------------------------

def test_compare_of_profiles_writes_the_html_page(tmp_path: Path) -> None:
    server = ChatServer(reply=lambda body: (200, WORDS[0]))
    try:
        profiles = []
        for name in ("x", "y"):
            out = tmp_path / name
            done = creval("profile", "--model", f"openai:{name}", "--base-url", server.url,
                          "--only", "dat", "--size", "smoke", "--set", "dat.trials=3",
                          "--no-progress", "--out", str(out))
            assert done.returncode == 0, done.stderr
            profiles.append(str(out))
    finally:
        server.close()
    page = tmp_path / "board.html"
    done = creval("compare", *profiles, "--html", str(page))
    assert done.returncode == 0, done.stderr
    html = page.read_text()
    assert "DAT score" in html and "openai:x" in html and "openai:y" in html


# 5. creval report rewrites report.html too ----------------------------------------------------

def test_report_rewrites_both_pages(two_runs: tuple[Path, Path]) -> None:
    run = two_runs[0]
    (run / "report.html").write_text("stale")
    done = creval("report", str(run))
    assert done.returncode == 0, done.stderr
    assert (run / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert "report.html" in done.stdout


# 6. sweep names the unknown benchmark and suggests the option ---------------------------------

def test_sweep_of_a_misspelled_benchmark_with_its_options(tmp_path: Path) -> None:
    done = creval("sweep", "dta", "--values", "temperature=0.2,0.7", "--trials", "3",
                  "--out", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "Unknown benchmark 'dta'" in _said(done) and "Did you mean 'dat'?" in _said(done)
    assert "No such option" not in _said(done)


def test_sweep_of_a_misspelled_option_suggests_it(tmp_path: Path) -> None:
    done = creval("sweep", "dat", "--values", "tempreature=0.2,0.7", "--out", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "no option --tempreature to sweep. Did you mean temperature?" in _said(done)


# 13. a manifest of {} ----------------------------------------------------------------------------

@pytest.mark.unverified_runs("a manifest of {} on purpose: not a run")
def test_an_empty_manifest_is_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text("{}")
    (run / "records.jsonl").write_text("")
    done = creval("report", str(run))
    assert done.returncode == 2
    said = _said(done)
    assert "is not a creval manifest (no benchmark, model_spec)" in said
    assert "pydantic" not in said and len(done.stderr.strip().splitlines()) == 1
    done = creval("verify", str(run))
    assert done.returncode != 0
    assert "names no benchmark" in _said(done) and "None" not in _said(done)


# 11. the family rule of rank names the rated model as rank labels it ------------------------------

def _ttct_run(out: Path, url: str) -> str:
    done = creval("run", "ttct", "--model", "openai:gpt-4o-mini", "--judge", "openai:j",
                  "--base-url", url, "--limit", "2", "--allow-no-score", "--no-progress",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    return str(out)


def test_rank_family_rule_names_the_rated_model_whole(tmp_path: Path) -> None:
    server = ChatServer(reply=lambda body: (200, "A kite that carries a lighthouse keeper."))
    try:
        runs = [_ttct_run(tmp_path / side / "ttct", server.url) for side in ("a", "b")]
        done = creval("rank", *runs, "--judge", "openai:gpt-4o", "--judge-base-url", server.url,
                      "--out", str(tmp_path / "rank"))
    finally:
        server.close()
    assert done.returncode == 2
    said = _said(done)
    assert "as the rated model openai:gpt-4o-mini (a/ttct) (by their specs" in said
    assert "as the rated model ttct)" not in said


# 14. a subset of upstream data names the benchmark, the option and the fetch ---------------------

def test_paper_profile_plan_says_how_to_get_macgyver(tmp_path: Path) -> None:
    done = creval("profile", *NOWHERE, "--size", "paper", "--plan", "--out", str(tmp_path / "p"))
    assert done.returncode == 2
    said = _said(done)
    assert "macgyver" in said and "creval data fetch macgyver" in said
    assert "--set macgyver.source=" in said


# intervals and labels: the words say what was shown ---------------------------------------------

def test_compare_help_names_the_interval_it_prints() -> None:
    done = creval("compare", "--help", env={"COLUMNS": "200"})
    assert done.returncode == 0
    assert "bootstrap" not in _said(done).lower()
    assert "Clopper-Pearson" in _said(done)


def test_an_interval_holding_0_is_not_called_chance_agreement() -> None:
    from creval.benchmarks.ttcw.scoring import NOT_DISCRIMINATING

    text = NOT_DISCRIMINATING.format(kappa=0.05, low=-0.1, high=0.2)
    assert "not shown to agree with the experts better than chance" in text
    assert "no better than chance" not in text


# 10. a replay asked for more than its source holds --------------------------------------------------

def test_a_replay_beyond_its_source_says_so(two_runs: tuple[Path, Path], tmp_path: Path) -> None:
    done = creval("run", "dat", "--model", f"replay:{two_runs[0]}", "--trials", "5",
                  "--no-progress", "--no-cache", "--out", str(tmp_path / "replay"))
    assert done.returncode == 1
    said = _said(done)
    assert "units 3 ok, 2 failed" in said and "replayed 3 answers" in said
    assert "run the same command again" not in said and "cannot mend them" in said


# 4. a judge panel in which no judge produced a score -------------------------------------------------

def test_a_panel_without_any_score_exits_non_zero(tmp_path: Path) -> None:
    server = ChatServer(reply=lambda body: (200, "A kite that carries a lighthouse keeper."))
    try:
        done = creval("run", "ttct", "--model", "openai:x", "--judge", "openai:ja,openai:jb",
                      "--base-url", server.url, "--limit", "2", "--no-progress",
                      "--out", str(tmp_path / "panel"))
    finally:
        server.close()
    assert done.returncode == 3
    assert "no judge of the panel produced a score" in _said(done)


# 7. an AUT run scored by semdis records no judge ---------------------------------------------------

def test_aut_with_semdis_records_no_judge(tmp_path: Path) -> None:
    server = ChatServer(reply=lambda body: (200, "1. hold a door\n2. build a wall\n3. a paperweight"))
    try:
        done = creval("run", "aut", "--model", "openai:x", "--base-url", server.url,
                      "--scorer", "semdis", "--limit", "2", "--no-progress",
                      "--out", str(tmp_path / "aut"))
    finally:
        server.close()
    assert done.returncode == 0, done.stderr
    import json

    manifest = json.loads((tmp_path / "aut" / "manifest.json").read_text())
    assert manifest.get("judge") is None  # it never asked one


# 15. verify and references check say what they do before the slow part ----------------------------

@pytest.mark.parametrize("command", [["verify"], ["references", "check"]])
def test_verify_says_what_it_is_doing(two_runs: tuple[Path, Path], command: list[str]) -> None:
    done = creval(*command, str(two_runs[0]))
    assert done.returncode == 0, done.stderr
    assert f"verifying {two_runs[0]}: re-deriving its scores" in done.stderr


# 12. --repeats: the interval's n counts items, not samples -------------------------------------------

def test_repeats_count_items_not_samples(tmp_path: Path) -> None:
    run = scripted_dat_run(tmp_path, "rep", WORDS, "--repeats", "2", trials=2)
    done = creval("report", str(run))
    assert done.returncode == 0, done.stderr
    from creval.reader import read_run
    from creval.report.headline import headline_rows

    row = next(r for r in headline_rows(read_run(run).scores) if r["metric"] == "dat_mean")
    assert row["95% interval"].startswith("n=2 items (4 samples, 2 per item): too few items")
    assert row["n"] == 2
