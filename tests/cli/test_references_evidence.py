"""What a run measured is read from its records: ``creval references check`` and ``creval
compare RUN --published`` on small JCQ runs against loopback endpoints (issue 33's cases).

A writer answers each question (``ANSWER q-k``: the question's number in the order first
seen and the answer's); a judge answers with four scores in the JCQ-judge format, reporting
the model id it is told to (none, a router's id, another snapshot). Each case changes one
thing a run claims or records and asserts the reason said.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
JUDGE = "openai:gpt-4o-2024-08-06"
SCORES = "流暢性: 3\n柔軟性: 4\n独創性: 2\n精緻性: 3"
RELEASED = "jcq-released-judgements"


class Stand:
    """The writer and the judge. ``garble``: the judge answers every judgement unparseably
    except the first answer of the first question seen."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.questions: dict[str, int] = {}
        self.answers: dict[int, int] = {}
        self.garble = False
        self.writer = ChatServer(reply=self.write)
        self.judge = ChatServer(reply=self.rate)

    def write(self, body: dict[str, Any]) -> tuple[int, str]:
        with self.lock:
            q = self.questions.setdefault(body["messages"][-1]["content"], len(self.questions))
            k = self.answers[q] = self.answers.get(q, -1) + 1
        return 200, f"ANSWER {q}-{k}"

    def rate(self, body: dict[str, Any]) -> tuple[int, str]:
        found = re.search(r"ANSWER (\d+)-(\d+)", body["messages"][-1]["content"])
        if found is None:  # asked a question: this endpoint is the tested model too
            return self.write(body)
        if self.garble and found.group(0) != "ANSWER 0-0":
            return 200, "I cannot rate this."
        return 200, SCORES

    def close(self) -> None:
        self.writer.close()
        self.judge.close()


@pytest.fixture
def stand() -> Iterator[Stand]:
    made = Stand()
    yield made
    made.close()


