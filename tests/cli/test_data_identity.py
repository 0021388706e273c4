"""The data and prompt files a run measured, read from the digests it recorded when it ran
(issue 33, cases 4, 5, 8 and 9), through the command line: small JCQ runs on the paper's
questions (``../shared/data/jcq``) against a loopback stand-in that answers and judges, the
judge reporting the paper's snapshot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

from creval.benchmarks.ttct.questions import JCQ_URL, download_path

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
JUDGEMENT = "流暢性: 3\n柔軟性: 3\n独創性: 3\n精緻性: 3"
ITEMS = "2 items behind the value (questions with a parsed judgement; 10 of 10 judgements parsed; " \
        "2 of 700 items of the paper's data), the paper measured 700"


@pytest.fixture
def server() -> Any:
    served = ChatServer(reply=lambda body: (200, JUDGEMENT if body["model"] != "w" else "答え"))
    yield served
    served.close()


def jcq(server: ChatServer, out: Path, questions: str, *extra: str) -> Any:
    return creval("run", "jcq", "--model", "openai:w", "--base-url", server.url, "--preset",
                  "paper", "--judge-base-url", server.url, "--questions", questions,
                  "--limit", "2", "--no-progress", "--out", str(out), *extra, env=KEY)


def reasons(path: Path, env: dict[str, str] | None = None) -> set[str]:
    done = creval("references", "check", str(path), "--json", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    found = [c for c in json.loads(done.stdout) if c["protocol"] == "jcq-released-judgements"]
    assert found
    return {w for c in found for w in c["reasons"]}


def variant(lines: list[str], path: Path) -> Path:
    """The same questions, reversed, with other JSON separators and key order, CRLF ends."""
    rows = [json.loads(line) for line in lines if line.strip()][::-1]
    text = "\r\n".join(json.dumps(dict(reversed(list(r.items()))), separators=(", ", ": "),
                                  ensure_ascii=False) for r in rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((text + "\r\n").encode("utf-8"))
    return path


@pytest.mark.unverified_runs("reads the questions from a loopback URL and from files it then moves or "
                              "rewrites: replay cannot read what those runs read")
def test_the_papers_questions_in_any_byte_form_from_anywhere_are_the_papers_data(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    paper = shared_data_path("jcq", "test.jsonl")
    lines = paper.read_text(encoding="utf-8").splitlines()
    assert jcq(server, tmp_path / "paper", str(paper)).returncode == 0
    assert reasons(tmp_path / "paper") == {ITEMS}

    # case 8: reversed, other separators, CRLF: the paper's data
    other = variant(lines, tmp_path / "mine" / "questions.jsonl")
    assert jcq(server, tmp_path / "reversed", str(other)).returncode == 0
    assert reasons(tmp_path / "reversed") == {ITEMS}

    # case 9: the URL (its download in the cache), checked with another cache
    download_path(JCQ_URL).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(paper, download_path(JCQ_URL))
    assert jcq(server, tmp_path / "url", JCQ_URL).returncode == 0
    assert jcq(server, tmp_path / "upstream", "upstream").returncode == 0
    elsewhere = {"CREVAL_CACHE_DIR": str(tmp_path / "another-cache")}
    assert reasons(tmp_path / "url", elsewhere) == reasons(tmp_path / "upstream", elsewhere) == {ITEMS}

    # case 9: a relative path, checked from another directory after the file moved
    monkeypatch.chdir(other.parent)
    assert jcq(server, tmp_path / "relative", "questions.jsonl").returncode == 0
    other.rename(tmp_path / "moved.jsonl")
    monkeypatch.chdir(tmp_path)
    assert reasons(tmp_path / "relative") == {ITEMS}

    # one changed item is named
    changed = tmp_path / "changed.jsonl"
    first = json.loads(lines[0])
    changed.write_text("\n".join([json.dumps({**first, "question": first["question"] + "!"},
                                             ensure_ascii=False), *lines[1:]]) + "\n",
                       encoding="utf-8")
    assert jcq(server, tmp_path / "edited", str(changed)).returncode == 0
    said = reasons(tmp_path / "edited")
    assert f"the data: 1 of 2 items are not the paper's (q-{first['id']} differs from the paper's)" in said
    assert any(w.startswith("1 item behind the value (questions with a parsed judgement; ")
               and w.endswith("; 1 of 700 items of the paper's data), the paper measured 700")
               for w in said), said


@pytest.mark.unverified_runs("changes the questions file after the run on purpose")
def test_a_resume_on_changed_questions_is_refused_with_what_changed(
    tmp_path: Path, server: ChatServer,
) -> None:
    """Case 4: the question file changed between the first part of a run and its resume."""
    questions = tmp_path / "questions.jsonl"
    shutil.copy(shared_data_path("jcq", "test.jsonl"), questions)
    out = tmp_path / "run"
    assert jcq(server, out, str(questions)).returncode == 0
    before = (out / "records.jsonl").read_bytes()
    lines = questions.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    questions.write_text("\n".join([json.dumps({**first, "question": "別の質問"}, ensure_ascii=False),
                                    *lines[1:]]) + "\n", encoding="utf-8")
    done = jcq(server, out, str(questions), "--limit", "3")
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stderr.replace("\n", "")
    assert f"1 item(s) now have other content (q-{first['id']})" in said, said
    assert f"the file of --questions ({questions.resolve()}) changed: sha256 " in said
    assert "Traceback" not in done.stdout + done.stderr
    assert (out / "records.jsonl").read_bytes() == before  # nothing lost, nothing added


@pytest.mark.unverified_runs("swaps the prompt files after the runs on purpose")
def test_a_prompt_file_swapped_after_the_run_does_not_change_the_verdict(
    tmp_path: Path, server: ChatServer,
) -> None:
    """Case 5: the judge prompt is compared by the digest recorded when the run ran."""
    papers = shared_data_path("jcq", "judge_prompt.txt")
    questions = str(shared_data_path("jcq", "test.jsonl"))
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("評価してください。\n{question}\n{answer}\n", encoding="utf-8")
    assert jcq(server, tmp_path / "mine", questions, "--judge-prompt-file", str(prompt)).returncode == 0
    said = reasons(tmp_path / "mine")
    assert any(w.startswith(f"judge_prompt_file={prompt}, the paper used null or sha256:")
               for w in said), said
    shutil.copy(papers, prompt)  # the paper's prompt put in its place afterwards
    assert reasons(tmp_path / "mine") == said
    done = creval("verify", str(tmp_path / "mine"))  # which verify says, refusing nothing
    assert done.returncode == 1 and "(--judge-prompt-file) changed since the run read it" in done.stdout

    # and the other way round: run with the paper's prompt, then overwrite it
    copy = tmp_path / "paper_prompt.txt"
    shutil.copy(papers, copy)
    assert jcq(server, tmp_path / "theirs", questions, "--judge-prompt-file", str(copy)).returncode == 0
    assert reasons(tmp_path / "theirs") == {ITEMS}
    copy.write_text("something else {question} {answer}", encoding="utf-8")
    assert reasons(tmp_path / "theirs") == {ITEMS}
