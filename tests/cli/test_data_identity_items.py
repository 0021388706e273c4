"""NeoCoder's and MacGyver's data known by their items' digests (issue 33), through the
command line: small runs on the paper's files (``../shared/data``) and on the same items
written another way (reordered, other JSON separators, the sheet as CSV) are the paper's data;
a run of some of them says "N of M items"; a changed item (a statement, a test case, a
problem) is named. Loopback stand-ins answer; NeoCoder's sandbox runs the one-line program."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

from _cli import creval
from _servers import ChatServer
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.published import NEOCODER_SHA256

KEY = {"OPENAI_API_KEY": "sk-test", "HF_HUB_OFFLINE": "1"}
PROGRAM = "```python\nprint(input())\n```"


def reasons(path: Path, protocol: str) -> set[str]:
    done = creval("references", "check", str(path), "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    found = [c for c in json.loads(done.stdout) if c["protocol"] == protocol]
    assert found, f"no published value of {protocol} was checked"
    return {w for c in found for w in c["reasons"]}


def run(*args: str) -> None:
    done = creval("run", *args, "--no-progress", env=KEY)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: some units failed


def _dump(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=1, separators=(" ,", ":  "), ensure_ascii=False),
                    encoding="utf-8")


def _neocoder_variant(folder: Path, edit: bool) -> tuple[Path, list[str]]:
    """The paper's NeoCoder files re-serialised, problems and test cases in reverse order;
    with ``edit``, in the paper's order with the first problem's statement and the second
    problem's first expected output changed. Returns the folder and the problem ids in order."""
    source = shared_data_path("neocoder", "NeoCoder")
    folder.mkdir(parents=True)
    problems = json.loads((source / "NeoCoder.json").read_text(encoding="utf-8"))
    tests = json.loads((source / "test_cases_annotated.json").read_text(encoding="utf-8"))
    techniques = json.loads((source / "human_solution_techniques.json").read_text(encoding="utf-8"))
    if edit:
        problems[0]["problem_statements"][0] += " (edited)"
        second = next(t for t in tests if t["problem_id"] == problems[1]["problem_id"])
        second["output"][0] = f"{second['output'][0]} 0"
    else:
        problems, tests = problems[::-1], tests[::-1]
        techniques = dict(reversed(list(techniques.items())))
    _dump(folder / "NeoCoder.json", problems)
    _dump(folder / "test_cases_annotated.json", tests)
    _dump(folder / "human_solution_techniques.json", techniques)
    shutil.copy(source / "human_solutions.json", folder / "human_solutions.json")
    return folder, [p["problem_id"] for p in problems]


def test_neocoder_data_is_its_items_in_any_order_and_form(tmp_path: Path) -> None:
    paper = tmp_path / "paper-data"
    paper.mkdir()
    for name in NEOCODER_SHA256:
        shutil.copy(shared_data_path("neocoder", "NeoCoder", name), paper / name)
    reordered, _ = _neocoder_variant(tmp_path / "reordered", edit=False)
    edited, ids = _neocoder_variant(tmp_path / "edited", edit=True)
    server = ChatServer(reply=lambda body: (200, PROGRAM if body["model"] == "w" else "[]"))
    try:
        common = ["--model", "openai:w", "--base-url", server.url, "--judge-base-url",
                  server.url, "--states", "0", "--preset", "paper"]
        run("neocoder", *common, "--limit", "1", "--data", str(paper), "--out", str(tmp_path / "a"))
        run("neocoder", *common, "--limit", "1", "--data", str(reordered), "--out", str(tmp_path / "b"))
        run("neocoder", *common, "--limit", "2", "--data", str(edited), "--out", str(tmp_path / "c"))
    finally:
        server.close()
    for out in ("a", "b"):  # only the item count is short, the data is 1 of the paper's items
        assert reasons(tmp_path / out, "neocoder-direct") == {
            "1 item behind the value (1 of 1063 items of the paper's data), the paper measured 1063"}
    said = reasons(tmp_path / "c", "neocoder-direct")
    assert any(w.startswith("the data: 2 of 2 items are not the paper's (")  # in records' order
               and f"{ids[0]}-r0 differs from the paper's" in w  # the statement
               and f"{ids[1]}-r0 differs from the paper's" in w for w in said), said  # a test


def _sheet_rows() -> tuple[list[str], list[dict[str, str]]]:
    with shared_data_path("macgyver", "problem_solution_pair.csv").open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def _write_sheet(path: Path, header: list[str], rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header[::-1], lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_macgyver_data_is_its_items_as_the_sheet_or_a_reordered_csv(tmp_path: Path) -> None:
    header, rows = _sheet_rows()
    solvable = [r for r in rows if r["Solvable?"] == "Yes"]
    reordered = _write_sheet(tmp_path / "reordered.csv", header, rows[::-1])
    first = solvable[0]
    changed = [{**r, "Problem": r["Problem"] + " Hurry."} if r is first else r for r in rows]
    edited = _write_sheet(tmp_path / "edited.csv", header, changed)
    server = ChatServer(reply=lambda body: (200, "Use the towel as a rope."))
    try:
        common = ["--model", "openai:w", "--base-url", server.url, "--limit", "2", "--n", "2",
                  "--max-steps", "1", "--judges", "none", "--entailment", "embedding:0.95"]
        run("macgyver", *common, "--source", str(reordered), "--out", str(tmp_path / "a"))
        run("macgyver", *common, "--source", str(edited), "--out", str(tmp_path / "b"))
    finally:
        server.close()
    said = reasons(tmp_path / "a", "macgyver-se")
    assert not any(w.startswith("the data") for w in said), said
    assert ("0 items behind the value (2 of 1306 items of the paper's data), the paper measured "
            "300") in said, said
    said = reasons(tmp_path / "b", "macgyver-se")
    assert (f"the data: 1 of 2 items are not the paper's (macgyver-{first['ID']} differs from the "
            "paper's)") in said, said
