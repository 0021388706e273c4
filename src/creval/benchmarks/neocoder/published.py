"""NeoCoder's published references, declared for the evaluation layer: the seed paper's values
(``creval/data/references/seed000-neocoder.json``), the paper's data by digest, GPT-4's
released code per (problem, state) as per-item results, and the ``creval data fetch`` source.

GPT-4's code for every (problem, state) ships in ``NeoCoder.json`` (``codes``); each is
judged by creval's compat judge (the repository's verdicts,
:mod:`creval.benchmarks.neocoder.compat`), giving ``pass@1@t`` per problem. A run's values
are its own verdicts from ``scores.json``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from creval.errors import CrevalError
from creval.records.references import (
    DataSource,
    ItemValues,
    PaperData,
    PaperReferences,
    Protocol,
    Published,
    PublishedItems,
    packaged_references,
)

if TYPE_CHECKING:
    from creval.reader import Run

REFERENCES = "seed000-neocoder.json"
#: JHU-CLSP/NeoCoder datasets/CodeForce/NeoCoder at 23cd8e6 (what `creval data fetch
#: neocoder` writes), file by file: the files its shipped items were written from.
NEOCODER_SHA256 = {
    "NeoCoder.json": "6435476f71b05bf509d819a503327811eaef47cb70a50c47b271c1167732df85",
    "human_solutions.json": "24d5d7424fbdb4fc603baeeac4a7327da9e7f86420aeabdacc5c3cc98aa3d83c",
    "human_solution_techniques.json": "d508695c875951b35ef307c7ec0146c766b1b90ac1221cbd8b3c55e7489a42ec",
    "test_cases_annotated.json": "ba6b6c81c5301c3fb573ec274d88e923b04614b874ba33aef928eb4c6f4a76ed",
}
#: The paper's data: its 1,063 (problem, state) pairs by their digests.
PAPER_DATA = PaperData("data", items="neocoder.json")
#: Options that do not change what is measured, each with why.
NOT_COMPARED = {
    "states": "which states are run: the (problem, state) pairs behind the value are "
              "compared with the paper's count",
}


def references() -> list[PaperReferences]:
    return [packaged_references(REFERENCES)]


def protocol() -> Protocol:
    """The published codes' protocol: the paper's (``neocoder-direct``: every option a
    correctness verdict depends on) without a technique detector, at any number of items."""
    paper = packaged_references(REFERENCES)
    if "neocoder-direct" not in paper.protocols:
        raise CrevalError("The packaged references lost the neocoder-direct protocol.")
    direct = paper.protocols["neocoder-direct"]
    return replace(
        direct, id="neocoder-gpt4-codes", items=None,
        judge=None,  # correctness only: no technique detector is involved
        options={**direct.options, "detector": ("llm", "static", "both")},
        description="NeoCoder (Codeforces problems at Denial Prompting "
        "states), GPT-4's (gpt-4-1106-preview) released code per (problem, state) at "
        "temperature 1, judged correct or not by creval's compat judge (the "
        "repository's verdicts).")


def published_items() -> PublishedItems:
    return PublishedItems(
        protocol(), ("pass@1@t",), item_identity="the Codeforces problem id, per state t",
        licence="the NeoCoder repository's (JHU-CLSP/NeoCoder): read at run time from the "
        "user's copy, never shipped",
        fetched_from="NeoCoder.json of `creval data fetch neocoder` (the run's --data), or "
        "--published-data")


def run_values(run: Run) -> ItemValues:
    """The run's own verdicts: ``pass@1@t`` per problem."""
    if run.scores is None:
        return {}
    out: ItemValues = defaultdict(dict)
    for row in run.scores.table:
        if {"problem", "t", "correct"} <= set(row):
            out[f"pass@1@{int(row['t'])}"][str(row["problem"])] = float(bool(row["correct"]))
    return dict(out)


def data_file(run: Run, published: Path | None) -> Path | None:
    """``NeoCoder.json`` of the run's data (or of ``published``), when it exists."""
    where = published if published is not None else run.manifest.options.get("data")
    if where in (None, ""):
        return None
    base = Path(str(where))
    for candidate in (base, base / "NeoCoder.json", base / "NeoCoder" / "NeoCoder.json"):
        if candidate.is_file():
            return candidate
    if published is not None:
        raise CrevalError(f"{published} holds no NeoCoder.json: point --published-data at the "
                          "NeoCoder data directory (creval data fetch neocoder).")
    return None


#: Compat verdicts of released codes already judged in this process (a run's report and its
#: profile both ask): (file, mtime, size, problem, code) -> 1.0 or 0.0.
_VERDICTS: dict[tuple[str, int, int, str, str | None], float] = {}


def published_codes(file: Path, wanted: ItemValues) -> list[Published]:
    """GPT-4's released codes of the (problem, state) pairs in ``wanted``, judged by the
    compat judge: ``pass@1@t`` per problem. Only those pairs are judged (each code runs
    in the sandbox), once per process."""
    from creval.benchmarks.neocoder.compat import judge_compat_many, upstream_program
    from creval.benchmarks.neocoder.data import load_neocoder, states

    dataset = load_neocoder(file)
    if dataset.tests is None:
        raise CrevalError(f"No test cases beside {file}: the compat judge needs them.")
    codes = {p.problem_id: p.codes for p in dataset.problems}
    chosen = []
    for state in states(dataset):
        measure = f"pass@1@{state.t}"
        code_list = codes.get(state.problem_id)
        if state.problem_id in wanted.get(measure, {}) and code_list and state.round < len(code_list):
            chosen.append((measure, state.problem_id, code_list[state.round]))
    cases = dataset.tests
    stat = file.stat()
    where = (str(file.resolve()), stat.st_mtime_ns, stat.st_size)
    todo = [(m, pid, code) for m, pid, code in chosen
            if pid in cases and (*where, pid, code) not in _VERDICTS]
    verdicts = judge_compat_many([
        (upstream_program(code, fenced=False), cases[pid].input, cases[pid].output)
        for _, pid, code in todo])
    for (_, pid, code), verdict in zip(todo, verdicts, strict=True):
        _VERDICTS[(*where, pid, code)] = float(verdict.correct)
    values: ItemValues = defaultdict(dict)
    for measure, pid, code in chosen:
        if pid in cases:
            values[measure][pid] = _VERDICTS[(*where, pid, code)]
    return [Published("GPT-4 (gpt-4-1106-preview)", "neocoder", protocol(), str(file),
                      dict(values))]


def read_published(run: Run, published: Path | None) -> tuple[list[Published], str | None]:
    file = data_file(run, published)
    if file is None:
        return [], "no NeoCoder.json with GPT-4's codes (run on the upstream data)"
    return published_codes(file, run_values(run)), None


def data_source() -> DataSource:
    from creval.benchmarks.neocoder.fetch import UPSTREAM_COMMIT, UPSTREAM_SHA256_PREFIX

    return DataSource(
        "neocoder",
        "NeoCoder.json, human solutions, their techniques and test cases from GitHub JHU-CLSP/NeoCoder",
        "creval.benchmarks.neocoder.fetch:fetch_neocoder",
        url="https://github.com/JHU-CLSP/NeoCoder", commit=UPSTREAM_COMMIT,
        digests=dict(UPSTREAM_SHA256_PREFIX), licence="as the NeoCoder repository states it")
