"""The open-ended benchmarks' (MacGyver, HypoGen, BookMIA; seed 001) published references and
upstream data, declared for the evaluation layer: the seed paper's values
(``creval/data/references/seed001-openended.json``), each domain's data by digest and its
``creval data fetch`` source."""

from __future__ import annotations

from creval.records.references import DataSource, PaperData, PaperReferences, packaged_references

REFERENCES = "seed001-openended.json"
#: allenai/MacGyver problem_solution_pair.xlsx.
MACGYVER_SHA256 = "85faadd871e081066ed6dbe0ecafad82f4c79c16619f6b90da562a81f3ccceac"
#: domain -> the option naming its data, and the paper's data by digest where it is public.
PAPER_DATA: dict[str, PaperData] = {
    "macgyver": PaperData("source", files=frozenset({MACGYVER_SHA256}), items="macgyver.json"),
    "hypogen": PaperData("source"),
    "bookmia": PaperData("source"),
}
#: domain -> its ``creval data fetch`` source.
DATA_SOURCES: dict[str, DataSource] = {
    "macgyver": DataSource(
        "macgyver", "problem_solution_pair.xlsx from GitHub allenai/MacGyver",
        "creval.benchmarks.openended.fetch:fetch_macgyver",
        url="https://github.com/allenai/MacGyver", commit="main",
        digests={"problem_solution_pair.xlsx": MACGYVER_SHA256},
        licence="as allenai/MacGyver states it"),
    "hypogen": DataSource(
        "hypogen", "HypoGen bit/flip records from the Hugging Face hub, as JSONL",
        "creval.benchmarks.openended.fetch:fetch_hypogen",
        url="https://huggingface.co/datasets/UniverseTBD/hypogen-dr1",
        licence="as the hub dataset states it"),
    "bookmia": DataSource(
        "bookmia", "BookMIA snippets (swj0419/BookMIA) from the Hugging Face hub, as JSONL",
        "creval.benchmarks.openended.fetch:fetch_bookmia",
        url="https://huggingface.co/datasets/swj0419/BookMIA",
        licence="as the hub dataset states it"),
}


def references() -> list[PaperReferences]:
    return [packaged_references(REFERENCES)]
