"""``creval profile`` end to end on the packaged model (a small slice of the battery), its
report in Chromium, resume with 0 requests, replayed profiles of two models and
``creval compare`` over them, and the errors a user can make."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import creval
from tests._cli import creval as run_cli
from tests._servers import ChatServer
from tests.report._browser import Browser, chromium_or_skip

#: The TTCT family (seed 004) at a few items: the rubric questions judged by the model itself,
#: DAT and SAT.
SMALL = ["--size", "smoke", "--family", "ttct", "--no-progress", "--threads", "2",
         "--set", "ttct.limit=2", "--set", "ttct.max_tokens=48", "--set", "dat.trials=4",
         "--set", "dat.max_tokens=64", "--set", "sat.limit=2", "--set", "sat.max_tokens=64"]


@pytest.fixture(scope="module")
def local_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("profile") / "local"
    done = run_cli("profile", "--model", "local", "--out", str(out), *SMALL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Profile report:" in done.stdout
    return out


WORDS = "\n".join(["volcano", "spoon", "justice", "giraffe", "umbrella", "algebra", "velvet",
                    "harbor", "pepper", "saxophone"])


def _second_model(body: dict) -> tuple[int, str]:
    """A second "model" with answers of its own: ten distant words for DAT, rubric lines when
    it judges, a short text otherwise."""
    prompt = str(body["messages"][-1]["content"]).lower()
    if "fluency" in prompt:
        return 200, "Fluency: 3\nFlexibility: 2\nOriginality: 4\nElaboration: 2"
    if "word" in prompt:
        return 200, WORDS
    return 200, "A lighthouse keeper trades her lamp for a kite and follows the wind."


@pytest.fixture(scope="module")
def echo_server() -> Iterator[ChatServer]:
    server = ChatServer(reply=_second_model)
    yield server
    server.close()


def _doc(out: Path) -> dict:
    return json.loads((out / "profile.json").read_text())


def test_profile_writes_runs_manifest_and_reports(local_profile: Path) -> None:
    for name in ("ttct", "dat", "sat"):
        assert (local_profile / name / "scores.json").is_file()
        assert (local_profile / name / "report.html").is_file()
    manifest = json.loads((local_profile / "profile-manifest.json").read_text())
    assert manifest["battery_version"] and manifest["size"] == "smoke"
    ttct = next(r for r in manifest["runs"] if r["benchmark"] == "ttct")
    assert ttct["judge"] == "self" and ttct["options"]["limit"] == 2
    assert ttct["self_judged"] == ["judge"]
    assert next(r for r in manifest["runs"] if r["benchmark"] == "dat")["self_judged"] == []
    doc = _doc(local_profile)
    [family] = doc["families"]
    assert family["seed"] == "004"
    kinds = {m["kind"] for m in family["measurements"]}
    assert {"convergent", "divergent"} <= kinds
    rubric = [m for m in family["measurements"] if m["benchmark"] == "ttct"]
    assert all(any("self-judged" in w for w in m["weak"]) for m in rubric)
    run = next(r for r in family["runs"] if r["benchmark"] == "ttct")
    assert run["self_judged"] is True
    dat = next(m for m in family["measurements"] if m["key"] == "dat_mean")
    # the published DAT values are Japanese (seed 004): not listed beside an English run, and
    # the English ones need the people's lists (absent here)
    assert not any(r.get("protocol") == "dat-ja" for r in dat["references"])
    assert not any(r["comparable"] for r in dat["references"])
    md = (local_profile / "profile.md").read_text()
    assert "## Summary" in md and "self-judged" in md
    assert any("--judge" in line for line in doc["summary"]["next"])


def test_rerun_sends_no_request_and_python_reads_the_same(local_profile: Path) -> None:
    before = {n: (local_profile / n / "records.jsonl").read_bytes() for n in ("ttct", "dat", "sat")}
    result = creval.profile("local", size="smoke", out=local_profile, families=["ttct"],
                            options={"ttct": {"limit": 2, "max_tokens": 48},
                                     "dat": {"trials": 4, "max_tokens": 64},
                                     "sat": {"limit": 2, "max_tokens": 64}}, threads=2)
    for run in result.runs:
        usage = run.scores.usage["this_invocation"]
        assert run.ran_units == 0
        assert all(row.get("requests", 0) == 0 for row in usage["models"].values())
    for name, data in before.items():
        assert (local_profile / name / "records.jsonl").read_bytes() == data
    frame = creval.read_profile(local_profile).df()
    assert set(frame["benchmark"]) == {"ttct", "dat", "sat"}
    assert frame.loc[frame["key"] == "sat_mean", "value"].notna().all()


def test_profile_report_renders_in_chromium(local_profile: Path, tmp_path: Path) -> None:
    binary = chromium_or_skip()
    browser = Browser(binary, (local_profile / "profile.html").as_uri(), tmp_path / "chromium")
    try:
        browser.wait_for("document.querySelectorAll('section.family').length > 0")
        text = browser.js("document.body.innerText")
        assert "Where the model stands" in text and "What to run next" in text
        assert "self-judged" in text
        assert browser.js("document.querySelectorAll('.measure').length") >= 4
        shot = browser.screenshot(tmp_path / "profile.png")
    finally:
        browser.close()
    assert shot.stat().st_size > 10_000
    print(f"screenshot of the profile report: {shot}")


def test_replayed_profiles_of_two_models_compare(
    local_profile: Path, echo_server: ChatServer, tmp_path: Path
) -> None:
    other = tmp_path / "echo"
    done = run_cli("profile", "--model", "openai:echo", "--base-url", echo_server.url,
                   "--out", str(other), *SMALL)
    assert done.returncode == 0, done.stdout + done.stderr
    replays = []
    for source in (local_profile, other):
        out = tmp_path / f"replay-{source.name}"
        done = run_cli("profile", "--model", f"replay:{source}", "--out", str(out), *SMALL)
        assert done.returncode == 0, done.stdout + done.stderr
        replays.append(out)
        ours = {m["key"]: m["value"] for f in _doc(source)["families"] for m in f["measurements"]
                if m["benchmark"] in ("dat", "sat")}
        again = {m["key"]: m["value"] for f in _doc(out)["families"] for m in f["measurements"]
                 if m["benchmark"] in ("dat", "sat")}
        assert again == ours  # the replay scores the recorded answers the same way
    done = run_cli("compare", *map(str, replays), "--csv", str(tmp_path / "board.csv"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "creval profiles compared" in done.stdout and "sat_mean" in done.stdout
    assert f"replay:{local_profile}" in done.stdout and f"replay:{other}" in done.stdout
    frame = creval.reader.read_profiles(replays).df()
    sat = frame[frame["key"] == "sat_mean"]
    assert sorted(sat["rank"]) == [1, 2]
    assert (sat["rank_low"] <= sat["rank"]).all() and (sat["rank"] <= sat["rank_high"]).all()
    assert (tmp_path / "board.csv").read_text().startswith("model,")


@pytest.mark.parametrize(("args", "message"), [
    (["--size", "huge"], "Unknown size"),
    (["--family", "poetry"], "Unknown family"),
    (["--only", "macgyver-judges"], "not in the battery"),
    (["--set", "dat.trials"], "BENCHMARK.OPTION=VALUE"),
    (["--set", "dat.nonsense=1"], "Unknown option"),
    (["--set", "jcq.limit=1"], "does not run"),
])
def test_bad_input_is_named_before_anything_runs(tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "p"
    done = run_cli("profile", "--model", "local", "--out", str(out), "--family", "ttct", *args)
    assert done.returncode == 2
    assert message in done.stdout + done.stderr
    assert not out.exists()


def test_another_model_into_the_same_profile_is_refused(local_profile: Path) -> None:
    before = (local_profile / "profile-manifest.json").read_bytes()
    done = run_cli("profile", "--model", "openai:other", "--out", str(local_profile), *SMALL)
    assert done.returncode == 2
    assert "holds a profile with model='local'" in done.stdout + done.stderr
    assert (local_profile / "profile-manifest.json").read_bytes() == before
