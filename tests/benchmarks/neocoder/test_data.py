"""NeoCoder data: loading the upstream files, validation, states, writing, fetching."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import Counter
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests_paths import shared_data_path

from creval.benchmarks.neocoder.data import (
    ORIGINAL_PROBLEM,
    NeoCoderDataset,
    Problem,
    load_human_solutions,
    load_human_techniques,
    load_neocoder,
    load_problems,
    states,
    write_neocoder,
)
from creval.benchmarks.neocoder.fetch import fetch_neocoder
from creval.errors import CrevalError


@pytest.fixture(scope="module")
def upstream_dir() -> Path:
    return shared_data_path("neocoder", "NeoCoder")


@pytest.fixture(scope="module")
def dataset(upstream_dir: Path) -> NeoCoderDataset:
    return load_neocoder(upstream_dir.parent)


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def problem(pid: str = "1A", rounds: int = 2, **extra: object) -> dict[str, object]:
    lists = [[ORIGINAL_PROBLEM]] + [["for loop"]] * (rounds - 1)
    return {"problem_id": pid, "problem_statements": [f"s{i}" for i in range(rounds)],
            "constraints_list": lists, **extra}


def test_upstream_files_load_with_the_documented_shape(dataset: NeoCoderDataset) -> None:
    assert len(dataset.problems) == 199
    assert dataset.human_solutions is not None and dataset.human_techniques is not None
    assert dataset.tests is not None
    assert set(dataset.tests) == {p.problem_id for p in dataset.problems}
    assert sum(len(c) for p in dataset.problems for c in [p.codes or []]) == 1194


def test_states_count_problems_per_number_of_distinct_constraints(dataset: NeoCoderDataset) -> None:
    per_t = Counter(s.t for s in states(dataset))
    assert [per_t[t] for t in range(6)] == [199, 199, 198, 194, 176, 97]  # the paper's Table 1
    for state in states(dataset):
        assert len(set(state.constraints)) == state.t
        assert state.statement == dataset.problem(state.problem_id).problem_statements[state.round]


def test_states_skip_a_round_that_repeats_the_previous_constraints() -> None:
    p = Problem.model_validate(
        {"problem_id": "9Z", "problem_statements": ["a", "b", "c", "d"],
         "constraints_list": [[ORIGINAL_PROBLEM], ["set"], ["set"], ["set", "heap"]]})
    assert [(s.round, s.t) for s in states([p])] == [(0, 0), (1, 1), (3, 2)]


def test_solutions_file_passed_as_techniques_is_refused(upstream_dir: Path) -> None:
    with pytest.raises(CrevalError) as info:
        load_human_techniques(upstream_dir / "human_solutions.json")
    message = str(info.value)
    assert "human_solutions.json" in message and "human_solution_techniques.json" in message
    assert "source-code strings" in message


def test_techniques_file_passed_as_solutions_is_refused(upstream_dir: Path) -> None:
    with pytest.raises(CrevalError, match="technique lists"):
        load_human_solutions(upstream_dir / "human_solution_techniques.json")


def test_load_neocoder_refuses_swapped_files(tmp_path: Path, upstream_dir: Path) -> None:
    with pytest.raises(CrevalError, match="looks like human_solutions.json"):
        load_neocoder(upstream_dir, techniques=upstream_dir / "human_solutions.json")


@pytest.mark.parametrize(("data", "needle"), [
    ({"1A": ["code"]}, "list of problems"),
    ([problem(), problem()], "appears twice"),
    ([{**problem(), "constraints_list": [[]]}], "one per round"),
    ([{**problem(), "codes": ["x"]}], "2 rounds but 1 codes"),
    ([{"problem_id": "1A"}], "problem_statements"),
])
def test_malformed_problems_name_the_file_and_the_problem(tmp_path: Path, data: object,
                                                         needle: str) -> None:
    path = write_json(tmp_path / "NeoCoder.json", data)
    with pytest.raises(CrevalError, match=needle) as info:
        load_problems(path)
    assert str(path) in str(info.value)


def test_missing_directory_says_how_to_get_the_data(tmp_path: Path) -> None:
    with pytest.raises(CrevalError, match="creval data fetch neocoder"):
        load_neocoder(tmp_path)


def test_tests_follow_the_statement(dataset: NeoCoderDataset) -> None:
    multi = dataset.tests_for("1901A")
    assert [t.stdin for t in multi] == ["1\n3 7\n1 2 5\n", "1\n3 6\n1 2 5\n", "1\n1 10\n7\n"]
    assert [t.expected for t in multi] == ["4", "3", "7"]
    single = dataset.tests_for("1725A")  # "The only line contains two integers"
    assert [t.stdin for t in single] == ["3 4\n", "2 1\n"]
    lists = dataset.tests_for("1886A")  # list-typed outputs are the lines of the answer
    assert lists[0].expected == "YES\n4 5 1"


def test_writing_back_reproduces_the_upstream_files(dataset: NeoCoderDataset, upstream_dir: Path,
                                                    tmp_path: Path) -> None:
    path = write_neocoder(dataset, tmp_path / "out")
    assert path.read_bytes() == (upstream_dir / "NeoCoder.json").read_bytes()
    for name in ("human_solutions.json", "human_solution_techniques.json"):
        assert (tmp_path / "out" / name).read_bytes() == (upstream_dir / name).read_bytes()
    again = load_neocoder(tmp_path / "out")
    assert again.problems == dataset.problems and again.tests == dataset.tests


def test_written_new_dataset_keeps_partial_codes(tmp_path: Path) -> None:
    made = NeoCoderDataset([Problem.model_validate(problem(codes=["print(1)", None]))])
    write_neocoder(made, tmp_path)
    assert json.loads((tmp_path / "NeoCoder.json").read_text())[0]["codes"] == ["print(1)", None]
    assert load_neocoder(tmp_path).problems == made.problems


@pytest.fixture()
def file_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    served = tmp_path / "served"
    served.mkdir()
    handler = partial(SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/data", served
    httpd.shutdown()
    httpd.server_close()


def _serve_small_dataset(served: Path) -> dict[str, str]:
    (served / "data").mkdir()
    files = {"NeoCoder.json": [problem()], "human_solutions.json": {"1A": ["print(1)"]},
             "human_solution_techniques.json": {"1A": [["for loop"]]},
             "test_cases_annotated.json": [{"problem_id": "1A", "input": [[["1"]]],
                                            "output": ["1"]}]}
    digests = {}
    for name, data in files.items():
        body = json.dumps(data).encode()
        (served / "data" / name).write_bytes(body)
        digests[name] = hashlib.sha256(body).hexdigest()[:16]
    return digests


def test_fetch_downloads_checks_and_loads(file_server: tuple[str, Path], tmp_path: Path) -> None:
    url, served = file_server
    digests = _serve_small_dataset(served)
    dest = fetch_neocoder(tmp_path / "dest", base_url=url, checksums=digests)
    fetched = load_neocoder(dest)
    assert [p.problem_id for p in fetched.problems] == ["1A"]
    assert fetched.human_techniques == {"1A": [["for loop"]]}


def test_fetch_refuses_a_file_with_the_wrong_digest(file_server: tuple[str, Path],
                                                    tmp_path: Path) -> None:
    url, served = file_server
    digests = _serve_small_dataset(served)
    digests["human_solutions.json"] = "0" * 16
    with pytest.raises(CrevalError, match="expected SHA-256"):
        fetch_neocoder(tmp_path / "dest", base_url=url, checksums=digests)
    assert not (tmp_path / "dest" / "human_solutions.json").exists()


def test_fetch_reports_a_missing_file(file_server: tuple[str, Path], tmp_path: Path) -> None:
    url, _ = file_server
    with pytest.raises(CrevalError, match="Could not download"):
        fetch_neocoder(tmp_path / "dest", base_url=url, checksums={})
