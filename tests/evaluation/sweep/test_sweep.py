"""``creval sweep`` end to end: DAT and SAT at three temperatures on the packaged model (the
curve, its plot in Chromium, sweep.json), a rerun that sends no request, a second "model"
(a loopback server whose answers depend on the temperature) swept the same way, the two
compared at matched quality and at each temperature, and the errors a user can make."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

import creval
from creval.evaluation.sweep.sweeping import compare_sweeps
from tests._cli import creval as run_cli
from tests._servers import ChatServer
from tests.report._browser import Browser, chromium_or_skip

VALUES = "temperature=0.2,0.7,1.0"
#: DAT with a short prompt of our own and answers constrained to a JSON list (the packaged
#: 135M model copies the default prompt's "1. noun" template), SAT with a one-sentence
#: retelling: both short enough to finish within a few dozen tokens.
DAT_PROMPT = "Name ten different things (nouns), one word per line, numbered 1 to 10. Nothing else.\n"
SAT_PROMPT = ("Retell this old tale as a modern story in one short sentence of at most {length} "
              "words.\n\n{story}\n")


def _small(prompts: Path) -> list[str]:
    """The sweep's options; the response cache is the module's own (the fixtures are set up
    before the suite's per-test cache is)."""
    return ["--cache", str(prompts / "cache.sqlite"), "--size", "smoke", "--family", "ttct", "--only", "dat", "--only", "sat",
            "--set", "dat.trials=3", "--set", "dat.max_tokens=60",
            "--set", "dat.constrain_answers=true", "--set", f"dat.prompt_file={prompts / 'dat.txt'}",
            "--set", "sat.limit=2", "--set", "sat.max_tokens=40", "--set", "sat.length=20",
            "--set", f"sat.prompt_file={prompts / 'sat.txt'}", "--values", VALUES,
            "--no-progress", "--resamples", "300"]


@pytest.fixture(scope="module")
def prompts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("prompts")
    (folder / "dat.txt").write_text(DAT_PROMPT)
    (folder / "sat.txt").write_text(SAT_PROMPT)
    return folder


@pytest.fixture(scope="module")
def local_sweep(tmp_path_factory: pytest.TempPathFactory, prompts: Path) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "local"
    done = run_cli("sweep", "profile", "--model", "local", "--threads", "1", "--out", str(out),
                   *_small(prompts))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Sweep report:" in done.stdout and "0 request(s)" not in done.stdout
    return out


COMMON = ["volcano", "spoon", "justice", "giraffe", "umbrella", "algebra", "velvet", "harbor",
          "pepper", "saxophone"]
PLAIN = ["cat", "dog", "horse", "cow", "sheep", "goat", "pig", "mouse", "rat", "rabbit"]


def _tempered(body: dict) -> tuple[int, str]:
    """A second model whose answers depend on the temperature: DAT words more distant but
    more often invalid as it rises; SAT retellings longer, and some empty, as it rises."""
    t, seed = float(body.get("temperature", 1.0)), int(body.get("seed") or 0)
    prompt = str(body["messages"][-1]["content"])
    coin = zlib.crc32(f"{t}-{seed}-{prompt[-40:]}".encode()) % 100 / 100
    if "things (nouns)" in prompt:
        if coin < t * 0.6:
            return 200, json.dumps(["zzqx"] * 10)  # not words: an invalid trial
        return 200, json.dumps(COMMON if t > 0.5 else PLAIN)
    if coin < t * 0.5:
        return 200, ""
    return 200, ("A courier on an e-scooter races a drone across the city." if t > 0.5
                 else "A man walks to the shop.")


@pytest.fixture(scope="module")
def other_sweep(tmp_path_factory: pytest.TempPathFactory, prompts: Path) -> Iterator[Path]:
    server = ChatServer(reply=_tempered)
    out = tmp_path_factory.mktemp("sweep") / "other"
    try:
        done = run_cli("sweep", "profile", "--model", "openai:tempered", "--base-url", server.url,
                       "--api-key", "x", "--structured-output", "json_schema", "--out", str(out),
                       *_small(prompts))
        assert done.returncode == 0, done.stdout + done.stderr
    finally:
        server.close()
    yield out


def test_sweep_writes_points_curves_and_runs(local_sweep: Path) -> None:
    doc = json.loads((local_sweep / "sweep.json").read_text())
    assert doc["option"] == "temperature" and doc["values"] == [0.2, 0.7, 1.0]
    assert doc["benchmarks"] == ["dat", "sat"] and doc["missing"] == []
    points = doc["points"]
    assert {(p["benchmark"], p["measure"], p["quality_measure"]) for p in points} == {
        ("dat", "dat_mean", "valid_rate"), ("sat", "sat_mean", "complete_rate")}
    assert sorted(p["value"] for p in points) == [0.2, 0.2, 0.7, 0.7, 1.0, 1.0]
    for p in points:
        for key in ("value", "measure", "estimate", "low", "high", "quality_measure", "quality",
                    "quality_low", "quality_high"):
            assert key in p
        assert 0.0 <= p["quality"] <= 1.0
        # 3 trials or stories a point: too few for an interval (10), and the point says so
        assert p["quality_low"] is None and p["low"] is None
        assert p["quality_interval"].startswith("n=")
        run = json.loads((local_sweep / p["run"] / "manifest.json").read_text())
        assert run["options"]["temperature"] == p["value"]  # each point its own run directory
        scores = json.loads((local_sweep / p["run"] / "scores.json").read_text())
        if p["benchmark"] == "dat":  # the point is the run's own headline and counts
            assert p["estimate"] == pytest.approx(scores["headline"]["dat_mean"]) if (
                p["estimate"] is not None) else scores["headline"]["valid_trials"] == 0
            assert p["quality"] == pytest.approx(scores["headline"]["valid_trials"] / 3)
        else:
            assert p["estimate"] == pytest.approx(scores["headline"]["sat_mean"])
    assert (local_sweep / "temperature-0.7" / "profile.html").is_file()
    md = (local_sweep / "sweep.md").read_text()
    assert "## dat: DAT score against valid-answer rate" in md and "temperature-1.0/sat" in md
    frame = creval.read_sweep(local_sweep).df()
    assert len(frame) == 6 and set(frame["benchmark"]) == {"dat", "sat"}


def test_rerun_sends_no_request(local_sweep: Path, prompts: Path) -> None:
    before = {p: p.read_bytes() for p in local_sweep.rglob("records.jsonl")}
    assert len(before) == 6
    done = run_cli("sweep", "profile", "--model", "local", "--threads", "1", "--out",
                   str(local_sweep), "--json", *_small(prompts))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["points"]
    assert {p: p.read_bytes() for p in local_sweep.rglob("records.jsonl")} == before
    result = creval.sweep(values=VALUES, model="local", out=local_sweep, profile=True,
                          size="smoke", families=["ttct"], only=["dat", "sat"], resamples=300,
                          settings={"threads": 1, "cache": prompts / "cache.sqlite"},
                          dat={"trials": 3, "max_tokens": 60, "constrain_answers": True,
                               "prompt_file": str(prompts / "dat.txt")},
                          sat={"limit": 2, "max_tokens": 40, "length": "20",
                               "prompt_file": str(prompts / "sat.txt")})
    assert len(result.runs) == 6
    for run in result.runs:
        assert run.ran_units == 0
        assert all(row.get("requests", 0) == 0
                   for row in run.scores.usage["this_invocation"]["models"].values())


def test_compare_at_matched_quality(local_sweep: Path, other_sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    done = run_cli("sweep", "compare", str(local_sweep), str(other_sweep), "--json",
                   "--resamples", "300", "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    rows = {c["benchmark"]: c for c in doc["comparisons"]}
    assert set(rows) == {"dat", "sat"}
    for row in rows.values():
        assert [f["value"] for f in row["fixed"]] == [0.2, 0.7, 1.0]
        assert "target" in row and ("difference" in row or "note" in row)
        if row.get("difference") is not None:
            assert row["difference"] == pytest.approx(row["a"]["estimate"] - row["b"]["estimate"])
            assert row["low"] <= row["difference"] <= row["high"]
    # the packaged model reaches a quality the second model also reaches on at least one curve
    assert any(row.get("difference") is not None for row in rows.values())
    other = json.loads((other_sweep / "sweep.json").read_text())
    dat_other = [p for p in other["points"] if p["benchmark"] == "dat"]
    assert [p["quality"] for p in dat_other][0] >= [p["quality"] for p in dat_other][-1]
    for name in ("compare.json", "compare.md", "compare.html"):
        assert (out / name).is_file()
    frame = compare_sweeps(local_sweep, other_sweep, resamples=300).matched_df()
    assert list(frame["benchmark"]) == ["dat", "sat"]
    fixed = compare_sweeps(local_sweep, other_sweep, resamples=300).fixed_df()
    assert len(fixed) == 6


def test_sweep_report_renders_in_chromium(local_sweep: Path, tmp_path: Path) -> None:
    binary = chromium_or_skip()
    browser = Browser(binary, (local_sweep / "sweep.html").as_uri(), tmp_path / "chromium")
    try:
        browser.wait_for("document.querySelectorAll('section.curve').length === 2")
        assert browser.js("document.querySelectorAll('section.curve figure.plot svg').length") == 2
        # error bars and markers were drawn: paths and lines inside each SVG
        assert browser.js("document.querySelector('section.curve svg').querySelectorAll('path, use').length") > 10
        text = browser.js("document.body.innerText")
        assert "valid_rate" in text and "complete_rate" in text and "temperature-0.2/dat" in text
        shot = browser.screenshot(tmp_path / "sweep.png")
        assert shot.stat().st_size > 10_000
    finally:
        browser.close()


@pytest.mark.parametrize(("args", "message"), [
    (["sweep", "dat"], "--values"),
    (["sweep", "dat", "--values", "temperature=0.5"], "at least two values"),
    (["sweep", "dat", "--values", "temperature=0.2,hot"], "must be numbers"),
    (["sweep", "oogiri", "--values", "temperature=0.2,0.7"], "cannot be swept"),
    (["sweep", "dat", "--values", "trials=2,3"], "scale option"),
    (["sweep", "dat", "--values", "temperature=0.2,0.7", "--temperature", "1"], "swept option"),
    (["sweep", "dat", "--values", "temperature=0.2,0.7", "--model", "replay:/nowhere"],
     "not a sweep directory"),
    (["sweep", "compare", "/nowhere"], "two sweep directories"),
    (["sweep", "compare", "/nowhere/a", "/nowhere/b"], "not a finished sweep"),
])
def test_bad_input_is_a_message(args: list[str], message: str, tmp_path: Path) -> None:
    done = run_cli(*args, "--out", str(tmp_path / "s")) if args[1] != "compare" else run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "s").exists()  # nothing written


def test_benchmark_sweep_on_a_server_and_its_replay(tmp_path: Path) -> None:
    server = ChatServer(reply=_tempered)
    out = tmp_path / "dat"
    prompt = tmp_path / "dat.txt"
    prompt.write_text(DAT_PROMPT)
    args = ["--values", "temperature=0.2,1.0", "--trials", "6", "--prompt-file", str(prompt),
            "--no-progress", "--resamples", "200", "--cache", str(tmp_path / "cache.sqlite")]
    try:
        done = run_cli("sweep", "dat", "--model", "openai:tempered", "--base-url", server.url,
                       "--api-key", "x", "--out", str(out), *args)
        assert done.returncode == 0, done.stderr
        assert server.seen == 12
    finally:
        server.close()
    doc = json.loads((out / "sweep.json").read_text())
    assert [p["run"] for p in doc["points"]] == ["temperature-0.2/dat", "temperature-1.0/dat"]
    assert doc["points"][0]["quality"] >= doc["points"][1]["quality"]
    # replaying the sweep re-scores each value from the same value's run, with no request
    replayed = run_cli("sweep", "dat", "--model", f"replay:{out}", "--out", str(tmp_path / "re"),
                       "--json", *args)
    assert replayed.returncode == 0, replayed.stderr
    again = json.loads(replayed.stdout)
    assert [(p["estimate"], p["quality"]) for p in again["points"]] == [
        (p["estimate"], p["quality"]) for p in doc["points"]]
    clash = run_cli("sweep", "dat", "--model", "local", "--out", str(out), *args)
    assert clash.returncode == 2 and "holds a sweep with model" in clash.stderr
