"""What ``creval run`` and ``creval score`` write and print: replays that fit their run,
inputs that changed, superseded record lines, redacted credentials, help that matches the
tool, and small messages. Runs go to a scripted OpenAI-style server on loopback."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer, echo, free_port


def answers(body: dict[str, Any]) -> tuple[int, str]:
    """Answers that score (a run without any score exits 3): ten distant words to DAT, rubric
    lines to a judge, the prompt echoed to anything else."""
    prompt = str(body["messages"][-1]["content"])
    if "fluency" in prompt.lower():
        return 200, "Fluency: 3\nFlexibility: 2\nOriginality: 4\nElaboration: 2"
    if "word" in prompt.lower():
        return 200, "\n".join(["volcano", "spoon", "justice", "giraffe", "umbrella", "algebra",
                               "velvet", "harbor", "pepper", "saxophone"])
    return echo(body)


@pytest.fixture()
def server() -> Iterator[ChatServer]:
    srv = ChatServer(reply=answers)
    yield srv
    srv.close()


def _run(*args: str) -> list[str]:
    return ["run", *args, "--no-progress"]


def test_replay_takes_its_size_from_the_recorded_run(server: ChatServer, tmp_path: Path) -> None:
    first = creval(*_run("dat", "--model", "openai:m", "--base-url", server.url, "--trials", "4",
                         "--out", str(tmp_path / "dat")))
    assert first.returncode == 0, first.stderr
    replay = creval(*_run("dat", "--model", f"replay:{tmp_path / 'dat'}", "--variant",
                          "all-valid", "--out", str(tmp_path / "re")))
    assert replay.returncode == 0, replay.stderr
    scores = json.loads((tmp_path / "re" / "scores.json").read_text())
    assert scores["units"]["total"] == 4 and scores["units"]["errors"] == 0
    assert scores["variant"] == "all-valid"


def test_replay_of_another_benchmark_or_prompt_is_refused(server: ChatServer, tmp_path: Path) -> None:
    first = creval(*_run("dat", "--model", "openai:m", "--base-url", server.url, "--trials", "2",
                         "--out", str(tmp_path / "dat")))
    assert first.returncode == 0, first.stderr
    other = creval(*_run("sat", "--model", f"replay:{tmp_path / 'dat'}", "--out", str(tmp_path / "s")))
    assert other.returncode == 2
    assert "is a run of 'dat', not 'sat'" in " ".join(other.stderr.split())
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Name ten unrelated nouns, one per line.")
    changed = creval(*_run("dat", "--model", f"replay:{tmp_path / 'dat'}", "--prompt-file",
                           str(prompt), "--out", str(tmp_path / "p")))
    assert changed.returncode == 2 and "another prompt" in changed.stderr
    assert not (tmp_path / "s").exists() and not (tmp_path / "p").exists()


@pytest.mark.unverified_runs("changes the stories file after the run on purpose: verify must refuse to re-score it")
def test_a_changed_story_is_not_scored_against_the_old_rewrite(server: ChatServer, tmp_path: Path) -> None:
    stories = tmp_path / "stories.jsonl"
    stories.write_text('{"id": "a", "story": "A fox met a crow."}\n'
                       '{"id": "b", "story": "A hare raced a tortoise."}\n')
    args = _run("sat", "--model", "openai:m", "--base-url", server.url, "--stories", str(stories),
                "--embedder", "minilm", "--out", str(tmp_path / "run"))
    assert creval(*args).returncode == 0
    stories.write_text('{"id": "a", "story": "A wolf met a lamb."}\n'
                       '{"id": "b", "story": "A hare raced a tortoise."}\n')
    again = creval(*args)
    assert again.returncode == 2
    assert "now have other content (story-a)" in " ".join(again.stderr.split()), again.stderr


def test_retried_units_supersede_their_error_lines(tmp_path: Path) -> None:
    failing = ChatServer(script=[500, 500], reply=answers)
    try:
        args = _run("dat", "--model", "openai:m", "--base-url", failing.url, "--trials", "2",
                    "--retries", "1", "--out", str(tmp_path / "run"))
        assert creval(*args).returncode == 1
        assert creval(*args).returncode == 0
    finally:
        failing.close()
    lines = (tmp_path / "run" / "records.jsonl").read_text().splitlines()
    assert [json.loads(line)["status"] for line in lines].count("error") == 2 and len(lines) == 4
    scores = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert scores["units"]["superseded_lines"] == 2 and scores["units"]["errors"] == 0
    assert "2 superseded line(s)" in (tmp_path / "run" / "report.md").read_text()
    replay = creval(*_run("dat", "--model", f"replay:{tmp_path / 'run'}", "--out", str(tmp_path / "re")))
    assert replay.returncode == 0, replay.stderr  # the replay serves the last line per unit


def test_credentials_in_the_base_url_are_never_written_or_printed(
    server: ChatServer, tmp_path: Path
) -> None:
    host = server.url.removeprefix("http://")
    secret_url = f"http://alice:s3cret-pw@{host}"
    done = creval(*_run("dat", "--model", "openai:m", "--base-url", secret_url, "--trials", "2",
                        "--api-key", "sk-hidden-key", "--out", str(tmp_path / "run")))
    assert done.returncode == 0, done.stderr
    written = " ".join(p.read_text() for p in (tmp_path / "run").iterdir() if p.is_file())
    for secret in ("s3cret-pw", "sk-hidden-key"):
        assert secret not in written + done.stdout + done.stderr
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["model"]["identity"]["base_url"] == f"http://alice:***@{host}"
    # the identity does not change with the password: the run resumes with nothing to do
    rotated = creval(*_run("dat", "--model", "openai:m", "--base-url",
                           f"http://alice:new-pw@{host}", "--trials", "2",
                           "--out", str(tmp_path / "run")))
    assert rotated.returncode == 0, rotated.stderr
    assert "already complete: 2 ok, nothing to run" in " ".join(rotated.stdout.split())
    gone = f"http://alice:s3cret-pw@127.0.0.1:{free_port()}/v1"
    unreachable = creval(*_run("dat", "--model", "openai:m", "--base-url", gone,
                               "--out", str(tmp_path / "gone")))
    assert unreachable.returncode == 2 and "s3cret-pw" not in unreachable.stderr
    assert "alice:***@" in unreachable.stderr


def test_run_files_share_one_mode(server: ChatServer, tmp_path: Path) -> None:
    done = creval(*_run("dat", "--model", "openai:m", "--base-url", server.url, "--trials", "1",
                        "--out", str(tmp_path / "run")))
    assert done.returncode == 0, done.stderr
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "run").iterdir()}
    assert modes["manifest.json"] == modes["scores.json"] == modes["records.jsonl"], modes


def test_help_shows_benchmark_options_and_their_kinds() -> None:
    listed = creval("list", "--verbose", env={"COLUMNS": "80"})
    assert listed.returncode == 0, listed.stderr
    assert max(len(line) for line in listed.stdout.splitlines()) <= 80
    assert "--trials" in listed.stdout and "scale" in listed.stdout and "scoring" in listed.stdout
    helped = creval("run", "dat", "--help", env={"COLUMNS": "80"})
    assert helped.returncode == 0, helped.stderr
    assert "--model" in helped.stdout and "dat options" in helped.stdout
    assert "--trials" in helped.stdout and "--variant" in helped.stdout


def test_open_ended_max_tokens_points_to_the_new_names(tmp_path: Path) -> None:
    done = creval(*_run("macgyver", "--model", "local", "--max-tokens", "64",
                        "--out", str(tmp_path / "run")))
    assert done.returncode == 2
    err = " ".join(done.stderr.split())
    assert "--judge-max-tokens" in err and "--step-max-tokens" in err
    assert not (tmp_path / "run").exists()


def test_score_messages(tmp_path: Path) -> None:
    empty = creval("score", "dat")
    assert empty.returncode == 2 and "No words to score" in empty.stderr
    few = creval("score", "dat", "cat", "dog")
    assert few.returncode == 0, few.stderr
    assert "too few valid words" in few.stdout
    echoed = creval("score", "dat", "noun", "noun", "cat", "dog", "sun", "ink", "fog", "tree")
    assert "placeholder from the prompt" in " ".join(echoed.stdout.split())
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"original": "a", "rewrite": "b"\n')
    bad = creval("score", "sat", str(broken))
    assert bad.returncode == 2 and "not valid JSON" in bad.stderr and "broken.jsonl:1" in bad.stderr
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": "fox", "original": "A fox.", "rewrite": "A fox."}) + "\n")
    scored = creval("score", "sat", str(pairs))
    assert scored.returncode == 0, scored.stderr
    assert scored.stdout.splitlines()[0].startswith("fox\t")
    assert "Loading weights" not in scored.stdout + scored.stderr


def test_self_judged_runs_say_so(server: ChatServer, tmp_path: Path) -> None:
    args = ["--base-url", server.url, "--limit", "1", "--answers", "1"]
    own = creval(*_run("ttct", "--model", "openai:m", *args, "--out", str(tmp_path / "own")))
    assert own.returncode == 0, own.stderr
    scores = json.loads((tmp_path / "own" / "scores.json").read_text())
    assert scores["headline"]["judged_by"] == "self-judged: not comparable with published numbers"
    assert "self-judged" in own.stderr and "self-judged" in (tmp_path / "own" / "report.md").read_text()
    other = creval(*_run("ttct", "--model", "openai:m", "--judge", "openai:judge", *args,
                         "--out", str(tmp_path / "other")))
    assert other.returncode == 0, other.stderr
    assert "judged_by" not in json.loads((tmp_path / "other" / "scores.json").read_text())["headline"]


def test_yes_no_benchmark_options_stand_alone_and_others_need_a_value() -> None:
    for flag in ("--constrain-answers", "--no-constrain-answers", "--constrain-answers=true"):
        done = creval("run", "dat", "--trials", "1", flag, "--dry-run")
        assert done.returncode == 0, (flag, done.stderr)
    done = creval("run", "dat", "--trials", "--dry-run")
    assert done.returncode == 2 and "Option --trials needs a value" in done.stderr