def run_jcq(stand: Stand, out: Path, *extra: str, model: str = "openai:w",
            base_url: str | None = None, judge_url: str | None = None) -> Path:
    args = ["run", "jcq", "--model", model, "--preset", "paper", "--judge", JUDGE,
            "--judge-base-url", judge_url or stand.judge.url,
            "--questions", str(shared_data_path("jcq", "test.jsonl")), "--limit", "2",
            "--no-progress", "--out", str(out), *extra]
    if not model.startswith("replay:"):
        args[4:4] = ["--base-url", base_url or stand.writer.url]
    done = creval(*args, env=KEY)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def checks(path: Path) -> list[dict[str, Any]]:
    done = creval("references", "check", str(path), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def reasons_of(path: Path, protocol: str = RELEASED) -> set[str]:
    mine = [c for c in checks(path) if c["protocol"] == protocol]
    assert mine and not any(c["comparable"] for c in mine), mine
    return {w for c in mine for w in c["reasons"]}


def rule_reasons(path: Path) -> set[str]:
    """The comparability rules' own reasons (the Python API, without the verify pre-check
    that `references check` and `compare --published` run first)."""
    from creval.evaluation.compare.comparability import comparable_references

    return {w for c in comparable_references(path) if c.protocol == RELEASED for w in c.reasons}


def refused(path: Path) -> str:
    """What `references check` says of a run whose files do not agree (exit 2, no traceback)."""
    done = creval("references", "check", str(path), "--json")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert "not compared: its files do not agree" in done.stderr, done.stderr
    return " ".join(done.stderr.split())


def published(path: Path) -> str:
    """What ``compare --published`` says of a run it must not compare (exit 2, no traceback)."""
    done = creval("compare", str(path), "--published", env=KEY)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done.stderr


def test_a_judge_whose_answers_carry_no_model_id_is_unverified(stand: Stand, tmp_path: Path) -> None:
    stand.judge.reports = ""  # answers without a `model` field
    run = run_jcq(stand, tmp_path / "run")
    said = reasons_of(run)
    assert (f"judge snapshot unverified: 10 of 10 answers carried no model id (spec {JUDGE}), so "
            "which model answered cannot be checked; the paper's was gpt-4o-2024-08-06") in said, said
    assert "judge snapshot unverified: 10 of 10 answers carried no model id" in published(run)


def test_a_routers_id_is_the_same_snapshot_and_another_is_not(stand: Stand, tmp_path: Path) -> None:
    stand.judge.reports = "openai/gpt-4o-2024-08-06"
    said = reasons_of(run_jcq(stand, tmp_path / "routed"))
    assert said == {"2 items behind the value (questions with a parsed judgement; 10 of 10 "
                    "judgements parsed; 2 of 700 items of the paper's data), the paper measured "
                    "700"}, said
    other = Stand()  # another endpoint: the response cache holds the first one's answers
    other.judge.reports = "gpt-4o-2024-11-20"
    try:
        said = reasons_of(run_jcq(other, tmp_path / "other"))
    finally:
        other.close()
    assert f"judge answered as gpt-4o-2024-11-20 (spec {JUDGE}), the paper's was gpt-4o-2024-08-06" in said


@pytest.fixture(scope="module")
def greedy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A run at temperature 0 (the paper's is 1): its records say 0.0 in every request."""
    stand = Stand()
    try:
        run = run_jcq(stand, tmp_path_factory.mktemp("greedy") / "run", "--temperature", "0")
    finally:
        stand.close()
    assert "temperature=0.0, the paper used 1.0" in reasons_of(run)
    yield run


@pytest.mark.unverified_runs("edits a copy's manifest to contradict its records, to see it refused")
def test_a_manifest_that_contradicts_the_records_is_refused(greedy: Path, tmp_path: Path) -> None:
    edited = Path(shutil.copytree(greedy, tmp_path / "edited"))
    manifest = json.loads((edited / "manifest.json").read_text())
    manifest["options"]["temperature"] = 1.0  # the paper's, by hand; every request says 0.0
    (edited / "manifest.json").write_text(json.dumps(manifest))
    said = rule_reasons(edited)
    assert ("temperature: manifest.json says 1.0, but 2 request(s) of the target in "
            "records.jsonl sent 0.0") in said, said
    assert ("temperature: manifest.json says 1.0, but 2 request(s) of the target in "
            "records.jsonl sent 0.0") in refused(edited)  # verify says it the same way
    assert "its files do not agree" in published(edited)


def test_a_replay_carries_the_protocol_of_the_run_it_replays(
    greedy: Path, stand: Stand, tmp_path: Path,
) -> None:
    replayed = run_jcq(stand, tmp_path / "replayed", model=f"replay:{greedy}")  # --preset paper
    assert json.loads((replayed / "manifest.json").read_text())["options"]["temperature"] == 1.0
    said = reasons_of(replayed)
    assert (f"temperature=0.0 (the target's answers were replayed from {greedy.resolve()}, asked "
            "so in 2 request(s)), the paper used 1.0") in said, said
    assert f"replayed from {greedy.resolve()}" in published(replayed)


@pytest.mark.unverified_runs("deletes, empties or cuts a copy's records, to see it refused")
@pytest.mark.parametrize("cut", ["deleted", "emptied", "truncated"])
def test_records_deleted_emptied_or_truncated_are_refused(greedy: Path, tmp_path: Path,
                                                          cut: str) -> None:
    broken = Path(shutil.copytree(greedy, tmp_path / cut))
    records = broken / "records.jsonl"
    lines = records.read_bytes().splitlines(keepends=True)
    if cut == "deleted":
        records.unlink()
    else:
        records.write_bytes(b"" if cut == "emptied" else lines[0])
    expected = ("records.jsonl is missing: scores.json counts 2 finished unit(s) but what they "
                "sent and received cannot be read" if cut == "deleted" else
                f"records.jsonl holds {0 if cut == 'emptied' else 1} of the 2 finished unit(s) "
                "scores.json counts (emptied or truncated): the rest cannot be read")
    assert expected in rule_reasons(broken)
    assert "records.jsonl" in refused(broken)
    assert "its files do not agree" in published(broken)


def test_structured_judging_that_no_backend_applied_is_compared_as_off(
    stand: Stand, tmp_path: Path,
) -> None:
    run = run_jcq(stand, tmp_path / "run", "--structured-judge", "true")
    units = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    assert units and not any(u["output"]["judge_constrained"] for u in units)
    found = [c for c in checks(run) if c["protocol"] == RELEASED]
    said = {w for c in found for w in c["reasons"]}
    assert not any(w.startswith("structured_judge") for w in said), said
    assert found[0]["notes"] == [
        "structured_judge=true was asked but not applied: the backend could not constrain "
        "(judge_constrained false on all 2 units), so it is compared as false"]
    text = creval("references", "check", str(run)).stdout
    assert "note: structured_judge=true was asked but not applied" in text


def test_self_judging_by_snapshot_and_endpoint_and_where_the_paper_did_it(
    stand: Stand, tmp_path: Path,
) -> None:
    port = stand.judge.url.split(":")[-1].split("/")[0]
    # the paper's own set-up: GPT-4o answering and judging (JCQ's GPT-4o row)
    run = run_jcq(stand, tmp_path / "localhost", model=JUDGE, base_url=stand.judge.url,
                  judge_url=f"http://localhost:{port}/v1")
    found = checks(run)
    released = {w for c in found if c["protocol"] == RELEASED for w in c["reasons"]}
    assert not any("self-judged" in w for w in released), released
    # Table 12's models were judged by GPT-4o, none was GPT-4o: there it is said
    said = {w for c in found if c["protocol"] == "jcq-dat-trained" for w in c["reasons"]}
    assert ("self-judged: the tested model judged its own answers; gpt-4o-2024-08-06 at the same "
            "endpoint (the paper's judge was gpt-4o, judging other models' answers)") in said, said
    # the same endpoint spelled alike: one model object; its warning names no flag to pass
    same = run_jcq(stand, tmp_path / "same", model=JUDGE, base_url=stand.judge.url)
    warnings = json.loads((same / "scores.json").read_text())["warnings"]
    assert any(w.startswith("The judge you passed is the tested model itself") for w in warnings)
    assert not any("pass --judge" in w for w in warnings), warnings
    assert not any("self-judged" in w for c in checks(same) if c["protocol"] == RELEASED
                   for w in c["reasons"])


def test_the_items_behind_the_value_are_the_questions_with_a_parsed_judgement(
    stand: Stand, tmp_path: Path,
) -> None:
    stand.garble = True
    run = run_jcq(stand, tmp_path / "run")
    said = reasons_of(run)
    assert ("1 item behind the value (questions with a parsed judgement; 1 of 10 judgements "
            "parsed; 2 of 700 items of the paper's data), the paper measured 700") in said, said
    text = creval("references", "check", str(run)).stdout
    assert ("items behind the value: 1 valid (questions with a parsed judgement) of 2 finished, "
            "2 planned; 1 of 10 judgements parsed") in text
